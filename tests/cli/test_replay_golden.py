"""`zhuoji replay --json` is a public interface: its output for every deal script and every stored
round of the schema dumps is byte for byte what main printed before protocol version 3 moved the
wire to identifiers only (`fixtures/replay_golden.json`, made by `replay_golden.py` on main
5014ce9). The replay's JSON keeps its own vocabulary (`winners` and the `won` events by their
Chinese names, as version 2 sent them) whatever the wire says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.replay_golden import FULL, GOLDEN, digest, outputs

TESTS = Path(__file__).resolve().parents[1]


def golden() -> dict[str, object]:
    data: dict[str, object] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def test_every_output_is_byte_identical_to_main_before_version_3() -> None:
    want = golden()["sha256"]
    assert isinstance(want, dict)
    got = outputs()
    assert sorted(got) == sorted(want), "the same scripts and stored rounds replay"
    changed = [name for name, text in got.items() if digest(text) != want[name]]
    assert changed == []


def test_the_command_prints_the_golden_text() -> None:
    """The real `zhuoji replay --json` process, on a script kept in full: the same bytes."""
    full = golden()["full"]
    assert isinstance(full, dict)
    for name in FULL:
        done = subprocess.run(
            [sys.executable, "-m", "zhuoji.cli", "replay", str(_script(name)), "--json"],
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode("utf-8") == full[name]


def test_the_replay_keeps_chinese_names_where_version_2_had_them() -> None:
    """What the golden output holds, said plainly (a reader of `--json` relies on it)."""
    full = golden()["full"]
    assert isinstance(full, dict)
    out = json.loads(str(full["anshun_15_qianggang_tianting_share.json"]))
    assert out["winners"][0] == {"seat": 3, "pattern": "平胡", "bonuses": ["抢杠", "自摸"]}
    assert out["wins"][0]["bonuses"] == ["qianggang", "zimo"]
    won = next(e for e in out["events"] if e["type"] == "won")
    assert won["pattern"] == out["winners"][0]["pattern"] and won["bonuses"][0] == "抢杠"


def _script(name: str) -> Path:
    for folder in ("scripts", "scenarios"):
        if (TESTS / folder / name).exists():
            return TESTS / folder / name
    raise FileNotFoundError(name)
