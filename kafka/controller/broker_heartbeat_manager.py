"""BrokerHeartbeatManager: when each broker was last heard from
(Kafka's org.apache.kafka.controller.BrokerHeartbeatManager).

Only the active controller tracks sessions: a heartbeat touches the broker's session, and a broker
whose last heartbeat is older than broker.session.timeout.ms is fenced. A newly active controller
gives every broker a fresh session rather than fence them all for the time it was not listening;
but a session only counts against a new incarnation registering (DUPLICATE_BROKER_REGISTRATION)
once this controller has itself heard from the broker: a combined node restarted after kill -9
must not wait a whole session timeout for its own earlier self.
"""

from __future__ import annotations


class BrokerHeartbeatManager:
    def __init__(self, session_timeout_ms: int) -> None:
        self.session_timeout_ms = session_timeout_ms
        self.last_contact_ms: dict[int, int] = {}
        self.heard_from: set[int] = set()

    def touch(self, broker_id: int, now_ms: int) -> None:
        self.last_contact_ms[broker_id] = now_ms
        self.heard_from.add(broker_id)

    def remove(self, broker_id: int) -> None:
        self.last_contact_ms.pop(broker_id, None)
        self.heard_from.discard(broker_id)

    def has_valid_session(self, broker_id: int, now_ms: int) -> bool:
        last = self.last_contact_ms.get(broker_id)
        return broker_id in self.heard_from and last is not None and now_ms - last < self.session_timeout_ms

    def expired(self, now_ms: int) -> list[int]:
        return sorted(b for b, last in self.last_contact_ms.items()
                      if now_ms - last >= self.session_timeout_ms)

    def reset(self, broker_ids, now_ms: int) -> None:
        self.last_contact_ms = {b: now_ms for b in broker_ids}
        self.heard_from = set()
