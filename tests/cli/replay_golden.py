"""Write `fixtures/replay_golden.json`: the SHA-256 of `zhuoji replay --json`'s output for every deal script
in tests/scripts and tests/scenarios, and for every finished round stored in the schema dumps
(`--db PATH --table T --round N`), as the code that runs this prints them; and the full text of
a few, so that a failing comparison shows where it differs.

Made once by the code of main at commit 5014ce9 (protocol version 2), before the wire moved to
identifiers only (protocol version 3): `test_replay_golden.py` checks that the public `--json`
output stayed byte for byte what it was.

    python tests/cli/replay_golden.py
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS.parent))

from rules.script import ScriptError, replay_json, run_script  # noqa: E402
from server.storage.reads import load_round_script  # noqa: E402

FULL = ("guiyang_07_diandou.json", "anshun_15_qianggang_tianting_share.json")
"""Scripts kept in full (a 点豆 round; a 抢杠 with 天听 shares)."""


def printed(data: Any) -> str | None:
    """What `zhuoji replay --json` prints for a script (None: it refuses the script)."""
    try:
        r = run_script(data)
    except ScriptError:
        return None
    return json.dumps(replay_json(r), ensure_ascii=False) + "\n"


def scripts() -> dict[str, str]:
    out = {}
    for folder in ("scripts", "scenarios"):
        for path in sorted((TESTS / folder).glob("*.json")):
            text = printed(json.loads(path.read_text(encoding="utf-8")))
            if text is not None:
                out[f"{folder}/{path.name}"] = text
    return out


def stored_rounds() -> dict[str, str]:
    """Every finished round of every schema dump, replayed from the database."""
    out = {}
    for dump in sorted((TESTS / "server" / "schema_dumps").glob("*.sql")):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "z.db"
            conn = sqlite3.connect(db)
            conn.executescript(dump.read_text(encoding="utf-8"))
            conn.close()
            conn = sqlite3.connect(db)
            ended = sorted(
                set(
                    conn.execute(
                        "SELECT table_id, round_no FROM events WHERE type='round_ended'"
                    ).fetchall()
                )
            )
            conn.close()
            for table, round_no in ended:
                text = printed(load_round_script(db, table, round_no))
                if text is not None:
                    out[f"{dump.name}:{table}:{round_no}"] = text
    return out


GOLDEN = Path(__file__).parent / "fixtures" / "replay_golden.json"


def outputs() -> dict[str, str]:
    """Every output the golden file holds a digest of, by name, as this code prints it."""
    return {**scripts(), **stored_rounds()}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def main() -> None:
    texts = outputs()
    golden = {
        "made_by": "main 5014ce9 (protocol version 2)",
        "sha256": {k: digest(v) for k, v in sorted(texts.items())},
        "full": {k: texts[f"scripts/{k}"] for k in FULL if f"scripts/{k}" in texts}
        | {k: texts[f"scenarios/{k}"] for k in FULL if f"scenarios/{k}" in texts},
    }
    GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(texts)} outputs → {GOLDEN}")


if __name__ == "__main__":
    main()
