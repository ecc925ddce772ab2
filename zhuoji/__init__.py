"""The `zhuoji` command line: it composes the other packages; no package imports it.

`cli` is the entry point; each subcommand is a module `cmd_<name>` with `add_arguments(parser)`
and `run(args) -> int`. `play` runs a server inside the client process for `zhuoji play`.
"""
