"""Close codes and error codes of the zhuoji protocol (documented in docs/PROTOCOL.md).

An `error` frame refuses one message and changes nothing; the connection goes on. A close code
ends the connection; the 4000–4999 range is ours.
"""

from __future__ import annotations

from enum import IntEnum


class Close(IntEnum):
    NORMAL = 1000
    GOING_AWAY = 1001  # the server is shutting down
    INVALID_TEXT = 1007  # a text frame that is not UTF-8 (the websocket layer refuses it)
    POLICY = 1008  # rate limit exceeded
    TOO_BIG = 1009  # a frame over 16 KiB
    INTERNAL = 1011  # a server bug; the table is kept
    RESTART = 1012  # the server is restarting; reconnect with the seat token
    BAD_HELLO = 4000  # the first frame was not a valid `hello`, or none came in time
    VERSION = 4001  # `hello` quoted another protocol version
    REPLACED = 4002  # the same seat's token connected again elsewhere
    TOO_SLOW = 4003  # the client fell too far behind reading frames; reconnect for a snapshot
    IDLE = 4004  # at no table and silent for the server's lobby timeout


# Error codes of `error` frames. Rules refusals (`rules.actions.IllegalAction.code`, such as
# `not_your_turn` or `tile_not_in_hand`) are passed through as they are.
BAD_JSON = "bad_json"
BAD_MESSAGE = "bad_message"
VERSION_MISMATCH = "version_mismatch"
HELLO_FIRST = "hello_first"
ALREADY_HELLO = "already_hello"
BAD_TOKEN = "bad_token"
UNKNOWN_TABLE = "unknown_table"
BAD_PASSWORD = "bad_password"
# Too many table passwords tried lately, at that table or from that address (`server.guesses`):
# refused without trying it, the message says how many seconds to wait.
TOO_MANY_ATTEMPTS = "too_many_attempts"
BAD_OPTIONS = "bad_options"
ALREADY_AT_TABLE = "already_at_table"
NOT_AT_TABLE = "not_at_table"
NOT_SEATED = "not_seated"
SEAT_TAKEN = "seat_taken"
SPECTATORS_FULL = "spectators_full"  # `watch` of a table with the server's cap of spectators
TABLE_FULL = "table_full"
NOT_A_BOT = "not_a_bot"
ALREADY_STARTED = "already_started"
NOT_ENOUGH_PLAYERS = "not_enough_players"
NOT_PLAYING = "not_playing"
NOT_FINISHED = "not_finished"  # `rematch` before the match is over
STALE = "stale"
DUPLICATE = "duplicate"
NOTHING_TO_DO = "nothing_to_do"
NOT_OFFERED = "not_offered"
NEED_TOKEN = "need_token"  # take back a seat by name only at a table with a password
NOT_CREATOR = "not_creator"  # `hand_seat` is for the table's creator (seat 0)
SEAT_NOT_AWAY = "seat_not_away"  # `hand_seat` of a seat that is not an away player's
NO_SUCH_SPECTATOR = "no_such_spectator"  # `hand_seat` to a name no (single) spectator has
TOO_MANY_TABLES = "too_many_tables"
# The server's caps on the open tables one connection / one address has created.
TABLES_PER_CONNECTION = "tables_per_connection"
TABLES_PER_ADDRESS = "tables_per_address"
# Sent unasked: the table was closed (by the server's host, or its creator left before the
# start) — what follows is `match_ended` (a started match) and `left` —; or you were removed
# from your seat by the host (`kicked`, then `left`: your token no longer takes it back).
TABLE_CLOSED = "table_closed"
KICKED = "kicked"
# Sent before close 4004: a connection at no table that sent nothing for the lobby timeout.
IDLE_TIMEOUT = "idle_timeout"
RATE_LIMITED = "rate_limited"
TABLE_FROZEN = "table_frozen"
# The server cannot write its database (disk full, I/O error, the file gone): the tables wait,
# and nothing is sent that is not stored. Sent once to everyone connected when it starts (and
# after `welcome` while it lasts); refuses `create_table`, `take_seat` and `watch` meanwhile.
STORAGE_UNAVAILABLE = "storage_unavailable"
# `get_rounds`: the asker did not play that match (not seated there, and no seat token of it),
# or the match is not over yet.
NOT_YOUR_MATCH = "not_your_match"
MATCH_NOT_OVER = "match_not_over"
# `hello` with a player key this server does not know, from an address that said hello with as
# many new keys in the last hour as the server allows: welcome follows, without a player id.
NEW_PLAYERS_PER_ADDRESS = "new_players_per_address"
# The vote to end a match (解散, `propose_end` / `vote_end`; protocol 3): a proposal while one is
# open, a second proposal of one player within 5 minutes, an answer with no vote open.
VOTE_IN_PROGRESS = "vote_in_progress"
VOTE_TOO_SOON = "vote_too_soon"
NO_VOTE = "no_vote"
