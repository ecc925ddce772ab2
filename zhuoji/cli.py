"""The `zhuoji` command: one entry point, a subcommand per job (`zhuoji/cmd_<name>.py`).

Each subcommand lives in its own module with `add_arguments(parser)` and `run(args) -> int`;
those modules keep heavy imports (Textual, websockets) inside `run`. Only the module of the
subcommand asked for is imported (`zhuoji --version` and `zhuoji --help` import none of them),
so a command starts as fast as what it uses allows.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

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


class VersionAction(argparse.Action):
    """`--version`: print the version and exit. The version is looked up only when asked for
    (reading the installed metadata costs more than the rest of `zhuoji --help`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        kwargs.setdefault("help", "show the version and exit")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(f"zhuoji {version()}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command's parser. Every subcommand is listed; its own arguments are added (its module
    imported) for `only`, or for every subcommand when `only` is None (for tests and docs)."""
    parser = argparse.ArgumentParser(prog="zhuoji", description="Guizhou 捉鸡 mahjong")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        module = None
        if only is None or name == only:
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as err:
                if err.name != module_name:
                    raise
                continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        if module is not None:
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    return parser


@contextlib.contextmanager
def gc_paused() -> Iterator[Callable[[], None]]:
    """No cyclic garbage collection in the block (issue 26). A start imports a few hundred
    modules, which allocate much and free little: the collector's passes over them cost 15-20 %
    of the imports' CPU and find next to nothing. The function the block is given ends the
    pause for good: it first freezes what the start made (`gc.freeze`: modules, classes, tables,
    kept till the process ends), so that no later pass scans it either, which would give the
    saving back. Without that call, the block's end only turns collection back on. Either way,
    collection that was off before stays off."""
    was = gc.isenabled()
    gc.disable()

    def started() -> None:
        if was:
            gc.freeze()
            gc.enable()

    try:
        yield started
    finally:
        if was:
            gc.enable()


def chosen(argv: Sequence[str]) -> str:
    """The subcommand `argv` names: its first word that is not an option ("" if none). The
    command's own options (`--version`, `--help`) take no value, so the first word is it."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    with gc_paused() as started:
        parser = build_parser(only=chosen(words))
        args = parser.parse_args(words)
        if argv is None:  # the command line itself (a test's call keeps its objects collectable)
            started()
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
