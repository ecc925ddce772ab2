"""A live table projects each viewer's frame from the rules event it keeps beside the log entry
(`protocol.events.LoggedEntry`); an entry read back from the store is parsed once. Both must
give every viewer the very frame the dict alone gives."""

from __future__ import annotations

import json

from protocol.events import LoggedEntry, project_entry
from protocol.frames import encode
from rules.options import make_options
from rules.players import Bot
from rules.round import Phase, Round
from rules.view import PRIVATE_TYPES

VIEWERS = (0, 1, 2, 3, None)


def _round_entries(seed: int) -> list[tuple[dict, object]]:
    r = Round.deal(make_options("guiyang", {}), seed=seed, dealer=0, streak=0, base=1)
    bots = [Bot(seed + s) for s in range(4)]
    while r.phase is not Phase.OVER:
        seat = r.awaiting()[0]
        r.apply(bots[seat].choose(r, seat))
    out = []
    for seq, e in enumerate(r.events, 1):
        d = e.to_dict()
        d.update(table="7", seq=seq)
        if d["type"] == "round_started":
            d.update(round_no=1, base=1, commitment=None)
        elif d["type"] == "round_ended":
            d["scores"] = [0, 0, 0, 0]
        out.append((d, e))
    return out


def test_live_and_stored_entries_project_as_the_dict_does() -> None:
    private = 0
    for seed in (3, 4):
        for d, e in _round_entries(seed):
            live = LoggedEntry.of(dict(d), e)
            stored = LoggedEntry.read(json.loads(json.dumps(d)))
            # What is stored and sent of the entry is its dict, whichever form holds it.
            assert live == d and stored == d
            assert json.dumps(live) == json.dumps(d)
            if d["type"] in PRIVATE_TYPES:
                private += 1
                assert isinstance(live, LoggedEntry) and isinstance(stored, LoggedEntry)
            else:
                assert type(live) is dict  # a public event is sent as its dict
            for viewer in VIEWERS:
                want = encode(project_entry(dict(d), viewer))
                assert encode(project_entry(live, viewer)) == want
                assert encode(project_entry(stored, viewer)) == want
    assert private > 50  # the deals and the draws of two rounds


def test_a_draw_shows_its_tile_to_its_seat_only() -> None:
    d, e = next((d, e) for d, e in _round_entries(5) if d["type"] == "drew")
    live = LoggedEntry.of(dict(d), e)
    seen = {v: project_entry(live, v)["tile"] for v in VIEWERS}
    assert seen[d["seat"]] == d["tile"]
    assert all(tile is None for v, tile in seen.items() if v != d["seat"])
