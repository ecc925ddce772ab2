"""The database's shape at the newest schema version (`SCHEMA_VERSION`): what a new file is made
with. An older file is brought up to it by the steps of `server.storage.migrations`.

The matches' tables (`tables`, `rounds`, `actions`, `events`) are the one truth; `players` and
`records` (the group's records, issue 25) are derived beside them (`server.storage.tallies`).
"""

from __future__ import annotations

from server.records import BOT_LEVELS, COLUMNS, bot_player_id

APPLICATION_ID = 0x7A686A69  # "zhji": PRAGMA application_id of every zhuoji database
SCHEMA_VERSION = 3  # PRAGMA user_version this code writes (0: a file from before versions)

MATCH_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the overrides of the preset
    base INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    turn_seconds REAL NOT NULL,
    bank_seconds REAL NOT NULL,
    claim_min_ms INTEGER NOT NULL,
    has_password INTEGER NOT NULL,
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    state TEXT NOT NULL,            -- waiting | playing | finished | voted | abandoned
    seats TEXT,                     -- JSON: [{"name", "kind", "level" (bots), "player" (keyed
                                    -- humans: server.players)}] × 4 once started
    scores TEXT,                    -- JSON: 4 ints, the match result so far
    rounds_played INTEGER NOT NULL DEFAULT 0,
    seed TEXT,                      -- the match seed every round's wall derives from
    password_hash TEXT,             -- pbkdf2 of the password (never the password)
    tokens TEXT,                    -- JSON: 4 SHA-256 digests of the seat tokens, once started
    bot_delay REAL,                 -- seconds the bots wait before moving (NULL: the server's)
    next_round_seconds REAL         -- the longest wait between rounds (0: no limit, NULL: 30)
);
CREATE TABLE IF NOT EXISTS rounds (
    table_id TEXT NOT NULL REFERENCES tables(id),
    round_no INTEGER NOT NULL,
    seed TEXT NOT NULL,
    dealer INTEGER NOT NULL,
    streak INTEGER NOT NULL,
    base INTEGER NOT NULL,
    hands TEXT NOT NULL,            -- JSON: four lists of tiles in notation, as dealt
    wall TEXT NOT NULL,             -- JSON: the live wall, front first
    started_at REAL NOT NULL,
    ended_at REAL,
    result TEXT,                    -- JSON: the settlement
    net TEXT,                       -- JSON: 4 ints
    salt TEXT,                      -- fair deal: the secret salt (hex), revealed at the end
    commitment TEXT,                -- fair deal: SHA-256 of the salt and the deal order
    weekday INTEGER,                -- 1 Monday … 7 Sunday: the day of the deal (星期鸡, §13.12)
    PRIMARY KEY (table_id, round_no)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL,
    round_no INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    act TEXT NOT NULL,
    tile TEXT,
    phase TEXT NOT NULL,            -- turn | claim | rob: when it was played
    auto INTEGER NOT NULL,          -- 1 when the server played it (timeout, 托管)
    at REAL NOT NULL,
    PRIMARY KEY (table_id, round_no, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    round_no INTEGER NOT NULL,      -- 0 outside a round
    type TEXT NOT NULL,
    data TEXT NOT NULL,             -- JSON: the full event, private fields included
    at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""
"""The matches' tables: the tables, their rounds, every action and every event."""

RECORDS_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY,            -- the public player id (p-…, or bot-<level>)
    key_digest TEXT UNIQUE,         -- SHA-256 of the player key (NULL for the server's bots)
    name TEXT NOT NULL,             -- the name it last said hello with
    kind TEXT NOT NULL,             -- human | bot
    created_at REAL NOT NULL,
    seen_at REAL NOT NULL
)""",
    """CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    player_id TEXT,                 -- who held the seat (NULL: a hello without a player key)
    preset TEXT NOT NULL,
    at REAL NOT NULL,               -- when its last stored round ended
    """
    + ",\n    ".join(f"{c} INTEGER NOT NULL DEFAULT 0" for c in COLUMNS)
    + """,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS records_player ON records (player_id, at)",
)
"""The players and their records (schema version 3)."""

BOT_ROWS: list[tuple[str, str]] = [(bot_player_id(level), f"Bot ({level})") for level in BOT_LEVELS]

RECORDS_SCHEMA_SQL = ";\n".join(
    [
        *RECORDS_SCHEMA,
        *(
            "INSERT OR IGNORE INTO players (id, key_digest, name, kind, created_at, seen_at)"
            f" VALUES ('{pid}', NULL, '{name}', 'bot', 0, 0)"
            for pid, name in BOT_ROWS
        ),
    ]
)
"""The records' tables and the bots' player rows as SQL text (`;`-separated, no `;` inside a
statement): what a new file is made with, beside the match tables."""


SCHEMA = MATCH_SCHEMA + RECORDS_SCHEMA_SQL
"""Every table of the newest schema as SQL text (`;`-separated, no `;` inside a statement)."""
