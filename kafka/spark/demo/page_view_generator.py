"""The event generator: page views as JSON values, keyed by user, produced with kafka.clients.

Each event is ``{"user": "u3", "page": "/cart", "event_time": "2026-01-01T00:00:05.250Z"}`` with
key ``u3``, so one user's views stay in order in one partition (the partitioner hashes the key).
The choices come from a seeded ``random.Random``, so a run can be repeated exactly; the event times
are given by the caller, which decides whether they follow the wall clock or a script.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from kafka.clients.producer import KafkaProducer

PAGES = ("/", "/search", "/product", "/cart", "/checkout")


@dataclass(frozen=True)
class PageView:
    user: str
    page: str
    event_time_ms: int

    def key(self) -> bytes:
        return self.user.encode()

    def value(self) -> bytes:
        when = datetime.fromtimestamp(self.event_time_ms / 1000, tz=UTC)
        event_time = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
        return json.dumps({"user": self.user, "page": self.page, "event_time": event_time}).encode()


def page_views(event_times_ms: list[int], seed: int = 42, users: int = 20) -> Iterator[PageView]:
    rng = random.Random(seed)
    for t in event_times_ms:
        # The home page and search are the busiest, as on most shops.
        page = rng.choices(PAGES, weights=(5, 4, 3, 2, 1))[0]
        yield PageView(f"u{rng.randrange(users)}", page, t)


def produce(producer: KafkaProducer, topic: str, views: Iterator[PageView],
            timeout: float = 60) -> list[PageView]:
    """Send every view (timestamped with its event time) and wait until all are acknowledged; a view
    the cluster did not acknowledge raises (its future's error). During a leader's failover the
    producer retries to the new leader, so the wait can take the failover's seconds."""
    sent = [(view, producer.send(topic, view.value(), key=view.key(), timestamp_ms=view.event_time_ms))
            for view in views]
    producer.flush(timeout)
    for _, future in sent:
        future.get(0)
    return [view for view, _ in sent]
