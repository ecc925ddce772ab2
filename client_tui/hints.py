"""Hints for the player: the strong bot's three best moves for the prompt on screen, worded here
from the rules core's structured hints (`rules.players.hints.top_moves`).

The hints are computed on the client from the seat's own view (`View.round`, the rules core's `SeatView`: what the
server has shown this seat), so they reveal nothing the player could not work out; the table's
`hints` option (RULES.md §10) turns the key off, and the server enforces nothing (any client may
analyse its own view as it likes).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from client_tui import tiles as tl
from client_tui.analysis import options_for
from client_tui.i18n import Lang
from client_tui.view import View
from rules.players.hints import Hint, top_moves
from rules.round import Phase
from rules.tiles import tile_name
from rules.view import SeatView

HINTS = 3
MOVE_STYLE = Style(bold=True)
DIM = Style(color="grey50")
DANGER_STYLE = Style(color="red", bold=True)


def hint_view(view: View) -> SeatView | str:
    """The seat's view as the prompt on screen asks it to move, or why there is no hint (an
    i18n key): hints off at this table, watching, or nothing asked now."""
    if not options_for(view.table).hints:
        return "why_hints_off"
    if view.seat is None:
        return "why_watching"
    prompt, sv = view.prompt, view.round
    if prompt is None or prompt.answered or sv is None:
        return "why_no_hint"
    if prompt.is_claim:
        claims = tuple(a for a in ("hu", "pong", "gang") if prompt.offers(a))
        return sv._replace(offered=claims)
    if not sv.on_turn:
        return sv._replace(phase=Phase.TURN, turn=view.seat)
    return sv


def hints_for(view: View) -> list[Hint] | str:
    """The hints for the prompt on screen (deterministic per prompt), or why there are none."""
    sv = hint_view(view)
    if isinstance(sv, str):
        return sv
    assert view.prompt is not None
    hints = top_moves(sv, HINTS, seed=f"hint:{view.table_id}:{view.prompt.seq}")
    return hints or "why_no_hint"


def move_label(hint: Hint, lang: Lang, ascii: bool) -> str:
    """The move in a few characters: `打 五筒`, `报听 五筒`, `碰`, `杠 七万`, `胡`."""
    a = hint.action
    tile = "" if a.tile is None else tl.label(tile_name(a.tile), ascii)
    if a.act == "discard":
        return lang.t("hint_discard", tile=tile)
    name = lang.t(a.act)  # 碰 in zh, `碰 Pong` in en: an English reader gets the word too
    return f"{name} {tile}".strip()


def reason_text(hint: Hint, lang: Lang, ascii: bool) -> str:
    """One short reason, in the interface language: `keeps 幺鸡: ready chance 62 %`."""
    params: dict[str, object] = dict(hint.params)
    tile = params.get("tile")
    if isinstance(tile, str):
        chicken = f"chicken_{tile}"
        params["tile"] = lang.t(chicken) if lang.t(chicken) != chicken else tl.label(tile, ascii)
    if "pattern" in params:
        params["pattern"] = lang.pattern(str(params["pattern"]))
    return lang.t("hint_" + hint.reason, **params)


def hints_text(hints: list[Hint], lang: Lang, ascii: bool) -> Text:
    """The hint panel: a title, then one line per move: the move, its value, its reason."""
    out = Text(lang.t("hints_title"), style=DIM)
    for i, h in enumerate(hints):
        out.append(f"\n {i + 1}. ")
        out.append(move_label(h, lang, ascii), style=MOVE_STYLE)
        out.append(f"  {lang.t('hint_value', v=f'{h.value:+.1f}')}  ", style=DIM)
        out.append(reason_text(h, lang, ascii))
        danger = danger_text(h, lang)
        if danger:
            out.append(f"  ({danger})", style=DANGER_STYLE if h.params.get("declared") else DIM)
    return out


def danger_text(hint: Hint, lang: Lang) -> str:
    """How likely a discard feeds another seat's win, in words; a tile a 报听 seat may be
    waiting on says so. Empty for a move that discards nothing."""
    if "danger" not in hint.params:
        return ""
    words = lang.t(f"danger_{hint.params['danger']}")
    if hint.params.get("declared"):
        words += "; " + lang.t("danger_declared")
    return words
