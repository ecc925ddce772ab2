"""Protocol clients that are tools: a bot that plays a seat over the wire (`bot_player`), a
websocket client that drives it (`client`) and the load test built on both (`loadtest`).

They know only the protocol and the rules core, like a program written from docs/PROTOCOL.md.
"""
