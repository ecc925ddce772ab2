"""The hand tables' cache (`rules.hand._tables`): the first start builds the tables and writes
them beside the bytecode, the next reads them back unchanged; a cache from other source, a
damaged one or a folder that cannot be written only cost the build."""

from __future__ import annotations

from pathlib import Path

import pytest

import rules.hand as hand

BUILT = hand._build_tables()


@pytest.fixture
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache follows Python's bytecode switch (PYTHONDONTWRITEBYTECODE); here it is on."""
    monkeypatch.setattr(hand.sys, "dont_write_bytecode", False)


def no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> hand.Tables:
        raise AssertionError("the tables were built, not read from the cache")

    monkeypatch.setattr(hand, "_build_tables", refuse)


@pytest.mark.usefixtures("writes_bytecode")
def test_the_second_start_reads_what_the_first_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert hand._tables(str(tmp_path / "cache")) == BUILT
    [cached] = (tmp_path / "cache").iterdir()
    assert cached.name.startswith("hand_tables.") and cached.name.endswith(".marshal")
    no_build(monkeypatch)
    assert hand._tables(str(tmp_path / "cache")) == BUILT


@pytest.mark.usefixtures("writes_bytecode")
@pytest.mark.parametrize("damage", ["other source", "truncated", "not marshal", "wrong shape"])
def test_a_cache_that_is_not_this_source_s_is_rebuilt(tmp_path: Path, damage: str) -> None:
    hand._tables(str(tmp_path))
    [cached] = tmp_path.iterdir()
    data = cached.read_bytes()
    if damage == "other source":
        stamp, *tables = hand.marshal.loads(data)
        data = hand.marshal.dumps((stamp ^ 1, *tables))
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "not marshal":
        data = b"\xff" * 64
    else:
        data = hand.marshal.dumps((0, 1, 2))
    cached.write_bytes(data)
    assert hand._tables(str(tmp_path)) == BUILT
    assert hand.marshal.loads(cached.read_bytes())[1:] == BUILT  # written again, whole


@pytest.mark.usefixtures("writes_bytecode")
def test_a_folder_that_cannot_be_written_costs_only_the_build(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert hand._tables(str(blocked / "cache")) == BUILT


def test_without_bytecode_writing_nothing_is_written(tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hand.sys, "dont_write_bytecode", True)
        assert hand._tables(str(tmp_path)) == BUILT
    assert not list(tmp_path.iterdir())


@pytest.mark.usefixtures("writes_bytecode")
def test_a_write_that_fails_leaves_no_part_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk (the write fails half-way) costs the build and leaves nothing behind."""
    real_replace = hand.os.replace

    def disk_full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(hand.os, "replace", disk_full)
    assert hand._tables(str(tmp_path)) == BUILT
    assert not list(tmp_path.iterdir())
    monkeypatch.setattr(hand.os, "replace", real_replace)


def test_the_cache_follows_the_bytecode_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `sys.pycache_prefix` set (PYTHONPYCACHEPREFIX), the cache goes where the bytecode
    goes, not into a `__pycache__` beside the source (which may be read-only)."""
    monkeypatch.setattr(hand.sys, "pycache_prefix", str(tmp_path))
    folder = Path(hand._cache_folder())
    assert folder.is_relative_to(tmp_path)
    assert "__pycache__" not in folder.parts
    monkeypatch.setattr(hand.sys, "pycache_prefix", None)
    assert Path(hand._cache_folder()) == Path(hand.__file__).parent / "__pycache__"
