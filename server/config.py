"""The server's settings: what `zhuoji serve --config server.toml` reads, and their ranges.

One frozen model, `ServerConfig`, in sections that match the file's tables (`[server]`,
`[limits]`, `[pace]`, `[table]`, `[log]`). Every key has a default (docs/OPERATIONS.md lists
them), every number a range, and an unknown key or a bad value is refused: `load_config` raises
`ConfigError`, whose message names the file, the line, the key and what is wrong, e.g.

    server.toml:7: limits.tables_per_connection: Input should be greater than or equal to 1 (got 0)

The file is parsed with the standard `tomllib`, which gives the line of a syntax error; for a key
or a value that parses but is wrong, the line is found here (`key_line`). `apply_overrides`
lays command-line flags over the file; `to_toml` prints the effective settings (`tomli-w`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ADMIN_TOKEN_PATTERN = r"^[A-Za-z0-9_\-]{16,128}$"


class _Section(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, defer_build=True)


class ServerSection(_Section):
    """Where the server listens and what it stores into."""

    host: str = Field(default="0.0.0.0", min_length=1, max_length=255)
    port: int = Field(default=8765, ge=0, le=65535)
    db: str = Field(default="", max_length=4096)  # "": the user data directory
    sync: Literal["normal", "full"] = "normal"
    name: str = Field(default="zhuoji", min_length=1, max_length=32)
    retry_max: float = Field(default=5.0, ge=0.01, le=60)
    # Seconds between integrity checks of the live file (PRAGMA quick_check; 0: only at a stop).
    integrity_every: float = Field(default=600.0, ge=0, le=86_400)
    # The admin endpoint's token; "": generated into `<db>.admin-token` (mode 0600).
    admin_token: str = Field(default="", max_length=128)

    @field_validator("admin_token")
    @classmethod
    def _token(cls, value: str) -> str:
        if value and not re.match(ADMIN_TOKEN_PATTERN, value):
            raise ValueError("16-128 letters, digits, '-' or '_' (or \"\" to generate one)")
        return value


class LimitsSection(_Section):
    """What one client, one address and the whole server may hold, and the idle limits."""

    max_tables: int = Field(default=5000, ge=1, le=1_000_000)
    tables_per_connection: int = Field(default=4, ge=0, le=10_000)  # 0: no limit
    tables_per_address: int = Field(default=64, ge=0, le=1_000_000)  # 0: no limit
    # A table counts against its address's cap this long after it was made, closed or not, so
    # that one address cannot keep starting new ones (0: open tables only).
    tables_window_minutes: float = Field(default=60.0, ge=0, le=10_080)
    # The share of one core that the playing tables no player is connected to (bots, 托管 and
    # away seats only) may use together; past it they wait their turn (0: no limit).
    bot_tables_cpu_share: float = Field(default=0.25, ge=0, le=16)
    # Websocket connections open at once from one address, this machine's included (0: no limit).
    connections_per_address: int = Field(default=64, ge=0, le=100_000)
    # Unknown player keys one address may say hello with in an hour (0: no limit); a key is
    # stored only once its player sits down (server.players).
    new_players_per_hour: int = Field(default=30, ge=0, le=100_000)
    # Table passwords one table, and one address, may try a minute; then locked, each lock
    # twice the last (`server.guesses`; 0: no limit).
    password_guesses: int = Field(default=5, ge=0, le=10_000)
    # Spectators one table takes at most (0: no cap).
    spectators_per_table: int = Field(default=16, ge=0, le=10_000)
    # Every connection is pinged this often and closed if no pong comes within `ping_timeout`
    # (a client that stops reading, a spectator included, is closed so).
    ping_interval: float = Field(default=20.0, ge=0.1, le=3600)
    ping_timeout: float = Field(default=20.0, ge=0.1, le=3600)
    # Peers not counted per address (the host itself: `zhuoji play`, a load test).
    address_exempt: tuple[str, ...] = ("127.0.0.1", "::1")
    hello_timeout: float = Field(default=10.0, ge=0.1, le=600)
    lobby_timeout: float = Field(default=300.0, ge=0, le=86_400)  # 0: never
    idle_minutes: float = Field(default=10.0, ge=0, le=10_080)  # 0: never paused
    idle_close_minutes: float = Field(default=120.0, ge=0, le=43_200)  # 0: never closed
    disconnect_grace: float = Field(default=20.0, ge=0, le=3600)
    finished_linger: float = Field(default=600.0, ge=0, le=86_400)
    rate_burst: float = Field(default=40.0, ge=1, le=10_000)
    rate_per_second: float = Field(default=10.0, ge=0.1, le=10_000)

    @field_validator("address_exempt", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value


class PaceSection(_Section):
    """How fast the server's own bots move (a table's own `bot_delay` wins)."""

    bot_delay: float = Field(default=0.0, ge=0, le=60)


class TableSection(_Section):
    """Defaults for `create_table`: a field a client leaves out takes this value."""

    preset: Literal["guiyang", "chuan", "anshun"] = "guiyang"
    options: dict[str, Any] = Field(default_factory=dict)
    base: int = Field(default=1, ge=1, le=1000)
    rounds: int = Field(default=8, ge=1, le=64)
    turn_seconds: float = Field(default=15.0, ge=0, le=600)
    bank_seconds: float = Field(default=30.0, ge=0, le=3600)
    claim_min_ms: int = Field(default=500, ge=0, le=5000)
    next_round_seconds: float = Field(default=30.0, ge=0, le=3600)
    # A house preset file (a path; relative to the config file). "": none.
    house: str = Field(default="", max_length=4096)


class LogSection(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["plain", "json"] = "plain"


class ServerConfig(_Section):
    """Every setting of `zhuoji serve`, with its default."""

    server: ServerSection = Field(default_factory=ServerSection)
    limits: LimitsSection = Field(default_factory=LimitsSection)
    pace: PaceSection = Field(default_factory=PaceSection)
    table: TableSection = Field(default_factory=TableSection)
    log: LogSection = Field(default_factory=LogSection)


class ConfigError(Exception):
    """A config file that cannot be used; the message is one line naming the file, the line
    and the key."""


# ----- reading -----


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(
    r"^\s*((?:\"[^\"]*\"|'[^']*'|[A-Za-z0-9_\-]+)(?:\s*\.\s*(?:\"[^\"]*\"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*="
)


def _split_key(text: str) -> list[str]:
    parts = re.findall(r"\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_\-]+)", text)
    return [a or b or c for a, b, c in parts]


def key_line(text: str, path: tuple[str, ...]) -> int | None:
    """The line (1-based) where the key at `path` (e.g. ("limits", "max_tables")) is set in the
    TOML `text`, or where its table begins; None if it is not found."""
    section: list[str] = []
    best: int | None = None
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            section = _split_key(header.group(1))
            if best is None and tuple(section) == path:
                best = number
            continue
        key = _KEY.match(line)
        if key:
            full = tuple(section + _split_key(key.group(1)))
            if full == path[: len(full)]:
                return number
    return best


def _describe(err: Any) -> tuple[tuple[str, ...], str]:
    loc = tuple(str(x) for x in err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        return loc, "unknown key"
    if "input" in err and err["type"] != "missing":
        msg = f"{msg} (got {err['input']!r})"
    return loc, msg


def parse_config(text: str, source: str = "config") -> ServerConfig:
    """The settings in TOML `text`; ConfigError (with the line) if the file is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"\(at line (\d+), column \d+\)", str(err))
        line = found.group(1) if found else (text.count("\n") + 1 if text else None)
        where = f"{source}:{line}" if line else source
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(err))
        raise ConfigError(f"{where}: not valid TOML: {message}") from None
    try:
        config = ServerConfig.model_validate(data)
    except ValidationError as err:
        loc, message = _describe(err.errors(include_url=False)[0])
        line = key_line(text, loc)
        where = f"{source}:{line}" if line else source
        raise ConfigError(f"{where}: {'.'.join(loc)}: {message}") from None
    problem = _check_options(config.table)
    if problem is not None:
        key, message = problem
        line = key_line(text, ("table", key))
        where = f"{source}:{line}" if line else source
        raise ConfigError(f"{where}: table.{key}: {message}")
    return config


def _check_options(table: TableSection) -> tuple[str, str] | None:
    """The table defaults' rule options must make a ruleset (as `create_table` would)."""
    from rules.options import OptionsError, make_options

    try:
        make_options(table.preset, dict(table.options))
    except OptionsError as err:
        return "options", str(err)[:300]
    return None


def load_config(path: Path) -> ServerConfig:
    """Read a config file; relative paths in it (`db`, `house`) are taken from its folder."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read the config file {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    config = parse_config(text, str(path))
    base = path.resolve().parent
    server, table = config.server, config.table
    if server.db and not Path(server.db).expanduser().is_absolute():
        server = server.model_copy(update={"db": str(base / server.db)})
    if table.house:
        house = Path(table.house).expanduser()
        house = house if house.is_absolute() else base / house
        if not house.is_file():
            line = key_line(text, ("table", "house"))
            raise ConfigError(f"{path}:{line}: table.house: no such file: {house}")
        table = table.model_copy(update={"house": str(house)})
    return config.model_copy(update={"server": server, "table": table})


def apply_overrides(config: ServerConfig, overrides: dict[str, dict[str, Any]]) -> ServerConfig:
    """The settings with some keys replaced (`{"server": {"port": 9000}}`), checked again;
    ConfigError names the key (a flag's value is already checked by its parser)."""
    data = config.model_dump()
    for section, values in overrides.items():
        data[section].update(values)
    try:
        return ServerConfig.model_validate(data)
    except ValidationError as err:
        loc, message = _describe(err.errors(include_url=False)[0])
        raise ConfigError(f"{'.'.join(loc)}: {message}") from None


def to_toml(config: ServerConfig) -> str:
    """The settings as a TOML file `load_config` reads back to the same settings."""
    import tomli_w

    data = config.model_dump()
    data["limits"]["address_exempt"] = list(data["limits"]["address_exempt"])
    return tomli_w.dumps(data)
