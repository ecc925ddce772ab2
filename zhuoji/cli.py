"""The `zhuoji` command: one entry point, a subcommand per job (`zhuoji/cmd_<name>.py`).

Each subcommand lives in its own module with `add_arguments(parser)` and `run(args) -> int`;
those modules keep heavy imports (Textual, websockets) inside `run`, so `zhuoji replay` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from zhuoji.version import version

# name → (module, help). Each module has `add_arguments(parser)` and `run(args) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("zhuoji.cmd_replay", "replay a deal script or a stored round and print it"),
    "bench": ("zhuoji.cmd_bench", "benchmark hand analysis and bot-played rounds"),
    "serve": ("zhuoji.cmd_serve", "run the zhuoji server"),
    "admin": ("zhuoji.cmd_admin", "manage a server: tables, close, kick, backup, prune, stats"),
    "schema": ("zhuoji.cmd_schema", "write the protocol's JSON Schema"),
    "loadtest": ("zhuoji.cmd_loadtest", "play many bot tables against a server and report"),
    "verify": ("zhuoji.cmd_verify", "check a stored round's fair-deal commitment"),
    "play": ("zhuoji.cmd_play", "start a local server with three bots and play"),
    "join": ("zhuoji.cmd_join", "join a server's lobby"),
    "watch": ("zhuoji.cmd_watch", "watch a table on a server"),
    "arena": ("zhuoji.cmd_arena", "play bot policies against each other on duplicate deals"),
    "stats": ("zhuoji.cmd_stats", "the players' standings and records from a server's database"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zhuoji", description="Guizhou 捉鸡 mahjong")
    parser.add_argument("--version", action="version", version=f"zhuoji {version()}")
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
    except BrokenPipeError:  # `zhuoji replay … | head`: the reader left; not an error of ours
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
