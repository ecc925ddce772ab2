"""A finished round as text for a person: the deal, every move, and the settlement."""

from __future__ import annotations

from typing import Any

from rules.replay_form import replay_event, replay_result
from rules.round import Round
from rules.tiles import parse_tile, tiles_str

ITEM_ZH = {
    "hand": "牌型",
    "dou": "豆",
    "chicken": "鸡",
    "baoji": "包鸡",
    "zeren": "责任鸡",
    "repao": "热炮",
    "chajiao": "查叫",
    "baopai": "包牌",
    "baodou": "包豆",
}


def _names(names: list[str]) -> str:
    return tiles_str(parse_tile(n) for n in names)


def _event_line(e: dict[str, Any]) -> str | None:
    t = e["type"]
    if t == "round_started":
        lines = [f"dealer seat {e['dealer']}, streak {e['streak']}, wall {e['wall_left']}"]
        lines += [f"  seat {i}: {_names(h)}" for i, h in enumerate(e["hands"])]
        return "\n".join(lines)
    if t == "drew":
        how = "replacement " if e["replacement"] else ""
        return f"seat {e['seat']} draws {how}{e['tile']} ({e['wall_left']} left)"
    if t == "discarded":
        extra = (" and declares 报听" if e["declared"] else "") + (" (热炮)" if e["hot"] else "")
        return f"seat {e['seat']} discards {e['tile']}{extra}"
    if t == "claimed":
        what = "碰" if e["act"] == "pong" else "杠 (点豆)"
        return f"seat {e['seat']} {what} {e['tile']} from seat {e['from_seat']}"
    if t == "concealed_gang":
        return f"seat {e['seat']} 暗杠 {e['tile']} ({e['dou']})"
    if t == "add_gang_declared":
        return f"seat {e['seat']} declares 补杠 {e['tile']}"
    if t == "added_gang":
        return f"seat {e['seat']} 补杠 {e['tile']} ({e['dou']})"
    if t == "won":
        src = "自摸" if e["how"] == "zimo" else f"on seat {e['from_seat']}'s {e['tile']}"
        if e["how"] == "rob":
            src = f"robbing seat {e['from_seat']}'s 补杠 {e['tile']}"
        bonus = f" [{', '.join(e['bonuses'])}]" if e["bonuses"] else ""
        void = " — VOID (包牌)" if e["void"] else ""
        return f"seat {e['seat']} wins {src}: {e['pattern']}{bonus} with {_names(e['hand'])}{void}"
    if t == "exhausted":
        return "the wall is empty: 荒庄"
    if t == "flipped":
        return f"flip: {e['tile']}"
    return None


def render_round(r: Round) -> str:
    """The whole round, one line per event, then the payments and the nets."""
    lines: list[str] = []
    for ev in r.events:
        line = _event_line(replay_event(ev))
        if line:
            lines.append(line)
    assert r.result is not None, "the round is not over"
    result = replay_result(r.result)
    lines.append("")
    lines.append("payments:")
    for p in result["payments"]:
        item = ITEM_ZH.get(p.get("kind", p["item"]), p["item"])
        lines.append(
            f"  seat {p['from']} → seat {p['to']}  {item:<4} {p['amount']:>4}  {p['detail']}"
        )
    if not result["payments"]:
        lines.append("  none")
    nets = "  ".join(f"seat {i}: {n:+d}" for i, n in enumerate(result["net"]))
    lines.append(f"net: {nets}")
    lines.append(f"next dealer: seat {result['next_dealer']}, streak {result['next_streak']}")
    return "\n".join(lines)
