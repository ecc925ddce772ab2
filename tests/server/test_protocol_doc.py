"""docs/PROTOCOL.md is what the server does (issue 22, item 12): close 1002 on a frame the
websocket layer refuses; a reader too far behind is closed, the close frame behind what it has
not read, so one that does not read on is dropped without it (1006); `not_at_table` from a table
carries its `table` and `seq`, from the lobby neither; the burst of 40 is for what follows
`hello`. Real server on loopback (`not_at_table` from a table: in-process, to hold the table's
task back between two frames)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from clients.client import Client
from protocol.messages import PROTOCOL_VERSION
from server.conn import MAX_BUFFERED
from server.testkit import InProcessConn, running_server
from tests.deadline import apoll


async def test_a_frame_the_websocket_layer_refuses_is_closed_1002(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db") as (url, _):
        c = await Client.connect(url, "x")
        await c.recv_type("welcome")
        # A text frame with RSV1 set and no extension agreed (masked, as a client's must be).
        payload, mask = b'{"type": "list_tables"}', b"\x01\x02\x03\x04"
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert c.ws.transport is not None
        c.ws.transport.write(bytes([0xC1, 0x80 | len(payload)]) + mask + body)
        with pytest.raises(ConnectionClosed):
            while True:
                await c.recv()
        assert c.ws.close_code == 1002


def _masked(text: str, opcode: int = 0x1) -> bytes:
    """One client frame (FIN, masked, as RFC 6455 wants from a client)."""
    payload, mask = text.encode(), b"\x01\x02\x03\x04"
    n = len(payload)
    head = bytes([0x80 | opcode]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _close_codes(data: bytes) -> list[int]:
    """The close codes of the close frames in what a server sent (its frames are unmasked)."""
    codes, i = [], 0
    while i + 2 <= len(data):
        opcode, n, i = data[i] & 0x0F, data[i + 1] & 0x7F, i + 2
        if n == 126:
            n, i = int.from_bytes(data[i : i + 2], "big"), i + 2
        elif n == 127:
            n, i = int.from_bytes(data[i : i + 8], "big"), i + 8
        if opcode == 0x8 and i + 2 <= len(data):
            codes.append(int.from_bytes(data[i : i + 2], "big"))
        i += n
    return codes


async def test_a_reader_too_far_behind_is_closed_and_dropped_if_it_reads_no_further(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=1e6, tables_per_address=0) as (
        url,
        server,
    ):
        hosts = []
        for i in range(30):  # a lobby page of about 16 KB
            host = InProcessConn(f"10.0.0.{i}")
            server.handle_frame(
                host, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": f"p{i}"})
            )
            server.handle_frame(
                host, json.dumps({"type": "create_table", "name": "周五晚上的麻将"})
            )
            hosts.append(host)
        await apoll(lambda: all(any('"joined"' in f for f in h.frames) for h in hosts), "made", 60)
        # A raw websocket client, to read (or not) exactly as the test says.
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        port = int(url.rsplit(":", 1)[1])
        await loop.sock_connect(sock, ("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        await loop.sock_sendall(
            sock,
            (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode(),
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += await loop.sock_recv(sock, 1)
        assert head.startswith(b"HTTP/1.1 101")
        await loop.sock_sendall(
            sock,
            _masked(json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "slow"})),
        )
        await apoll(lambda: any(c.name == "slow" for c in server.conns), "said hello", 30)
        slow = next(c for c in server.conns if c.name == "slow")
        for _ in range(4 * MAX_BUFFERED // 16_000):
            await loop.sock_sendall(sock, _masked('{"type": "list_tables"}'))
        await apoll(lambda: slow.closed, "the slow reader closed", 60)
        # The close frame waits behind what it has not read: reading nothing, it is dropped.
        await apoll(lambda: slow not in server.conns, "the slow reader dropped", 60)
        data = b""
        with contextlib.suppress(ConnectionError):
            while chunk := await loop.sock_recv(sock, 1 << 16):
                data += chunk
        sock.close()
        assert _close_codes(data) == [], "no close frame reached it: it sees 1006"


async def test_not_at_table_from_a_table_carries_its_table_and_seq(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db") as (url, server):
        host, guest = InProcessConn("10.0.0.1"), InProcessConn("10.0.0.2")
        server.handle_frame(
            host, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "host"})
        )
        server.handle_frame(host, json.dumps({"type": "create_table", "name": "t"}))
        await apoll(lambda: any('"joined"' in f for f in host.frames), "made", 30)
        server.handle_frame(
            guest, json.dumps({"type": "hello", "version": PROTOCOL_VERSION, "name": "guest"})
        )
        server.handle_frame(guest, json.dumps({"type": "take_seat", "table": "1"}))
        await apoll(lambda: any('"joined"' in f for f in guest.frames), "seated", 30)
        # `leave`, then a table command before `left`: both reach the table, which gets the
        # command once the guest is no longer at it.
        server.handle_frame(guest, json.dumps({"type": "leave"}))
        server.handle_frame(guest, json.dumps({"type": "add_bot"}))
        await apoll(lambda: any('"not_at_table"' in f for f in guest.frames), "refused", 30)
        error = next(json.loads(f) for f in guest.frames if '"not_at_table"' in f)
        assert error["table"] == "1" and isinstance(error["seq"], int) and error["seq"] > 0
        # From the lobby (at no table now): neither.
        server.handle_frame(guest, json.dumps({"type": "add_bot"}))
        lobby = json.loads(guest.frames[-1])
        assert lobby["code"] == "not_at_table" and "table" not in lobby and "seq" not in lobby


async def test_the_burst_of_forty_is_for_what_follows_hello(tmp_path: Path) -> None:
    async with running_server(tmp_path / "z.db", rate_burst=40, rate_per_second=1e-6) as (url, _):
        c = await Client.connect(url, "x")
        await c.recv_type("welcome")
        for _ in range(40):
            await c.send({"type": "list_tables"})
        for _ in range(40):
            assert (await c.recv())["type"] == "tables"
        await c.send({"type": "list_tables"})  # the 41st
        assert (await c.recv())["code"] == "rate_limited"
        with pytest.raises(ConnectionClosed):
            await c.recv()
        assert c.ws.close_code == 1008
