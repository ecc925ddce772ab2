"""`zhuoji schema [--out PATH] [--check]`: write (or check) the protocol's JSON Schema."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to write it (default: protocol/schema.json in the package; '-' for stdout)",
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs from the models"
    )


def run(args: argparse.Namespace) -> int:
    from protocol.schema import SCHEMA_PATH, schema_text

    text = schema_text()
    if str(args.out) == "-":
        sys.stdout.write(text)
        return 0
    path: Path = args.out or SCHEMA_PATH
    if args.check:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            print(f"{path} is out of date: run `zhuoji schema`", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0
