"""What the server stores: the typed records a table writes (`records`), and the SQL each one
becomes (`record_sql`). The writer and the reads are `server.store`."""
