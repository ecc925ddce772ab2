"""Everything the server stores, and the only place in `server/` that speaks SQL (an
import-linter contract holds that only this package imports `sqlite3`).

- `records`: the typed records a table writes (`TableCreated`, `RoundDealt`, `ActionPlayed`, …).
- `record_sql`: the SQL each record becomes (`ops_of`), and the statements (`op_*`).
- `writer`: the server's one writer (`Store`): group commit, storage faults, checkpoints and the
  integrity check.
- `startup`: what the server reads of its own file before it serves (the unfinished matches).
- `stored`: the values read back (`StoredTable`, `StoredRound`).
- `reads`: reading a file back read-only (`zhuoji replay`, `verify`, the replay browser).
"""
