"""`zhuoji play`: start a server of its own, sit down with three bots, and play.

One command from install to playing: the server (a process forked from this one where there is
fork, `zhuoji.play_process`, else a thread) listens on a free loopback port, the game is
recorded in `play.db` in the user's data directory (or `--db`), and everything stops when the
app does. The match is kept: the next `zhuoji play` offers to resume it (after `q`, a crash or
a closed terminal), or starts a new one (`--new`, or answering n); a match not resumed, or ended
on purpose (`l`), is closed as abandoned (`zhuoji.play_resume`).

One server owns a database: a second `zhuoji play` while the first window is open plays on a
temporary database of its own, and says so (and how to join the first window's table instead).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.players.levels import LEVEL_LINES
from zhuoji.common import (
    REVEAL_SECONDS,
    add_bell_argument,
    add_display_arguments,
    add_house_argument,
    add_name_argument,
    display,
    player_key_or_exit,
    read_house,
)

if TYPE_CHECKING:
    from client_tui.seats import SavedSeat, SeatStore
    from zhuoji.play import PlayServer

# The table `zhuoji play` opens when neither the command line nor a house file says otherwise.
PLAY_DEFAULTS: dict[str, Any] = {"rounds": 8, "turn_seconds": 30.0, "bank_seconds": 60.0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_name_argument(parser)
    add_display_arguments(parser)
    add_bell_argument(parser)
    parser.add_argument(
        "--preset",
        choices=["guiyang", "chuan", "anshun"],
        default=None,
        help="rules preset (default guiyang 贵阳捉鸡, or the house file's)",
    )
    add_house_argument(
        parser,
        "the table is created with its preset, options and table settings (the options"
        " given here win)",
    )
    parser.add_argument("--rounds", type=int, default=None, help="rounds in the match (default 8)")
    parser.add_argument(
        "--turn-seconds",
        type=float,
        default=None,
        help="seconds per move, 0 for no clock (default 30)",
    )
    parser.add_argument(
        "--bank-seconds", type=float, default=None, help="reserve seconds per round (default 60)"
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.4,
        help="seconds each bot waits before it moves (default 0.4)",
    )
    parser.add_argument(
        "--bots",
        choices=list(LEVEL_LINES),
        default="normal",
        metavar="LEVEL",
        help="the bots' level (default normal): "
        + "; ".join(f"{k}: {v}" for k, v in LEVEL_LINES.items()),
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="keep the games in this SQLite file (default: play.db in the user data directory)",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="start a new match even if the last one is unfinished (it is closed as abandoned)",
    )


def local_server(db: Path, **options: Any) -> PlayServer:
    """The server `zhuoji play` hosts on `db`, launched: in a forked process where there is
    fork (it runs on the other core while this one imports the client, issue 26), else on a
    thread of this process."""
    import os

    server: PlayServer
    if hasattr(os, "fork"):
        from zhuoji.play_process import ServerProcess

        server = ServerProcess(db, **options)
    else:
        from zhuoji.play import LocalServer

        server = LocalServer(db, **options)
    server.launch()
    return server


def settle_local(
    server: PlayServer, spare: Callable[[], Path], **options: Any
) -> tuple[PlayServer, str, str | None]:
    """The launched `server`'s URL, or, if another window's server holds its database, a server
    on a new database at `spare()`. Returns the server, its URL, and what to tell the player (or
    None). The spare path is asked for only then: its folder is made only when it is used, so a
    client killed before it could tidy up (a closed terminal, SIGKILL) leaves nothing behind."""
    from server.storage.dbfile import DatabaseInUse
    from zhuoji.play import LocalServerError

    db = server.db
    try:
        return server, server.wait_url(), None
    except LocalServerError as err:
        if not isinstance(err.cause, DatabaseInUse):
            raise
        holder = err.cause.holder
    own = spare()
    server = local_server(own, **options)
    url = server.wait_url()
    other = holder.get("url")
    join = f"; to join its table instead: zhuoji join {other}" if other else ""
    note = (
        f"a match is already open in another window on {db} (pid {holder.get('pid', '?')})."
        f" This window plays on its own database, {own}{join}"
    )
    return server, url, note


def choose_match(db: Path, seats: SeatStore, *, new: bool, lang: str = "en") -> SavedSeat | None:
    """The seat of the unfinished match to resume (None: a new match), asked in the terminal;
    every other match left playing on `db` is closed as abandoned."""
    import sys

    from server.storage.dbfile import DatabaseRefused
    from zhuoji.play_resume import ask_resume, close_unfinished, find_unfinished

    found = find_unfinished(db, seats)
    resume: SavedSeat | None = None
    if found is not None and not new:
        if ask_resume(found, db, interactive=sys.stdin.isatty(), lang=lang):
            resume = found.seat
    try:
        close_unfinished(db, None if resume is None else resume.table, seats)
    except DatabaseRefused:
        pass  # another window's server holds it (this one plays elsewhere), or it is not ours
    return resume


def table_request(args: argparse.Namespace) -> dict[str, Any] | str:
    """The `create_table` fields `zhuoji play` asks for: the command line's, else the house
    file's, else `PLAY_DEFAULTS`; or why not (a broken house file is reported on stderr)."""
    fields: dict[str, Any] = {"preset": args.preset or "guiyang", "options": {}}
    fields.update(PLAY_DEFAULTS)
    if args.house is not None:
        house = read_house(args.house, "play")
        if house is None:
            return ""
        if args.preset is not None and args.preset != house.preset:
            return (
                f"--preset {args.preset} and the house file's preset {house.preset} differ"
                " (the house's options are changes of its own preset)"
            )
        fields.update(house.table)
        fields["preset"], fields["options"] = house.preset, dict(house.overrides)
    for name in ("rounds", "turn_seconds", "bank_seconds"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    return fields


def run(args: argparse.Namespace) -> int:
    from zhuoji.cli import gc_paused

    with gc_paused() as started:  # until the app runs: imports, the server's fork (issue 26)
        return _run(args, started)


def _run(args: argparse.Namespace, started: Callable[[], None]) -> int:
    import contextlib
    import logging
    import sys
    import tempfile

    from pydantic import ValidationError

    from client_tui.seats import SeatStore
    from protocol.messages import CreateTable
    from zhuoji.play import LocalServerError
    from zhuoji.play_resume import PLAY_TABLE, close_unfinished, default_play_db, play_key

    request = table_request(args)
    if isinstance(request, str):
        if request:
            print(f"zhuoji play: {request}", file=sys.stderr)
        return 2
    try:
        # The one player reads the sheet as long as they like (next_round_seconds 0).
        create = CreateTable(
            **{"name": PLAY_TABLE, "claim_min_ms": 300, "next_round_seconds": 0, **request}
        )
    except ValidationError as err:
        e = err.errors()[0]
        print(f"zhuoji play: {'.'.join(map(str, e['loc']))}: {e['msg']}", file=sys.stderr)
        return 2

    # The server's log would scribble over the interface.
    logging.getLogger("zhuoji").setLevel(logging.CRITICAL)
    shown = display(args, "play")
    name = shown.name
    db: Path = args.db or default_play_db()
    store = SeatStore.default()
    resume = choose_match(db, store, new=args.new, lang=shown.lang)
    seats: SeatStore | None = store
    options: dict[str, Any] = {"bot_delay": args.bot_delay, "disconnect_grace": 3600.0}
    with contextlib.ExitStack() as tidy:

        def spare() -> Path:
            """A database of this window's own (another window holds `db`), removed at exit."""
            return (
                Path(tidy.enter_context(tempfile.TemporaryDirectory(prefix="zhuoji-"))) / "own.db"
            )

        # The server starts (its imports, its database) before this process imports the
        # Textual app, on the other core when it can (issue 26).
        launched = local_server(db, **options)
        try:
            from client_tui.app import ZhuojiApp
            from client_tui.screens.replay import export_to

            server, url, note = settle_local(launched, spare, **options)
        except LocalServerError as err:
            launched.stop()
            print(f"zhuoji play: {err}")
            return 1
        except BaseException:
            launched.stop()
            raise
        if note is not None:
            print(f"zhuoji play: {note}", flush=True)
            seats = resume = None  # a temporary database: nothing to keep
        app: ZhuojiApp | None = None
        try:
            app = ZhuojiApp(
                url,
                name=name,
                lang=shown.lang,
                ascii=shown.ascii,
                mode="play",
                create=create,
                bell=shown.bell,
                reveal_seconds=REVEAL_SECONDS,
                seats=seats,
                seat_key=play_key(db),
                resume=resume,
                player_key=player_key_or_exit(),
                bot_level=args.bots,
                # This machine hosts the server: the replay (`r` then `v`) reads the rounds whole
                # from its database, so every viewpoint and the export work (issue 23).
                load_rounds=lambda table: rounds_of(server.db, table),
                exporter=export_to(Path(".")),
            )
            started()  # collection back on, what the start made frozen (`gc_paused`)
            return app.run() or 0
        finally:
            server.stop()
            if app is not None and app.abandon and seats is not None:
                close_unfinished(db, None, seats)  # ended on purpose: not offered again
            if note is not None:
                print(f"zhuoji play: {note}")


def rounds_of(db: Path, table: str) -> list[Any]:
    """The stored rounds of `table` for the replay browser (`zhuoji.replay_db.tapes`), imported
    when the player first opens one, not at start."""
    from zhuoji import replay_db

    return replay_db.tapes(db, table)
