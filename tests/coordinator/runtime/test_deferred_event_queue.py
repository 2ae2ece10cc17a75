"""DeferredEventQueue (Kafka's DeferredEventQueueTest): events complete in offset order when their
offset commits, fail all at once, and may not be added below one already waiting."""

from __future__ import annotations

import pytest

from kafka.coordinator.common.runtime.deferred_event_queue import DeferredEventQueue


class Event:
    def __init__(self, log, name) -> None:
        self.log, self.name = log, name

    def complete(self, exception) -> None:
        self.log.append((self.name, exception))


def test_complete_up_to_answers_the_events_at_or_below_the_offset_in_order():
    log, queue = [], DeferredEventQueue()
    queue.add(1, Event(log, "a"))
    queue.add(3, Event(log, "b"))
    queue.add(3, Event(log, "c"))
    queue.add(5, Event(log, "d"))
    queue.complete_up_to(2)
    assert log == [("a", None)]
    queue.complete_up_to(4)
    assert log == [("a", None), ("b", None), ("c", None)]
    assert queue.highest_pending_offset() == 5 and len(queue) == 1


def test_fail_all_fails_every_waiting_event():
    log, queue = [], DeferredEventQueue()
    error = RuntimeError("unloaded")
    queue.add(1, Event(log, "a"))
    queue.add(2, Event(log, "b"))
    queue.fail_all(error)
    assert log == [("a", error), ("b", error)] and queue.highest_pending_offset() is None


def test_an_offset_below_one_already_waiting_is_refused():
    queue = DeferredEventQueue()
    queue.add(5, Event([], "a"))
    with pytest.raises(ValueError):
        queue.add(4, Event([], "b"))
