"""The acceptance test of a seat that survives the process, as a user would meet it: a real
`python -m zhuoji serve`, two real `python -m zhuoji join` processes in tmux panes (each with its
own state directory, as on two laptops), a match under way; one client's process is killed
mid-round and started again: it is back at the same seat with the same hand, and nothing is
refused. The screens are read with `tmux capture-pane`, waiting on what they show with a deadline.

Skipped only when tmux is not installed (`apt-get install tmux`)."""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.deadline import poll, read_until
from tests.support import free_port

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

ROOT = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 120, 40


class Tmux:
    """A tmux server of its own (its own socket), one window per client."""

    def __init__(self, name: str) -> None:
        self.socket = name
        self.session = "zhuoji"

    def run(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    def start(self) -> None:
        self.run("new-session", "-d", "-s", self.session, "-x", str(WIDTH), "-y", str(HEIGHT))
        self.run("set-option", "-g", "remain-on-exit", "on")  # a killed client's pane stays

    def window(self, name: str, command: str) -> str:
        self.run("new-window", "-d", "-t", self.session, "-n", name, command)
        return f"{self.session}:{name}"

    def screen(self, target: str) -> str:
        return self.run("capture-pane", "-p", "-t", target)

    def keys(self, target: str, *keys: str) -> None:
        self.run("send-keys", "-t", target, *keys)

    def cursor(self, target: str) -> tuple[int, int]:
        """Where the terminal's cursor is in the pane (Textual puts it in the focused input)."""
        x, y = self.run("display-message", "-p", "-t", target, "#{cursor_x} #{cursor_y}").split()
        return int(x), int(y)

    def pane(self, target: str, what: str) -> str:
        return self.run("display-message", "-p", "-t", target, f"#{{{what}}}").strip()

    def kill(self) -> None:
        assert TMUX is not None
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=20)

    def wait(
        self, target: str, cond: Callable[[str], bool], what: str, timeout: float = 30.0
    ) -> str:
        """Poll the pane until `cond(screen)` holds; fail with the screen after `timeout`."""
        texts: list[str] = []

        def shown() -> bool:
            texts[:] = [self.screen(target)]
            return cond(texts[0])

        poll(shown, f"{what} in {target}", timeout, lambda: texts[0] if texts else "")
        return texts[0]

    def settled(
        self, target: str, cond: Callable[[str], bool], what: str, timeout: float = 30.0
    ) -> str:
        """As `wait`, and the screen the same on two captures in a row: not a redraw caught
        half written."""
        last: list[str] = [""]

        def steady(screen: str) -> bool:
            same, last[0] = screen == last[0], screen
            return same and cond(screen)

        return self.wait(target, steady, what, timeout)

    def wait_dead(self, target: str, what: str, timeout: float = 20.0) -> None:
        """Until the pane's process has exited (tmux tells no event for it: it is polled)."""
        poll(lambda: self.pane(target, "pane_dead") == "1", what, timeout)


# How long the server waits for a dropped player before it moves for them (`disconnect_grace`,
# 20 s by default): longer than any wait of these tests, so that a client restarted slowly on a
# loaded machine finds its seat as it left it.
GRACE = 600


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`python -m zhuoji serve` on a free loopback port (a dropped seat waited for `GRACE`
    seconds); its URL once it listens."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    config = tmp_path / "serve.toml"
    config.write_text(f"[limits]\ndisconnect_grace = {GRACE}\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zhuoji",
            "serve",
            "--config",
            str(config),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "z.db"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        bufsize=0,
    )
    try:
        # Unbuffered: a buffered readline could swallow the serving line with the log line
        # before it, and select would then wait on an empty pipe.
        read_until(proc, b"zhuoji serving", 30)
        yield f"ws://127.0.0.1:{port}"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


SOCKETS = itertools.count(1)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    t = Tmux(f"zhuoji-test-{os.getpid()}-{next(SOCKETS)}")  # a server of its own per test
    t.start()
    try:
        yield t
    finally:
        t.kill()


def join_command(url: str, name: str, state: Path) -> str:
    env = {
        "PYTHONPATH": str(ROOT),
        "ZHUOJI_STATE_DIR": str(state),
        "ZHUOJI_CONFIG_DIR": str(state / "config"),  # each player's own key
        "TERM": "xterm-256color",
    }
    args = [sys.executable, "-m", "zhuoji", "join", url, "--name", name, "--lang", "en", "--ascii"]
    assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"cd {shlex.quote(str(ROOT))} && exec env {assigns} {shlex.join(args)}"


HAND_KEYS = re.compile(r"^\s*1\s+2\s+3\s+4\s+5\s+6\s+7\s+8\s+9\s+0\s+-\s+=\s+\[", re.M)
# A seat's first line: its wind, where it sits, its name (the table layout puts two on a line).
SEAT_LINE = re.compile(r"(?:^|\s)[ESWN] (right|across|left) (\S+)", re.M)


def hand_of(screen: str) -> list[str]:
    """The hand as the screen shows it: the tile lines under the row of keys."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if HAND_KEYS.match(line):
            return [ln.rstrip() for ln in lines[i + 1 : i + 3]]
    raise AssertionError(f"no hand on screen:\n{screen}")


def seats_of(screen: str) -> dict[str, str]:
    """Who sits where, seen from this seat: right / across / left → name."""
    return dict(SEAT_LINE.findall(screen))


YOUR_TURN, PASS = "Your turn: discard", "过 Pass"
# The clock rows of the create form: a label (wrapped onto a second line) and its field ("" if
# it is empty: the dialog's border █ follows).
CLOCK_LABEL = {"turn": "Seconds per move (0 =", "bank": "Bank seconds per round"}
CLOCK_FIELD = {k: re.compile(re.escape(label) + r" *([^\s█]*)") for k, label in CLOCK_LABEL.items()}


def my_prompt(screen: str) -> bool:
    return YOUR_TURN in screen or PASS in screen


def clock_fields(screen: str) -> dict[str, str]:
    """The create form's move clock as its fields show it: the seconds per move and the bank."""
    found = {k: rx.search(screen) for k, rx in CLOCK_FIELD.items()}
    return {k: m.group(1) for k, m in found.items() if m is not None}


def focus_field(tmux: Tmux, target: str, field: str, key: str, timeout: float = 120.0) -> None:
    """Press `key` (Tab, or BTab: Shift+Tab) until the clock field `field` has the focus: the
    terminal's cursor, which Textual puts in the focused input, is in it, on two captures in a
    row. A key is pressed again once the last one has moved the cursor, or after a second and a
    half without (a stop that is no input, or a loaded machine): counted presses in a burst
    did not land where the count said, since a key's action (a focus move) may come after the
    keys typed behind it."""
    label = CLOCK_LABEL[field]
    seen: list[tuple[bool, int, int]] = []
    pressed = [-math.inf]

    def there() -> bool:
        x, y = tmux.cursor(target)
        lines = tmux.screen(target).splitlines()
        line = lines[y] if 0 <= y < len(lines) else ""
        here = label in line and x > line.index(label) + len(label)
        moved = not seen or seen[-1][1:] != (x, y)
        seen.append((here, x, y))
        if here:
            return not moved
        if moved or time.monotonic() > pressed[0] + 1.5:
            tmux.keys(target, key)
            pressed[0] = time.monotonic()
        return False

    poll(there, f"the focus on {field}", timeout, lambda: f"{seen[-5:]}\n{tmux.screen(target)}")


def set_field(tmux: Tmux, target: str, field: str, key: str, value: str) -> None:
    """Type `value` into the form's clock field `field` (reached with `key`) over what it held:
    emptied first, and the value typed only once the screen shows it empty (the delete keys are
    actions, which may come after a key typed behind them)."""
    focus_field(tmux, target, field, key)
    tmux.keys(target, "C-k")  # delete right of the cursor
    tmux.keys(target, "C-u")  # and left of it
    tmux.wait(target, lambda s: clock_fields(s).get(field) == "", f"the {field} field empty")
    tmux.keys(target, value)
    tmux.wait(target, lambda s: clock_fields(s).get(field) == value, f"{value!r} as {field}")


def create_without_clock(tmux: Tmux, target: str) -> None:
    """Create a table from the form with the move clock off (no bank, 0 seconds a move), as a
    player would: `c`, Shift+Tab round from the name to the bank (past the buttons and the
    fields below it), type over it, Shift+Tab to the seconds a move, type over it, Enter; the
    fields are read back off the screen before Enter."""
    tmux.keys(target, "c")
    # The clock rows are built after the form's first paint; the line of changes is shown once
    # they are there.
    tmux.wait(target, lambda s: "Changes: as the preset" in s, "the create form, whole")
    set_field(tmux, target, "bank", "BTab", "0")
    set_field(tmux, target, "turn", "BTab", "0")
    assert clock_fields(tmux.screen(target)) == {"turn": "0", "bank": "0"}
    tmux.keys(target, "Enter")  # in a field of the form: it creates the table


def turn_of(tmux: Tmux, target: str) -> str:
    """Wait until the seat is asked its turn, passing every claim asked of it meanwhile (with
    no move clock nothing moves for it); the screen then, settled. A pass is pressed again
    until the screen moves on (a key may be lost; on a turn, Space passes nothing)."""
    while True:
        screen = tmux.settled(target, my_prompt, "a move asked of the seat", timeout=60)
        if YOUR_TURN in screen:
            return screen

        def passed(was: str = screen) -> bool:
            if tmux.screen(target) != was:
                return True
            tmux.keys(target, "Space")  # 过: pass the claim
            return False

        poll(passed, "the claim passed", 30, lambda: tmux.screen(target), every=0.5)


def test_a_killed_client_comes_back_to_its_seat_and_hand(
    tmux: Tmux, server: str, tmp_path: Path
) -> None:
    a = tmux.window("alice", join_command(server, "alice", tmp_path / "alice"))
    # Connected, not only drawn: `c` before that is refused ("Not connected: try again").
    tmux.wait(a, lambda s: "No tables yet" in s and "● connected" in s, "alice's lobby")
    # No move clock: the server never moves for a seat that is there (nor, for `GRACE`, for one
    # that dropped), so bob's hand is his own doing while his client is down and back.
    create_without_clock(tmux, a)
    tmux.wait(a, lambda s: "waiting to start" in s, "alice's room")

    b = tmux.window("bob", join_command(server, "bob", tmp_path / "bob"))
    tmux.wait(b, lambda s: "alice" in s and "1/4" in s, "the table in bob's lobby")
    tmux.keys(b, "j")
    tmux.wait(b, lambda s: "any free seat" in s, "the seat dialog")
    tmux.keys(b, "Enter")
    tmux.wait(b, lambda s: "waiting to start" in s, "bob's room")

    tmux.wait(a, lambda s: "bob" in s, "bob in alice's room")
    tmux.keys(a, "a")
    tmux.wait(a, lambda s: s.count("(bot)") == 1, "one bot")
    tmux.keys(a, "a")
    tmux.wait(a, lambda s: s.count("(bot)") == 2, "two bots")
    tmux.keys(a, "Enter")  # start
    tmux.wait(a, lambda s: "Round 1/8" in s, "the match in alice's pane")
    tmux.keys(a, "a")  # 托管: the server plays alice; the round goes on to bob
    tmux.wait(a, lambda s: "the server plays for you" in s, "alice in 托管")

    # Killed on his turn, not in a claim window: a window does not wait for a seat that
    # dropped (it would tell that the seat could claim), so the server would pass for him and
    # the round go on to his draw.
    before = turn_of(tmux, b)
    hand, seats = hand_of(before), seats_of(before)
    assert seats.get("left") == "alice" and len(seats) == 3, before

    pid = int(tmux.pane(b, "pane_pid"))
    os.kill(pid, signal.SIGKILL)
    tmux.wait_dead(b, "the killed client's pane to close")
    tmux.run("respawn-pane", "-t", b)  # the same command: `zhuoji join` started again

    # The screen as it settles: a capture can catch a redraw half written (the hand line new,
    # the drawn tile not yet), so the wait is for the hand as it was, not the first frame.
    after = tmux.wait(
        b,
        lambda s: YOUR_TURN in s and HAND_KEYS.search(s) is not None and hand_of(s) == hand,
        "bob back at his seat with the move and the hand he had",
        timeout=60,
    )
    assert seats_of(after) == seats
    assert "bob (you)" in after
    for refusal in ("watch it instead", "already", "gone", "refused"):
        assert refusal not in after, after

    # Leaving is deliberate: `l` (and `q`) first say what happens to the seat; n stays.
    for key, title in (("l", "Leave the match?"), ("q", "Quit during the match?")):
        tmux.keys(b, key)
        asked = tmux.wait(b, lambda s, t=title: t in s, f"the question for {key}")  # type: ignore[misc]
        assert "the bot plays" in asked.replace("\n", " ") or "托管" in asked, asked
        tmux.keys(b, "n")
        back = tmux.wait(b, lambda s, t=title: t not in s, f"{key} answered no")  # type: ignore[misc]
        assert hand_of(back) == hand and tmux.pane(b, "pane_dead") == "0"


def play_command(db: Path, state: Path, *extra: str, tmp: Path | None = None) -> str:
    env = {
        "PYTHONPATH": str(ROOT),
        "ZHUOJI_STATE_DIR": str(state),
        "ZHUOJI_CONFIG_DIR": str(state / "config"),  # each player's own key
        "TERM": "xterm-256color",
    }
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    args = [sys.executable, "-m", "zhuoji", "play", "--db", str(db), "--name", "me"]
    args += ["--lang", "en", "--ascii", "--bot-delay", "0", *extra]
    assigns = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"cd {shlex.quote(str(ROOT))} && exec env {assigns} {shlex.join(args)}"


def kill_pane(tmux: Tmux, target: str) -> None:
    os.kill(int(tmux.pane(target, "pane_pid")), signal.SIGKILL)
    tmux.wait_dead(target, "the killed process's pane to close")


def states(db: Path) -> list[str]:
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return [r[0] for r in conn.execute("SELECT state FROM tables ORDER BY CAST(id AS INT)")]


def test_zhuoji_play_offers_to_resume_its_match_and_new_or_l_closes_it(
    tmux: Tmux, tmp_path: Path
) -> None:
    db, state = tmp_path / "data" / "play.db", tmp_path / "state"
    p = tmux.window("play", play_command(db, state))
    before = tmux.wait(p, my_prompt, "a move asked of me", timeout=60)
    hand = hand_of(before)
    kill_pane(tmux, p)  # a crash, or a closed terminal
    assert states(db) == ["playing"]

    tmux.run("respawn-pane", "-t", p)
    asked = tmux.wait(p, lambda s: "Resume it? [Y/n]" in s, "the offer to resume")
    flat = "".join(asked.splitlines())  # the long path wraps
    assert "your unfinished match" in flat and "rounds played, you +0" in flat, flat
    tmux.keys(p, "Enter")
    after = tmux.wait(p, lambda s: my_prompt(s) and HAND_KEYS.search(s) is not None, "resumed")
    assert hand_of(after) == hand
    assert states(db) == ["playing"], "the same match, not a new one"

    # Quitting on purpose keeps it too (the dialog says so); `--new` starts afresh and the old
    # match is closed as abandoned, never left "playing".
    tmux.keys(p, "q")
    quit_box = tmux.wait(p, lambda s: "Quit zhuoji play?" in s, "the quit question")
    assert "The match is kept" in quit_box
    tmux.keys(p, "y")
    tmux.wait_dead(p, "zhuoji play to quit")
    assert states(db) == ["playing"]
    tmux.run("respawn-pane", "-k", "-t", p, play_command(db, state, "--new"))
    tmux.wait(p, my_prompt, "a move in the new match", timeout=60)
    assert "Resume it?" not in tmux.screen(p)
    assert states(db) == ["abandoned", "playing"]
    # `l` ends the match on purpose: it is closed as abandoned and not offered again.
    tmux.keys(p, "l")
    end_box = tmux.wait(p, lambda s: "End this match?" in s, "the end question")
    assert "recorded as abandoned" in "".join(end_box.splitlines())
    tmux.keys(p, "y")
    tmux.wait_dead(p, "zhuoji play to end")
    assert states(db) == ["abandoned", "abandoned"]
    tmux.run("respawn-pane", "-k", "-t", p, play_command(db, state))
    tmux.wait(p, my_prompt, "a move in a new match", timeout=60)
    assert "Resume it?" not in tmux.screen(p) and states(db)[-1] == "playing"


def _alive(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_zhuoji_play_s_server_is_a_process_of_its_own_that_dies_with_the_client(
    tmux: Tmux, tmp_path: Path
) -> None:
    """Issue 26: the server runs beside the client, and a killed client (a crash, a closed
    terminal) leaves no server behind holding the database: the next `zhuoji play` gets it, and
    nothing behind in the temporary folder either."""
    import json

    db, state, tmp = tmp_path / "data" / "play.db", tmp_path / "state", tmp_path / "tmp"
    tmp.mkdir()
    p = tmux.window("play", play_command(db, state, tmp=tmp))
    tmux.wait(p, lambda s: "Round 1/" in s, "the table", timeout=60)
    client = int(tmux.pane(p, "pane_pid"))
    server = int(json.loads((tmp_path / "data" / "play.db.lock").read_text())["pid"])
    assert server != client, "the server holds the database from a process of its own"
    ppid = int(Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()[1])
    assert ppid == client and _alive(server)

    kill_pane(tmux, p)  # SIGKILL: the client can do nothing about it
    poll(lambda: not _alive(server), "the server to end with its client", timeout=20)
    assert list(tmp.iterdir()) == [], "a killed client leaves no folder in the temporary folder"
    tmux.run("respawn-pane", "-t", p)
    tmux.wait(p, lambda s: "Resume it? [Y/n]" in s, "the offer to resume")
    tmux.keys(p, "Enter")
    tmux.wait(p, lambda s: "Round 1/" in s, "the resumed table", timeout=60)
    assert "already open in another window" not in tmux.screen(p)
    assert states(db) == ["playing"], "the same database, the same match"
