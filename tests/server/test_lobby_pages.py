"""The lobby in pages (issue 22, item 9): with 500 tables no `tables` frame exceeds the 16 KiB
docs/PROTOCOL.md promises, the pages together are the whole listing, and the listing the
server keeps (each row encoded once per change, `server.lobby`) is what the tables are now.

The 500 tables are made through the real server in-process (`Server.handle_frame`, the path
every websocket frame takes, with connections that have no socket: `InProcessConn`); the
listing is read by a real websocket client."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clients.client import Client
from protocol.messages import MAX_FRAME_BYTES, PROTOCOL_VERSION, TableInfo, Tables, parse_server
from server.app import Server
from server.lobby import Listing, shown
from server.testkit import InProcessConn, running_server
from tests.deadline import apoll

TABLES = 500


def _say(server: Server, conn: InProcessConn, frame: dict[str, Any]) -> None:
    server.handle_frame(conn, json.dumps(frame, ensure_ascii=False))


def _got(conn: InProcessConn, kind: str) -> list[dict[str, Any]]:
    return [f for f in map(json.loads, conn.frames) if f["type"] == kind]


async def _fill(server: Server, count: int) -> list[InProcessConn]:
    """`count` tables, each made by its own in-process connection (a wide Chinese name, as
    the issue's probe), a third of them with their seats filled by bots."""
    hosts = []
    for i in range(count):
        conn = InProcessConn(f"10.0.{i // 200}.{i % 200}")
        _say(server, conn, {"type": "hello", "version": PROTOCOL_VERSION, "name": f"玩家{i:03d}号"})
        _say(server, conn, {"type": "create_table", "name": f"周五晚上的麻将桌第{i:03d}号"})
        hosts.append(conn)
    await apoll(lambda: all(_got(c, "joined") for c in hosts), "every table made", 120)
    for conn in hosts[::3]:
        for _ in range(3):
            _say(server, conn, {"type": "add_bot"})
    await apoll(
        lambda: all(len(_got(c, "seat_status")) >= 3 for c in hosts[::3]), "bots seated", 120
    )
    return hosts


async def _pages(client: Client) -> list[tuple[int, dict[str, Any]]]:
    """Every page of the lobby as the client gets it: (frame bytes, frame)."""
    out: list[tuple[int, dict[str, Any]]] = []
    page, pages = 0, 1
    while page < pages:
        await client.send({"type": "list_tables", "page": page})
        raw = await client.ws.recv(decode=True)
        frame = json.loads(raw)
        assert frame["type"] == "tables"
        assert isinstance(parse_server(raw), Tables)  # every row a valid `TableInfo`
        out.append((len(raw.encode()), frame))
        pages = frame["pages"]
        assert frame["page"] == page
        page += 1
    return out


async def test_five_hundred_tables_come_in_pages_of_at_most_16_kib_that_make_the_whole_lobby(
    tmp_path: Path,
) -> None:
    async with running_server(
        tmp_path / "z.db", tables_per_address=0, tables_per_connection=0, rate_burst=1000
    ) as (url, server):
        hosts = await _fill(server, TABLES)
        async with await Client.connect(url, "看看") as looker:
            await looker.recv_type("welcome")
            pages = await _pages(looker)
            sizes = [size for size, _ in pages]
            assert max(sizes) <= MAX_FRAME_BYTES, sizes
            assert len(pages) >= 300_000 // MAX_FRAME_BYTES, "a 300 KB lobby is cut in pages"
            rows = [row for _, frame in pages for row in frame["tables"]]
            assert [r["id"] for r in rows] == [str(i) for i in range(1, TABLES + 1)]
            assert {frame["total"] for _, frame in pages} == {TABLES}
            assert rows == server.lobby(), "the kept rows are the tables as they are now"
            # A page past the last is empty, and says how many there are.
            await looker.send({"type": "list_tables", "page": len(pages) + 3})
            past = await looker.recv_type("tables")
            assert (past["tables"], past["pages"]) == ([], len(pages))

            # Tables change: a bot leaves one, a spectator comes to another, a third closes.
            encoded = server.listing.encoded
            _say(server, hosts[3], {"type": "remove_bot", "seat": 2})
            watcher = InProcessConn("10.9.0.1")
            _say(server, watcher, {"type": "hello", "version": PROTOCOL_VERSION, "name": "观众"})
            _say(server, watcher, {"type": "watch", "table": "8"})
            _say(server, hosts[9], {"type": "leave"})
            await apoll(
                lambda: _got(watcher, "joined") and "10" not in server.tables,
                "the changes made",
                30,
            )
            await apoll(lambda: bool(_got(hosts[3], "table")), "the bot gone", 30)
            rows = [row for _, frame in await _pages(looker) for row in frame["tables"]]
            assert rows == server.lobby()
            by_id = {r["id"]: r for r in rows}
            assert by_id["4"]["seats"][2]["kind"] == "empty"
            assert by_id["8"]["spectators"] == 1
            assert "10" not in by_id and len(rows) == TABLES - 1
            # Only the rows that changed were encoded again.
            assert server.listing.encoded - encoded == 2


def _info(i: int, name: str, seat_name: str) -> dict[str, Any]:
    seat = {"name": seat_name, "kind": "human", "connected": True, "auto": False, "away": False}
    return {
        "id": str(i),
        "name": name,
        "preset": "guiyang",
        "options": {"zimo_bonus": 2, "flip_chickens": "both", "patterns": {"pinghu": 2}},
        "base": 1000,
        "rounds": 64,
        "turn_seconds": 600.0,
        "bank_seconds": 3600.0,
        "claim_min_ms": 5000,
        "bot_delay": 1.5,
        "next_round_seconds": 3600.0,
        "has_password": True,
        "seats": [seat] * 4,
        "spectators": 123,
        "state": "waiting",
        "round_no": 0,
        "scores": [-1_000_000, 1_000_000, -1_000_000, 1_000_000],
    }


def _by_id(rows: Iterable[_Row]) -> dict[str, _Row]:
    return {r.id: r for r in rows}


class _Row:
    def __init__(self, i: int, name: str = "牌桌", seat_name: str = "阿明") -> None:
        self.id, self.state = str(i), "waiting"
        self.fields = _info(i, name, seat_name)

    def info(self) -> dict[str, Any]:
        return self.fields


def test_pages_are_cut_by_the_rows_bytes_and_the_widest_row_fits_a_frame() -> None:
    # The widest names there are: 32 characters of four UTF-8 bytes, seats of 24.
    wide = _by_id(_Row(i, "𠀀" * 32, "𠀀" * 24) for i in range(1, 61))
    listing = Listing()
    first = json.loads(listing.frame(wide, 0))
    frames = [listing.frame(wide, p) for p in range(first["pages"])]
    assert all(len(f.encode()) <= MAX_FRAME_BYTES for f in frames)
    parsed = [Tables.model_validate_json(f) for f in frames]
    assert [t.id for p in parsed for t in p.tables] == [str(i) for i in range(1, 61)]
    assert all(TableInfo.model_validate(r.fields) for r in wide.values())
    # A small frame: every page is full up to it, none beyond.
    small = Listing(frame_bytes=4000)
    rows = _by_id(_Row(i) for i in range(1, 41))
    count = json.loads(small.frame(rows, 0))["pages"]
    texts = [small.frame(rows, p) for p in range(count)]
    row_bytes = len(texts[0].encode()) // len(json.loads(texts[0])["tables"])
    assert all(len(t.encode()) <= 4000 for t in texts)
    assert all(len(t.encode()) > 4000 - 2 * row_bytes for t in texts[:-1]), "pages are full"
    assert sum(len(json.loads(t)["tables"]) for t in texts) == 40
    # A change re-encodes that row only, and the pages are cut again.
    encoded = small.encoded
    rows["6"].fields = {**rows["6"].fields, "spectators": 7}
    small.changed("6")
    again = [json.loads(small.frame(rows, p)) for p in range(count)]
    assert small.encoded == encoded + 1
    assert next(r for p in again for r in p["tables"] if r["id"] == "6")["spectators"] == 7
    # Nothing changed: the same frames, nothing encoded.
    same = [small.frame(rows, p) for p in range(count)]
    assert [json.loads(t) for t in same] == again and small.encoded == encoded + 1


SMALL = 3900  # a frame size whose pages hold five rows of ~680 bytes and less room than a row grows


def _listed(listing: Listing, rows: dict[str, _Row]) -> list[dict[str, Any]]:
    """Every page's rows as a client reads them; each frame within the listing's size."""
    first = json.loads(listing.frame(rows, 0))
    frames = [listing.frame(rows, p) for p in range(first["pages"])]
    assert all(len(f.encode()) <= SMALL for f in frames)
    assert {json.loads(f)["pages"] for f in frames} == {len(frames)}
    return [r for f in frames for r in json.loads(f)["tables"]]


def test_a_row_that_changes_in_place_makes_its_page_again_and_nothing_else() -> None:
    """The worst request was the first after any change: a pass over every table to cut the
    pages again. A row that stays where it was (same state, still fits its page) now re-makes
    its own page only; anything else (a table made, closed, started, a row grown past its
    page's room) cuts the pages again, and the listing is always the tables as they are."""
    listing = Listing(frame_bytes=SMALL)
    rows = _by_id(_Row(i) for i in range(1, 41))
    _listed(listing, rows)
    cuts = listing.cuts
    for n in range(1, 30):  # spectators come and go: in place
        rows[str(n)].fields = {**rows[str(n)].fields, "spectators": n}
        listing.changed(str(n))
        seen = _listed(listing, rows)
        assert seen == [r.fields for r in rows.values()]
    assert listing.cuts == cuts, "no pass over the tables for a row changed in place"
    # A row grown past its page's room (a long name): the pages are cut again.
    wide = _info(0, "𠀀" * 32, "𠀀" * 24)
    growth = len(TableInfo.model_validate(wide).model_dump_json(exclude_unset=True).encode())
    growth -= listing.where["1"][2]
    full = next(p for p, used in enumerate(listing.used) if listing.budget - used < growth)
    grows = next(i for i, (p, _, _) in listing.where.items() if p == full)
    rows[grows].fields = {**wide, "id": grows}
    listing.changed(grows)
    assert _listed(listing, rows) == [r.fields for r in rows.values()]
    assert listing.cuts == cuts + 1
    # A table that starts moves to another group: cut again, in the listing's order.
    rows["2"].state = "playing"
    rows["2"].fields = {**rows["2"].fields, "state": "playing"}
    listing.changed("2")
    seen = _listed(listing, rows)
    assert [r["id"] for r in seen] == [r.id for r in shown(rows.values())]
    assert listing.cuts == cuts + 2
    # A table closed and a new one made: cut again.
    del rows["7"]
    listing.changed("7")
    rows["41"] = _Row(41)
    listing.changed("41")
    seen = _listed(listing, rows)
    assert [r["id"] for r in seen] == [r.id for r in shown(rows.values())]
    assert listing.cuts == cuts + 3
