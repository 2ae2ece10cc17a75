"""DelayedActionQueue: what a completing operation leaves for the end of the request."""

from __future__ import annotations

from kafka.purgatory.delayed_action_queue import DelayedActionQueue


def test_runs_what_was_queued_and_leaves_what_those_queue_to_the_next_request():
    queue, ran = DelayedActionQueue(), []
    queue.add(lambda: ran.append("first") or queue.add(lambda: ran.append("queued by first")))
    queue.add(lambda: ran.append("second"))
    queue.try_complete_actions()
    assert ran == ["first", "second"] and queue.size() == 1
    queue.try_complete_actions()
    assert ran[-1] == "queued by first" and queue.size() == 0


def test_a_failing_action_does_not_stop_the_others():
    queue, ran = DelayedActionQueue(), []
    queue.add(lambda: 1 / 0)
    queue.add(lambda: ran.append("after"))
    queue.try_complete_actions()
    assert ran == ["after"]
