"""No SQL in the server outside `server/storage/`: the callers keep their logic, the storage
keeps the statements (issue 21). The import-linter contract holds that only `server.storage`
imports `sqlite3`; this test reads every other server module's string constants for a
statement, which an import contract cannot see (a statement built there and run elsewhere)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server"

# The shapes of a statement (as this code base writes SQL: keywords in capitals).
STATEMENT = re.compile(
    r"\bSELECT\b.+\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b|\b(CREATE|ALTER|DROP)\s+(TABLE|INDEX)\b|\bPRAGMA\s+\w+\s*[=(]"
    r"|\bBEGIN(\s+IMMEDIATE)?\b\s*$|\bVACUUM\b\s*$|\bCOMMIT\b\s*$|\bROLLBACK\b\s*$",
    re.S,
)


def _outside_storage() -> list[Path]:
    return sorted(p for p in SERVER.rglob("*.py") if "storage" not in p.relative_to(SERVER).parts)


def _sql_in(path: Path) -> list[str]:
    """The string constants of a module (docstrings included) that read as a statement, and its
    imports of sqlite3."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if STATEMENT.search(node.value):
                found.append(f"line {node.lineno}: {node.value[:60]!r}")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {a.name}" for a in node.names if a.name == "sqlite3"
            ]
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            found.append(f"line {node.lineno}: from sqlite3 import …")
    return found


def test_the_scan_sees_sql_and_sqlite3(tmp_path: Path) -> None:
    """The scan itself: it finds each kind of statement and import, and not a mention in prose."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import sqlite3\n"
        "from sqlite3 import Row\n"
        "A = 'SELECT id FROM tables WHERE x=?'\n"
        "B = ('INSERT OR IGNORE INTO players (id)' ' VALUES (?)')\n"
        "C = f'UPDATE tables SET state={1}'\n"
        "D = 'PRAGMA quick_check(1)'\n"
        "E = 'DELETE FROM records WHERE table_id=?'\n"
        "F = 'BEGIN IMMEDIATE'\n"
    )
    assert len(_sql_in(bad)) == 8
    prose = tmp_path / "prose.py"
    prose.write_text(
        '"""Checked by a periodic integrity check (PRAGMA quick_check); select a seat from the'
        ' lobby, then update the table."""\n'
    )
    assert _sql_in(prose) == []


@pytest.mark.parametrize("path", _outside_storage(), ids=lambda p: str(p.relative_to(SERVER)))
def test_no_sql_outside_storage(path: Path) -> None:
    """A module of `server/` outside `server/storage/` holds no SQL and does not import sqlite3
    (the table's core included: it says what happened with records)."""
    assert _sql_in(path) == [], f"SQL belongs in server/storage/: {_sql_in(path)}"
