"""Messages the client makes itself (about its connection and its own moves), reduced into the
view together with the server's frames.

>>> ConnectionLost("timeout").reason
'timeout'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Connecting:
    """A connection attempt starts (`attempt` 0 for the first, then 1, 2, … while retrying)."""

    url: str
    attempt: int = 0


@dataclass(frozen=True, slots=True)
class ConnectionLost:
    """The socket closed or failed; the client will try again."""

    reason: str


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The connection ended for good (the server refused us, or the user quit)."""

    reason: str
    code: int | None = None


@dataclass(frozen=True, slots=True)
class Acted:
    """This client sent an `act` answering the prompt at `seq` (keys are ignored until the
    server answers, so one prompt gets one answer)."""

    seq: int


@dataclass(frozen=True, slots=True)
class Say:
    """A note for the player that does not come from the server (`error` for a refusal)."""

    text: str
    error: bool = False


LocalMessage = Connecting | ConnectionLost | ConnectionClosed | Acted | Say
