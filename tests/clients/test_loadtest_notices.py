"""`zhuoji loadtest` tells a storage notice from an error: while the server's storage fails it
tells everyone connected once (`storage_unavailable`, no `ref`) and its tables wait; that is the
server doing what OPERATIONS.md says, not a fault of the load test's tables."""

from __future__ import annotations

from clients.loadtest import Report, seen_error


def test_a_storage_notice_is_counted_apart_and_other_errors_still_count() -> None:
    report = Report(tables=2, rounds=1)
    seen_error(report, "table 1 seat 0", {"code": "storage_unavailable", "message": "wait"})
    seen_error(report, "table 1 seat 2", {"code": "storage_unavailable", "message": "wait"})
    assert (report.errors, report.storage_notices) == (0, 2)
    seen_error(report, "table 1 seat 3", {"code": "not_your_turn", "message": "no"})
    assert report.errors == 1 and report.error_samples == ["table 1 seat 3: not_your_turn: no"]
    summary = report.to_dict()
    assert summary["storage_notices"] == 2 and summary["errors"] == 1


def test_without_the_servers_cpu_the_per_frame_costs_are_none() -> None:
    """A server without `/metrics` (another server): the CPU is unknown, not zero."""
    report = Report(tables=1, rounds=1, actions=10, frames=50)
    summary = report.to_dict()
    assert summary["server_cpu_s"] is None and summary["server_cpu_per_frame_us"] is None
    report.server_cpu_s = 0.01
    summary = report.to_dict()
    assert (summary["server_cpu_per_action_us"], summary["server_cpu_per_frame_us"]) == (
        1000.0,
        200.0,
    )
