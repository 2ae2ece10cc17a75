"""IdleExpiryManager: which connections have been silent too long (Kafka's Selector.IdleExpiryManager).

Each Selector notes the time of every read or write on a connection. A connection with no traffic
for connections.max.idle.ms is closed: a client that connected and went away without a FIN, or one
that sent half a request and stalled, must not hold a socket (and the bytes it sent) for ever.

The connections are kept in order of last activity, so the Selector looks only at the oldest ones
and stops at the first that is still fresh. Kafka closes one expired connection per poll; here every
expired one goes in the same pass, so twenty stalled clients do not take twenty polls to clear.
"""

from __future__ import annotations

from collections import OrderedDict

from kafka.utils.time import Time


class IdleExpiryManager:
    def __init__(self, connections_max_idle_ms: int, time: Time) -> None:
        self.connections_max_idle_ns = connections_max_idle_ms * 1_000_000
        self.time = time
        self._last_activity: OrderedDict[str, int] = OrderedDict()  # connection id -> ns, oldest first
        self._next_check_ns = time.nanoseconds() + self.connections_max_idle_ns

    def update(self, connection_id: str, now_ns: int | None = None) -> None:
        """The connection just read or wrote: it moves to the young end."""
        self._last_activity[connection_id] = self.time.nanoseconds() if now_ns is None else now_ns
        self._last_activity.move_to_end(connection_id)

    def remove(self, connection_id: str) -> None:
        self._last_activity.pop(connection_id, None)

    def poll_expired_connections(self) -> list[str]:
        """The connections idle for longer than connections.max.idle.ms, oldest first; each is forgotten."""
        now = self.time.nanoseconds()
        if now < self._next_check_ns:
            return []
        expired = []
        while self._last_activity:
            connection_id, last = next(iter(self._last_activity.items()))
            if now - last <= self.connections_max_idle_ns:
                self._next_check_ns = last + self.connections_max_idle_ns + 1
                return expired
            self._last_activity.popitem(last=False)
            expired.append(connection_id)
        self._next_check_ns = now + self.connections_max_idle_ns
        return expired

    def oldest(self) -> str | None:
        """The connection silent longest (Kafka's lowestPriorityChannel picks it first), or None."""
        return next(iter(self._last_activity), None)

    def __len__(self) -> int:
        return len(self._last_activity)
