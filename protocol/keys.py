"""A player key as it travels: each server gets a key derived from the player's own
(`client_tui.player_key` keeps that one on the player's machine; the `clients` tools use the same
derivation), so the key itself never leaves the machine.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from urllib.parse import urlsplit

_KEY = re.compile(r"^zk1_[A-Za-z0-9_-]{43}$")  # protocol.messages.PlayerKey


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def server_identity(url: str) -> str:
    """What a derived key is bound to: the server's host and port as the client dials it, in
    lower case with the scheme's default port filled in; every loopback server is one identity
    (`zhuoji play` takes a new port each start, and it is this machine's own).

    >>> server_identity("ws://Mahjong.lan:8765"), server_identity("ws://127.0.0.1:40111")
    ('mahjong.lan:8765', 'loopback')
    >>> server_identity("wss://host")
    'host:443'
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in LOOPBACK_HOSTS or host.startswith("127."):
        return "loopback"
    port = parts.port or (443 if parts.scheme in ("wss", "https") else 80)
    return f"{host}:{port}"


def for_server(key: str, url: str) -> str:
    """The key a `hello` to the server at `url` carries: HMAC-SHA256 of the server's identity
    under the player key, in the key's own form (`zk1_` and 43 characters), so the same player is
    the same id on one server and unlinkable across servers by anyone who sees one of them.

    >>> k = "zk1_" + "A" * 43
    >>> d = for_server(k, "ws://a.lan:8765")
    >>> _KEY.match(d) is not None, d == for_server(k, "ws://A.LAN:8765"), d == for_server(k, "ws://b.lan:8765")
    (True, True, False)
    """
    mac = hmac.new(key.encode("ascii"), server_identity(url).encode("utf-8"), hashlib.sha256)
    return "zk1_" + base64.urlsafe_b64encode(mac.digest()).decode("ascii").rstrip("=")
