"""One table: a sans-I/O core of small values (`core`) and the asyncio shell that drives it
(`shell`). See docs/ENGINE.md for the map."""
