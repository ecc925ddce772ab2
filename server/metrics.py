"""The server's numbers, for Prometheus: `GET /metrics` on the serving port.

Each `Server` has its own `CollectorRegistry` (not prometheus-client's global one), so several
servers in one process (the tests, `zhuoji play`) keep their counts apart. The counters are moved
where things happen (`server.app`, `server.table`, the store's commit hook); what is a state
rather than a count (connections open, tables by state, the storage fault) is read from the
server when scraped (`_Live`). docs/OPERATIONS.md lists every metric.

Latency is a `Histogram`: prometheus-client's `Summary` has no quantiles (only a count and a sum),
and a histogram's buckets can be summed across servers and turned into any quantile with
`histogram_quantile(0.99, rate(zhuoji_action_latency_seconds_bucket[5m]))`. For a person reading
`/metrics` with curl, the p50 and p99 of the last `RECENT` moves are also given as gauges.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from server import collector

if TYPE_CHECKING:
    from server.storage.writer import Store


class Scraped(Protocol):
    """What a scrape reads from the server (`server.app.Server` is one): the metrics never
    import the app."""

    @property
    def conns(self) -> Collection[object]: ...

    @property
    def tables(self) -> Mapping[str, _Stated]: ...

    @property
    def resumed(self) -> int: ...

    @property
    def frozen_at_start(self) -> int: ...

    @property
    def store(self) -> Store: ...


class _Stated(Protocol):
    @property
    def state(self) -> str: ...


# From a move's frame arriving to its first event handed to the sockets; a LAN table's moves
# take about a millisecond, a saturated server tens to hundreds.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
)
# One group commit (every table's writes of one loop turn): WAL appends, tenths of a
# millisecond; an fsync (`--sync full`) or a slow disk, milliseconds.
COMMIT_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    1.0,
)
RECENT = 1024  # the moves the recent p50 / p99 gauges are taken over
TABLE_STATES = ("waiting", "playing", "finished", "abandoned")  # the live tables' states
ACTORS = ("player", "bot", "auto", "timeout", "disconnected")
RESUMES = ("events", "snapshot", "refused")
ENDINGS = ("finished", "abandoned", "voted")


def quantile(values: list[float], q: float) -> float:
    """The `q` quantile of sorted `values` (nearest rank); NaN if there are none.

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([1.0, 2.0, 3.0, 4.0], 0.99)
    (2.0, 4.0)
    """
    if not values:
        return math.nan
    rank = max(1, math.ceil(q * len(values)))
    return values[rank - 1]


class Metrics:
    """One server's metrics and its registry. `render(accept)` is the body of `/metrics`."""

    def __init__(self, server: Scraped, *, version: str = "unknown") -> None:
        self.registry = registry = CollectorRegistry()
        self.connections_opened = Counter(
            "zhuoji_connections_opened",
            "Websocket connections accepted since the server started.",
            registry=registry,
        )
        self.messages = Counter(
            "zhuoji_messages_received",
            "Frames received from clients (every kind, refused ones included).",
            registry=registry,
        )
        self.refused = Counter(
            "zhuoji_refused",
            "Error frames sent, by error code: each refuses one message (storage_unavailable is"
            " also sent unasked when a storage fault starts).",
            ["code"],
            registry=registry,
        )
        self.rate_limit_closes = Counter(
            "zhuoji_rate_limit_closes",
            "Connections closed (1008) for sending faster than the rate limit.",
            registry=registry,
        )
        self.tables_created = Counter(
            "zhuoji_tables_created", "Tables created by clients.", registry=registry
        )
        self.matches_started = Counter(
            "zhuoji_matches_started", "Matches started (four seats taken).", registry=registry
        )
        self.matches_ended = Counter(
            "zhuoji_matches_ended",
            "Matches ended: finished (every round played), abandoned (a table frozen by a"
            " server fault) or voted (its players ended it together).",
            ["reason"],
            registry=registry,
        )
        self.rounds = Counter(
            "zhuoji_rounds_played", "Rounds played to their end.", registry=registry
        )
        self.actions = Counter(
            "zhuoji_actions",
            "Moves played, by who chose them: player (a client's act), bot (the server's bot),"
            " auto (托管), timeout (the clock ran out), disconnected (the grace ran out).",
            ["by"],
            registry=registry,
        )
        self.resumes = Counter(
            "zhuoji_resumes",
            "Seats taken back with their token (a reconnect): events (the missed events sent),"
            " snapshot (a snapshot sent), refused (unknown or expired token, or a frozen table).",
            ["how"],
            registry=registry,
        )
        self.latency = Histogram(
            "zhuoji_action_latency_seconds",
            "A player's move, from its frame arriving to its first event handed to the sockets"
            " (the claim window's deliberate minimum left out).",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.commit = Histogram(
            "zhuoji_db_commit_seconds",
            "One SQLite transaction (a group commit of every table's writes of one loop turn).",
            buckets=COMMIT_BUCKETS,
            registry=registry,
        )
        self.commit_writes = Counter(
            "zhuoji_db_writes",
            "Writes committed (one per table step that stored something).",
            registry=registry,
        )
        for by in ACTORS:
            self.actions.labels(by=by)
        for how in RESUMES:
            self.resumes.labels(how=how)
        for reason in ENDINGS:
            self.matches_ended.labels(reason=reason)
        self._actions = {by: self.actions.labels(by=by) for by in ACTORS}
        self._resumes = {how: self.resumes.labels(how=how) for how in RESUMES}
        self.recent: deque[float] = deque(maxlen=RECENT)
        registry.register(_Live(server, self, version))
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        GCCollector(registry=registry)

    # ----- moved by the server -----

    def refusal(self, code: str) -> None:
        self.refused.labels(code=code).inc()

    def committed(self, seconds: float, writes: int) -> None:
        """The store's commit hook."""
        self.commit.observe(seconds)
        self.commit_writes.inc(writes)

    def delivered(self, seconds: float) -> None:
        self.latency.observe(seconds)
        self.recent.append(seconds)

    def tally(self, counts: Mapping[str, int]) -> None:
        """What a table's core counted during one step (`TableCore.tally`)."""
        for key, n in counts.items():
            kind, _, label = key.partition(":")
            if kind == "action":
                child = self._actions.get(label)
                (child or self.actions.labels(by=label)).inc(n)
            elif kind == "resume":
                self._resumes[label].inc(n)
            elif kind == "round":
                self.rounds.inc(n)

    # ----- read -----

    def render(self, accept: str | None = None) -> tuple[bytes, str]:
        """The exposition (the Prometheus text format, or OpenMetrics if `accept` asks for it)
        and its content type."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type


class _Live:
    """What is read from the server at each scrape rather than counted."""

    def __init__(self, server: Scraped, metrics: Metrics, version: str) -> None:
        self.server = server
        self.metrics = metrics
        self.version = version

    def collect(self) -> Iterable[Metric]:
        server = self.server
        yield GaugeMetricFamily(
            "zhuoji_connections", "Websocket connections open now.", value=len(server.conns)
        )
        tables = GaugeMetricFamily(
            "zhuoji_tables", "Tables the server holds now, by state.", labels=["state"]
        )
        counts = dict.fromkeys(TABLE_STATES, 0)
        for table in server.tables.values():
            counts[table.state] = counts.get(table.state, 0) + 1
        for state, n in counts.items():
            tables.add_metric([state], n)
        yield tables
        yield GaugeMetricFamily(
            "zhuoji_matches_resumed_at_start",
            "Unfinished matches this server resumed when it started (after a restart or crash).",
            value=server.resumed,
        )
        yield GaugeMetricFamily(
            "zhuoji_matches_frozen_at_start",
            "Unfinished matches that could not be rebuilt when this server started (frozen, their"
            " records kept): not counted as resumed.",
            value=server.frozen_at_start,
        )
        store = server.store
        yield GaugeMetricFamily(
            "zhuoji_storage_fault",
            "1 while the server cannot write its database (/healthz answers 503), else 0.",
            value=0 if store.fault is None else 1,
        )
        yield CounterMetricFamily(
            "zhuoji_storage_faults", "Storage fault episodes so far.", value=store.faults
        )
        yield GaugeMetricFamily(
            "zhuoji_db_integrity_ok",
            "0 once a periodic integrity check (PRAGMA quick_check) found the live database"
            " corrupt (/healthz answers 503), else 1.",
            value=0 if store.integrity is not None else 1,
        )
        yield CounterMetricFamily(
            "zhuoji_db_integrity_checks",
            "Integrity checks run so far.",
            value=store.integrity_checks,
        )
        yield GaugeMetricFamily(
            "zhuoji_db_wal_bytes",
            "The size of the database's write-ahead log.",
            value=store.wal_bytes(),
        )
        recent = sorted(self.metrics.recent)
        window = GaugeMetricFamily(
            "zhuoji_action_latency_recent_seconds",
            f"zhuoji_action_latency_seconds over the last {RECENT} moves at most (NaN before"
            " the first).",
            labels=["quantile"],
        )
        for q in (0.5, 0.99):
            window.add_metric([str(q)], quantile(recent, q))
        yield window
        yield from gc_pauses(collector.PAUSES)
        info = GaugeMetricFamily(
            "zhuoji_build_info", "The zhuoji version serving (always 1).", labels=["version"]
        )
        info.add_metric([self.version], 1)
        yield info


def gc_pauses(clock: collector.PauseClock) -> Iterable[Metric]:
    """The collector's pauses by generation (`server.collector`): zero unless the serving
    process installed the clock (`zhuoji serve` does)."""
    total = CounterMetricFamily(
        "zhuoji_gc_pause_seconds",
        "Time the event loop stood still in the garbage collector, by generation collected.",
        labels=["generation"],
    )
    count = CounterMetricFamily(
        "zhuoji_gc_pauses",
        "Garbage collections timed, by generation collected.",
        labels=["generation"],
    )
    longest = GaugeMetricFamily(
        "zhuoji_gc_pause_longest_seconds",
        "The longest garbage collection so far, by generation collected.",
        labels=["generation"],
    )
    for generation, pauses in enumerate(clock.generations):
        label = [str(generation)]
        total.add_metric(label, pauses.seconds)
        count.add_metric(label, pauses.count)
        longest.add_metric(label, pauses.longest)
    yield total
    yield count
    yield longest
