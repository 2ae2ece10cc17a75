"""ConnectionQuotas: how many connections the broker takes, from whom, and how fast (Kafka's
kafka.network.ConnectionQuotas, KIP-402 and KIP-612).

The Acceptor asks `inc` for every socket it accepts; the Processor calls `dec` when one closes.

    max.connections.per.ip (and .overrides)  over it, the new connection is closed at once
                                              (TooManyConnectionsError, logged at info)
    max.connections                           at it, the Acceptor stops accepting until a
                                              connection closes (new clients wait in the backlog)
    max.connection.creation.rate              over it, the Acceptor waits before accepting more,
                                              long enough to bring the rate back under the quota

Time spent waiting for either of the last two is what AcceptorBlockedPercent reports. The rate is
Kafka's quota Rate: connections counted in QUOTA_WINDOW_NUM samples of QUOTA_WINDOW_SIZE_MS each.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable, Mapping

from kafka.utils.time import Time

INT32_MAX = 2**31 - 1
# Kafka's quota.window.num and quota.window.size.seconds defaults, which its ConnectionQuotas uses.
QUOTA_WINDOW_NUM = 11
QUOTA_WINDOW_SIZE_MS = 1000


class TooManyConnectionsError(Exception):
    """Kafka's TooManyConnectionsException: this address already has its maximum of connections."""

    def __init__(self, ip: str, count: int) -> None:
        super().__init__(f"too many connections from {ip} (the maximum is {count})")
        self.ip = ip
        self.count = count


def parse_max_connections_per_ip_overrides(value: str) -> dict[str, int]:
    """`host:count,host:count` (Kafka's max.connections.per.ip.overrides); IPv6 hosts may be bracketed."""
    overrides: dict[str, int] = {}
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        host, colon, count = item.rpartition(":")
        if not colon or not host or not count.strip().isdigit():
            raise ValueError(f"{item!r} is not of the form host:count")
        overrides[host.strip().strip("[]")] = int(count)
    return overrides


def _normalise(ip: str) -> str:
    try:
        return str(ipaddress.ip_address(ip))
    except ValueError:
        return ip  # a host name in the overrides: matched as written


class ConnectionRate:
    """Kafka's quota Rate over sampled windows: connections per second, measured over the last
    QUOTA_WINDOW_NUM windows (as if at least all but the current one had passed, so that the first
    second after start-up does not look like a flood)."""

    def __init__(self, quota_per_s: int, window_ms: int = QUOTA_WINDOW_SIZE_MS,
                 num_windows: int = QUOTA_WINDOW_NUM) -> None:
        self.quota_per_s = quota_per_s
        self.window_ms = window_ms
        self.num_windows = num_windows
        self._samples: list[tuple[int, float]] = []  # (window start ms, connections), oldest first

    def record(self, now_ms: int) -> None:
        if not self._samples or now_ms >= self._samples[-1][0] + self.window_ms:
            self._samples.append((now_ms, 0.0))
        start, count = self._samples[-1]
        self._samples[-1] = (start, count + 1)
        self._purge(now_ms)

    def _purge(self, now_ms: int) -> None:
        horizon = now_ms - self.window_ms * self.num_windows
        while self._samples and self._samples[0][0] + self.window_ms <= horizon:
            self._samples.pop(0)

    def rate(self, now_ms: int) -> float:
        self._purge(now_ms)
        if not self._samples:
            return 0.0
        total = sum(count for _, count in self._samples)
        elapsed = now_ms - self._samples[0][0]
        elapsed = max(elapsed, (self.num_windows - 1) * self.window_ms)
        return total * 1000.0 / max(elapsed, 1)

    def throttle_time_ms(self, now_ms: int) -> int:
        """How long to wait so the rate falls back to the quota (Kafka's QuotaUtils.boundedThrottleTime,
        at most one window)."""
        rate = self.rate(now_ms)
        if rate <= self.quota_per_s:
            return 0
        window = max(now_ms - self._samples[0][0], (self.num_windows - 1) * self.window_ms)
        return min(int((rate - self.quota_per_s) / self.quota_per_s * window), self.window_ms)


class ConnectionQuotas:
    def __init__(self, max_connections: int, max_connections_per_ip: int,
                 max_connections_per_ip_overrides: Mapping[str, int], max_connection_creation_rate: int,
                 time: Time) -> None:
        self.max_connections = max_connections
        self.max_connections_per_ip = max_connections_per_ip
        self.overrides = {_normalise(host): count for host, count in max_connections_per_ip_overrides.items()}
        self.time = time
        self._rate = ConnectionRate(max_connection_creation_rate) \
            if max_connection_creation_rate < INT32_MAX else None
        self._lock = threading.Condition()  # Kafka synchronizes on `counts` and waits on it too
        self._counts: dict[str, int] = {}  # per address; an address with none is not kept
        self._listener_counts: dict[str, int] = {}
        self.total_count = 0
        self.accepted_total = 0  # connection-accept-rate's count (Kafka's Connection-Accept-Rate sensor)
        self.waiting_acceptors = 0  # Acceptors blocked in `inc` right now

    # ------------------------------------------------------------------ the Acceptor
    def inc(self, listener: str, ip: str, keep_waiting: Callable[[], bool]) -> int:
        """Count a new connection from `ip`, first waiting for a slot under max.connections and for the
        creation rate; returns the ns spent waiting. Raises TooManyConnectionsError over the per-IP
        limit (the connection is counted: the caller closes it through `dec`, as Kafka does)."""
        ip = _normalise(ip)
        with self._lock:
            blocked_ns = self._wait_for_connection_slot(keep_waiting)
            count = self._counts.get(ip, 0)
            self._counts[ip] = count + 1
            self._listener_counts[listener] = self._listener_counts.get(listener, 0) + 1
            self.total_count += 1
            self.accepted_total += 1
            limit = self.max_connections_for(ip)
            if count >= limit:
                raise TooManyConnectionsError(ip, limit)
            return blocked_ns

    def _wait_for_connection_slot(self, keep_waiting: Callable[[], bool]) -> int:
        start_ms = self.time.hi_res_clock_ms()
        throttle_ms = self.record_connection_and_get_throttle_time_ms(start_ms)
        if throttle_ms <= 0 and self.total_count < self.max_connections:
            return 0
        started_ns = self.time.nanoseconds()
        end_ms = start_ms + throttle_ms
        self.waiting_acceptors += 1
        try:
            while keep_waiting():
                remaining_ms = end_ms - self.time.hi_res_clock_ms()
                if remaining_ms <= 0 and self.total_count < self.max_connections:
                    break
                # Woken by `dec` when a slot frees; the timeout lets a stopping Acceptor notice it must go.
                self._lock.wait(min(remaining_ms / 1000, 0.5) if remaining_ms > 0 else 0.5)
        finally:
            self.waiting_acceptors -= 1
        return self.time.nanoseconds() - started_ns

    def record_connection_and_get_throttle_time_ms(self, now_ms: int) -> int:
        """Count the connection in the broker-wide rate; how long to wait to stay under the quota."""
        if self._rate is None:
            return 0
        self._rate.record(now_ms)
        return self._rate.throttle_time_ms(now_ms)

    def max_connections_for(self, ip: str) -> int:
        return self.overrides.get(_normalise(ip), self.max_connections_per_ip)

    # ------------------------------------------------------------------ dynamic broker configs
    def update_max_connections_per_ip(self, max_connections_per_ip: int,
                                      overrides: Mapping[str, int]) -> None:
        """Kafka's updateMaxConnectionsPerIp and updateMaxConnectionsPerIpOverride: for the next
        connections (those open stay)."""
        with self._lock:
            self.max_connections_per_ip = max_connections_per_ip
            self.overrides = {_normalise(host): count for host, count in overrides.items()}

    def update_broker_max_connections(self, max_connections: int) -> None:
        with self._lock:
            self.max_connections = max_connections
            self._lock.notify_all()  # an Acceptor waiting under the old limit may go on

    def update_broker_max_connection_rate(self, max_connection_creation_rate: int) -> None:
        with self._lock:
            self._rate = ConnectionRate(max_connection_creation_rate) \
                if max_connection_creation_rate < INT32_MAX else None

    # ------------------------------------------------------------------ the Processors
    def dec(self, listener: str, ip: str) -> None:
        ip = _normalise(ip)
        with self._lock:
            count = self._counts.get(ip, 0)
            if count <= 1:
                self._counts.pop(ip, None)
            else:
                self._counts[ip] = count - 1
            self.total_count = max(self.total_count - 1, 0)
            if self._listener_counts.get(listener, 0) > 0:
                self._listener_counts[listener] -= 1
            self._lock.notify_all()  # an Acceptor waiting for a slot under max.connections

    def max_connections_exceeded(self, listener: str) -> bool:
        """More connections than max.connections (Kafka's maxConnectionsExceeded). In Kafka the
        inter-broker listener is protected and may accept past the limit, and the other listeners'
        Processors then close connections to make room. No listener is protected here: the Acceptor
        never takes the count past the limit, and this answers False."""
        return self.total_count > self.max_connections

    def get(self, ip: str) -> int:
        with self._lock:
            return self._counts.get(_normalise(ip), 0)

    def listener_count(self, listener: str) -> int:
        return self._listener_counts.get(listener, 0)

    def wake_waiting_acceptors(self) -> None:
        with self._lock:
            self._lock.notify_all()
