"""ConnectionQuotas on MockTime: per-address limits with overrides, counts back down, creation rate."""

from __future__ import annotations

import pytest

from kafka.network.connection_quotas import (
    INT32_MAX,
    ConnectionQuotas,
    ConnectionRate,
    TooManyConnectionsError,
    parse_max_connections_per_ip_overrides,
)
from kafka.utils.time import MockTime


def quotas(per_ip: int = INT32_MAX, overrides: dict | None = None, rate: int = INT32_MAX) -> ConnectionQuotas:
    return ConnectionQuotas(INT32_MAX, per_ip, overrides or {}, rate, MockTime())


def always() -> bool:
    return True


def test_the_connection_over_the_per_ip_limit_is_refused_and_counted_until_closed():
    q = quotas(per_ip=2, overrides={"10.0.0.9": 3})
    q.inc("L", "10.0.0.1", always)
    q.inc("L", "10.0.0.1", always)
    with pytest.raises(TooManyConnectionsError) as refused:
        q.inc("L", "10.0.0.1", always)
    assert refused.value.count == 2
    assert q.get("10.0.0.1") == 3  # Kafka counts it; the Acceptor's close takes it off again
    q.dec("L", "10.0.0.1")
    assert q.get("10.0.0.1") == 2 and q.total_count == 2
    for _ in range(3):
        q.inc("L", "10.0.0.9", always)  # the override
    with pytest.raises(TooManyConnectionsError):
        q.inc("L", "10.0.0.9", always)


def test_closed_connections_leave_nothing_behind():
    q = quotas()
    for ip in ("10.0.0.1", "10.0.0.2", "10.0.0.1"):
        q.inc("L", ip, always)
    for ip in ("10.0.0.1", "10.0.0.2", "10.0.0.1"):
        q.dec("L", ip)
    assert q.get("10.0.0.1") == 0 and q.total_count == 0 and q.listener_count("L") == 0
    assert not q._counts  # no address kept once its last connection is gone


def test_the_rate_throttles_past_the_quota_measured_over_the_whole_window():
    time = MockTime()
    rate = ConnectionRate(2)  # 2 per second over 11 one-second windows
    throttles = []
    for _ in range(25):
        rate.record(time.hi_res_clock_ms())
        throttles.append(rate.throttle_time_ms(time.hi_res_clock_ms()))
    # Kafka's Rate counts at least 10 elapsed windows: 20 connections at once are within 2/s.
    assert throttles[:20] == [0] * 20
    assert throttles[20] == 500  # (21 / 10 s - 2) / 2 * 10 s
    assert throttles[-1] == 1000  # (2.5 - 2) / 2 * 10 s, capped at one window
    time.sleep(12_000)
    rate.record(time.hi_res_clock_ms())
    assert rate.throttle_time_ms(time.hi_res_clock_ms()) == 0  # the old windows have gone


def test_a_throttle_never_exceeds_one_window():
    rate = ConnectionRate(1)
    for _ in range(1000):
        rate.record(0)
    assert rate.throttle_time_ms(0) == 1000


@pytest.mark.parametrize("value, expected", [
    ("", {}),
    ("127.0.0.1:5", {"127.0.0.1": 5}),
    ("hostA:100, 10.0.0.2:0,[::1]:7", {"hostA": 100, "10.0.0.2": 0, "::1": 7}),
])
def test_overrides_parse_as_kafka_writes_them(value, expected):
    assert parse_max_connections_per_ip_overrides(value) == expected


@pytest.mark.parametrize("value", ["127.0.0.1", "127.0.0.1:x", ":4"])
def test_bad_overrides_are_refused(value):
    with pytest.raises(ValueError):
        parse_max_connections_per_ip_overrides(value)
