"""Everything the server stores, and the only place in `server/` that speaks SQL (an
import-linter contract holds that only this package imports `sqlite3`, and
`tests/server/test_storage_boundary.py` that no other server module holds a statement).

Writing:
- `records`: the typed records the server writes (`TableCreated`, `RoundDealt`, `ActionPlayed`,
  `PlayerJoined`, …).
- `record_sql`: the SQL each record becomes (`ops_of`), and the statements (`op_*`).
- `writer`: the server's one writer (`Store`): group commit, storage faults, checkpoints and the
  integrity check; `filewatch`: whether its file is still its database and its WAL index whole,
  and the copy saved of a deleted one.

Reading:
- `startup`, `stored`: what the server reads of its own file before it serves (the unfinished
  matches, as `StoredTable`s).
- `reads`: a file read back read-only (`zhuoji replay`, `verify`, the replay browser, a finished
  match's rounds).
- `players`, `standings_reads`, `tallies`: the group's records (the players, the standings'
  reads, the derived `records` table); the arithmetic stays in `server.records`,
  `server.players` and `server.standings`.

The file:
- `dbfile`: its lock, the checks before it is opened, the writing connection; `errors`: what a
  caller catches (`StorageError`) without naming SQLite.
- `schema`, `migrations`: the newest schema, and the steps from each older version.
- `maintenance`: backup, prune, the stored tables and counts (`zhuoji admin`).
"""
