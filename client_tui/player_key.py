"""The player key: who you are to every zhuoji server, whatever name you type.

Made once, on the first run of `zhuoji join`, `play` or `watch`: 32 random bytes
(`secrets.token_urlsafe`), written `zk1_…` in the file `player.key` in the config directory
(`~/.config/zhuoji/player.key` on Linux; `$ZHUOJI_CONFIG_DIR` overrides the directory, as for
`config.toml`), readable by you only (mode 0600). The key itself never leaves the machine: each
`hello` carries a key derived from it for that one server (`for_server`: an HMAC of the server's
host and port), so a server's host, or anyone reading the unencrypted LAN, learns nothing that
lets them be you on another server. A server keeps only the SHA-256 digest of what it was sent and
knows you by a public player id. To play as yourself on another machine,
copy this one file there (README, "Moving to another machine").

A file that holds something else is refused (`PlayerKeyError`, naming the file), never replaced:
replacing it would make you a new player everywhere.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> k = load_or_make(d / "player.key")
>>> k == load_or_make(d / "player.key"), is_key(k), oct((d / "player.key").stat().st_mode & 0o777)
(True, True, '0o600')
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from protocol.keys import for_server, server_identity

__all__ = ["for_server", "server_identity", "load_or_make", "is_key", "key_path"]

FILE_NAME = "player.key"
_KEY = re.compile(r"^zk1_[A-Za-z0-9_-]{43}$")  # protocol.messages.PlayerKey


class PlayerKeyError(Exception):
    """The key file cannot be used; the message names the file and what is wrong."""


def is_key(text: str) -> bool:
    return _KEY.match(text) is not None


def new_key() -> str:
    return "zk1_" + secrets.token_urlsafe(32)


def key_path() -> Path:
    from client_tui.config import config_dir

    return config_dir() / FILE_NAME


def load_or_make(path: Path | None = None) -> str:
    """The player key in `path` (default `key_path()`), made there (0600) if there is none."""
    path = key_path() if path is None else path
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return _make(path)
    except (OSError, UnicodeDecodeError) as err:
        raise PlayerKeyError(f"{path}: cannot be read as a player key ({err})") from None
    if not is_key(text):
        raise PlayerKeyError(
            f"{path} does not hold a zhuoji player key (zk1_ and 43 letters, digits, - or _);"
            " restore it from the machine you played on, or move it away to become a new player"
        )
    return text


def _make(path: Path) -> str:
    """Write a new key whole to a private temporary file, then link it into place: the key file
    appears complete or not at all, and a client starting at the same moment uses the one that
    won (`os.link` refuses to replace)."""
    key = new_key()
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
    except FileExistsError:  # another client made it just now: use theirs
        return load_or_make(path)
    except OSError as err:
        raise PlayerKeyError(f"cannot make the player key {path}: {err.strerror}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return key
