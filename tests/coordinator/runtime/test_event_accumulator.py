"""EventAccumulator (Kafka's EventAccumulatorTest): one event of a key at a time, a busy key never holds
back another, add_first jumps the key's queue, and a closed accumulator refuses new events."""

from __future__ import annotations

import random
import threading

import pytest

from kafka.coordinator.common.runtime.event_accumulator import EventAccumulator, RejectedExecutionError


class Event:
    def __init__(self, key, name) -> None:
        self._key, self.name = key, name

    def key(self):
        return self._key

    def __repr__(self) -> str:
        return self.name


def test_a_key_is_handed_out_once_until_its_event_is_done():
    accumulator = EventAccumulator(random.Random(1))
    a1, a2, b1 = Event("a", "a1"), Event("a", "a2"), Event("b", "b1")
    for event in (a1, a2, b1):
        accumulator.add_last(event)
    first = accumulator.poll()
    second = accumulator.poll()
    assert {first.key(), second.key()} == {"a", "b"}  # the two keys, never a1 and a2 together
    assert accumulator.poll() is None and accumulator.size() == 1
    accumulator.done(a1 if first is a1 else second)
    assert accumulator.poll() is a2


def test_a_key_with_a_long_queue_does_not_starve_another():
    accumulator = EventAccumulator(random.Random(7))
    for i in range(100):
        accumulator.add_last(Event("busy", f"busy{i}"))
    accumulator.add_last(Event("quiet", "quiet"))
    seen = []
    while (event := accumulator.poll()) is not None:
        seen.append(event.name)
        accumulator.done(event)
        if event.name == "quiet":
            break
    assert "quiet" in seen and len(seen) < 100


def test_add_first_puts_an_event_ahead_of_its_keys_queue():
    accumulator = EventAccumulator()
    accumulator.add_last(Event("a", "write"))
    accumulator.add_first(Event("a", "high-watermark"))
    assert accumulator.poll().name == "high-watermark"


def test_a_closed_accumulator_refuses_events_and_wakes_its_pollers():
    accumulator = EventAccumulator()
    results = []
    poller = threading.Thread(target=lambda: results.append(accumulator.poll(timeout_s=10)))
    poller.start()
    accumulator.close()
    poller.join(5)
    assert results == [None]
    with pytest.raises(RejectedExecutionError):
        accumulator.add_last(Event("a", "late"))


def test_poll_waits_for_an_event_added_by_another_thread():
    accumulator = EventAccumulator()
    threading.Timer(0.05, lambda: accumulator.add_last(Event("a", "later"))).start()
    assert accumulator.poll(timeout_s=5).name == "later"
