"""Make a database with the code of an earlier commit, and write it as SQL text (`iterdump`).

    git worktree add --detach /tmp/old 5bf0ad9
    python tests/server/schema_dumps/make_dump.py /tmp/old v1-seat0.sql

The old code's own server (`zhuoji serve`, or `server.cli` before the `zhuoji` package) is
started on a new file, the old code's own `loadtest` plays four tables of four bot clients on
it, and once a few rounds have ended the server is killed (SIGKILL): a database the old code
wrote, with matches left unfinished mid-round, as a host upgrading would have it. The dump is
text so that the repository holds no binary database; `test_schema_upgrade.py` loads it into a
real SQLite file. Run with any Python that has the old code's dependencies (pydantic,
websockets); nothing of this checkout is imported.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def entry(old: Path) -> list[str]:
    """The old code's command line entry: `python -m zhuoji`, or `server.cli` before it."""
    if (old / "zhuoji" / "__main__.py").exists():
        return [sys.executable, "-m", "zhuoji"]
    return [sys.executable, "-c", "import sys; from server.cli import main; sys.exit(main())"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ended_rounds(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(
                conn.execute("SELECT COUNT(*) FROM rounds WHERE result IS NOT NULL").fetchone()[0]
            )
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def main(old: Path, out: Path, *, want: int = 6, limit: float = 300.0) -> None:
    env = {**os.environ, "PYTHONPATH": str(old)}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "old.db"
        port = free_port()
        cmd = entry(old)
        server = subprocess.Popen(
            [
                *cmd,
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--db",
                str(db),
                "--round-pause",
                "0",
            ],
            cwd=tmp,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert server.stdout is not None
        print(server.stdout.readline().strip(), file=sys.stderr)
        load = subprocess.Popen(
            [
                *cmd,
                "loadtest",
                "--url",
                f"ws://127.0.0.1:{port}",
                "--tables",
                "4",
                "--rounds",
                "8",
                "--think-ms",
                "20",
                "--claim-min-ms",
                "0",
            ],
            cwd=tmp,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        began = time.monotonic()
        while ended_rounds(db) < want and time.monotonic() - began < limit:
            time.sleep(0.2)
        server.send_signal(signal.SIGKILL)  # mid-round: matches left unfinished
        server.wait()
        load.kill()
        load.wait()
        conn = sqlite3.connect(str(db))
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            lines = list(conn.iterdump())
        finally:
            conn.close()
    head = subprocess.run(
        ["git", "-C", str(old), "log", "-1", "--format=%H %s"], capture_output=True, text=True
    ).stdout.strip()
    with out.open("w", encoding="utf-8") as f:
        f.write(f"-- made by {head[:120]}\n")
        f.write(f"PRAGMA user_version={version};\nPRAGMA application_id={app_id};\n")
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
