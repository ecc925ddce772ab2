"""The player's settings, in `config.toml` in the user's config directory
(`~/.config/zhuoji/config.toml` on Linux; `$ZHUOJI_CONFIG_DIR` overrides the directory):

```toml
lang = "zh"          # interface language: "zh" or "en" (default: from the locale)
tiles = "ascii"      # tile faces: "cjk" (一万 九条) or "ascii" (1m 9s)
bell = false         # the terminal bell when a move or a claim is asked of you (default true)
name = "阿明"         # your name at the table (default: your login)
server = "192.168.1.5:8765"  # where `zhuoji join` and `watch` go when given no server
```

Every key is optional; the command line's flags override them. Without `server`, `zhuoji join`
goes back to the last server it joined (kept in the state directory, not here: this file is the
player's own and the client never writes it). A file that does not parse, or holds an unknown key
or a bad value, is refused with an error naming the line (`ConfigError`).

(The `houses/` folder beside this file holds table presets; it is not read here.)

>>> import tempfile
>>> p = Path(tempfile.mkdtemp()) / "config.toml"
>>> _ = p.write_text('lang = "zh"\\nbell = false\\n', encoding="utf-8")
>>> s = load(p)
>>> s.lang, s.bell, s.ascii, s.name
('zh', False, None, None)
>>> _ = p.write_text('lang = "zh"\\ntiles = "big"\\n', encoding="utf-8")
>>> load(p)
Traceback (most recent call last):
  ...
client_tui.config.ConfigError: ...config.toml, line 2: tiles must be "cjk" or "ascii", not 'big'
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONFIG_ENV = "ZHUOJI_CONFIG_DIR"
FILE_NAME = "config.toml"
KEYS = ("lang", "tiles", "bell", "name", "server")


class ConfigError(Exception):
    """The config file cannot be used; the message names the file, the line and what is wrong."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What `config.toml` says; None where it says nothing."""

    lang: str | None = None
    tiles: str | None = None
    bell: bool | None = None
    name: str | None = None
    server: str | None = None

    @property
    def ascii(self) -> bool | None:
        """ASCII tiles (True), CJK (False), or not set."""
        return None if self.tiles is None else self.tiles == "ascii"


def config_dir() -> Path:
    """`$ZHUOJI_CONFIG_DIR`, else the platform's user config directory for zhuoji."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    from platformdirs import user_config_path

    return user_config_path("zhuoji", appauthor=False)


def config_path() -> Path:
    return config_dir() / FILE_NAME


def _line_of(text: str, key: str) -> int | None:
    k = re.escape(key)
    # `key = …`, `"key" = …`, or a table `[key]` / `[[key]]`.
    pattern = re.compile(rf"^\s*(?:[\"']?{k}[\"']?\s*=|\[\[?\s*[\"']?{k}[\"']?\s*[\].])")
    for n, line in enumerate(text.splitlines(), 1):
        if pattern.match(line):
            return n
    return None


def _where(path: Path, text: str, key: str) -> str:
    line = _line_of(text, key)
    return f"{path}, line {line}" if line is not None else str(path)


def load(path: Path | None = None) -> Settings:
    """The settings in `path` (default: `config_path()`); no file, no settings."""
    path = config_path() if path is None else path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read ({err.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ConfigError(f"{path}, line {line}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        # tomllib says "... (at line N, column M)": lead with the line, as the others do.
        msg = str(err)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            what = msg[: m.start()].strip()
            raise ConfigError(
                f"{path}, line {m.group(1)}: not valid TOML ({what}, column {m.group(2)})"
            ) from None
        raise ConfigError(f"{path}: not valid TOML ({msg})") from None
    return _settings(data, path, text)


def _settings(data: dict[str, Any], path: Path, text: str) -> Settings:
    for key in data:
        if key not in KEYS:
            raise ConfigError(
                f"{_where(path, text, key)}: unknown setting {key!r} (known: {', '.join(KEYS)})"
            )

    def choice(key: str, allowed: tuple[str, ...]) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or value.lower() not in allowed:
            words = " or ".join(f'"{a}"' for a in allowed)
            raise ConfigError(f"{_where(path, text, key)}: {key} must be {words}, not {value!r}")
        return value.lower()

    def string(key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{_where(path, text, key)}: {key} must be a non-empty string")
        return value.strip()

    bell = data.get("bell")
    if bell is not None and not isinstance(bell, bool):
        raise ConfigError(f"{_where(path, text, 'bell')}: bell must be true or false")
    return Settings(
        lang=choice("lang", ("zh", "en")),
        tiles=choice("tiles", ("cjk", "ascii")),
        bell=bell,
        name=string("name"),
        server=string("server"),
    )


# ----- the last server joined (state, not a setting) -----


def last_server_path(state: Path) -> Path:
    return state / "last_server"


def last_server(state: Path) -> str | None:
    """The server `zhuoji join` last went to, or None."""
    try:
        text = last_server_path(state).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def remember_server(state: Path, url: str) -> None:
    """Keep `url` as the last server joined (best effort: losing it costs only the default)."""
    with contextlib.suppress(OSError):
        state.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=state, prefix=".last_server.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(url + "\n")
        os.replace(tmp, last_server_path(state))
