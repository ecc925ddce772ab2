"""The `zhuoji` command: one entry point, a subcommand per job.

Each subcommand lives in its own module with `add_arguments(parser)` and `run(args) -> int`;
those modules keep heavy imports (Textual, websockets) inside `run`, so `zhuoji replay` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

# name → (module, help). Each module has `add_arguments(parser)` and `run(args) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("server.cmd_replay", "replay a deal script or a stored round and print it"),
    "bench": ("server.cmd_bench", "benchmark hand analysis and bot-played rounds"),
    "serve": ("server.cmd_serve", "run the zhuoji server"),
    "schema": ("server.cmd_schema", "write the protocol's JSON Schema"),
    "loadtest": ("server.cmd_loadtest", "play many bot tables against a server and report"),
    "verify": ("server.cmd_verify", "check a stored round's fair-deal commitment"),
    "play": ("client_tui.cmd_play", "start a local server with three bots and play"),
    "join": ("client_tui.cmd_join", "join a server's lobby"),
    "watch": ("client_tui.cmd_watch", "watch a table on a server"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zhuoji", description="Guizhou 捉鸡 mahjong")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name != module_name:
                raise
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "_run", None)
    if run is None:
        parser.print_help()
        return 2
    try:
        return run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
