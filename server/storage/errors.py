"""The errors of the database underneath, for the code that calls the storage: a command says
"cannot read the file" for any of them without naming SQLite (only `server.storage` imports it).
"""

from __future__ import annotations

import sqlite3

StorageError = sqlite3.Error
"""Any error SQLite raises reading or writing a file (not ours, damaged, locked, a full disk)."""
