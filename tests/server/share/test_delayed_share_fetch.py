"""DelayedShareFetch against the threads that complete it: the purgatory's reaper expiring a fetch while
an append's check is completing it, and the check of other waiting fetches that a completing fetch leaves
to the ReplicaManager's action queue instead of running it under its own lock (Kafka's
releasePartitionLocksAndAddToActionQueue)."""

from __future__ import annotations

import threading

from tests.helpers import wait_until
from tests.server.share.conftest import GROUP, TIP
from tests.server.share.helpers import acquired, fetch


def _watched(env, monkeypatch) -> list:
    """The DelayedShareFetch operations the purgatory is asked to watch, as they come."""
    purgatory = env.replica_manager.delayed_fetch_purgatory
    operations: list = []
    watch = purgatory.try_complete_else_watch
    monkeypatch.setattr(purgatory, "try_complete_else_watch",
                        lambda operation, keys: operations.append(operation) or watch(operation, keys))
    return operations


def test_an_expiry_racing_a_completing_check_answers_with_the_records_and_leaves_no_fetch_lock(
        env, monkeypatch):
    acquired(env, "m1")  # the share partition is loaded, at the empty log's start
    operations = _watched(env, monkeypatch)
    waiting = fetch(env, "m1", max_wait_ms=5000)
    [operation] = operations
    expiry = threading.Thread(target=operation.run, name="reaper")  # what the reaper calls at max wait
    counting = operation._min_bytes_satisfied

    def expired_meanwhile(fetch_offsets):
        """The append's check holds the fetch lock now; the reaper takes the completion from under it."""
        operation._min_bytes_satisfied = counting
        expiry.start()
        wait_until(lambda: operation.is_completed, timeout=10, message="the reaper to take the completion")
        return counting(fetch_offsets)

    operation._min_bytes_satisfied = expired_meanwhile
    env.produce(b"hello")  # the check finds min bytes met, but force_complete is the reaper's now
    expiry.join(10)
    assert not expiry.is_alive()
    assert waiting.done()
    assert [(r["first_offset"], r["last_offset"])
            for r in waiting.result()[TIP]["acquired_records"]] == [(0, 0)], (
        "the reaper's on_complete waited for the check, then acquired the record itself")
    assert env.manager.share_partition(GROUP, TIP).fetch_lock.holder is None, (
        "the losing check let its lock go")


def test_a_completed_fetch_leaves_the_check_of_waiting_fetches_to_the_action_queue(env, monkeypatch):
    acquired(env, "m1")
    env.replica_manager.try_complete_actions()  # the end of that request
    operations = _watched(env, monkeypatch)
    first = fetch(env, "m1", max_wait_ms=5000)
    second = fetch(env, "m2", max_wait_ms=5000)
    assert not first.done() and not second.done()
    env.produce(b"hello")  # one of them acquires the record; the other still waits
    assert sum(operation.is_completed for operation in operations) == 1
    assert env.replica_manager.action_queue.size() == 1, (
        "its fetch locks went; the check of the others queued")
    env.replica_manager.try_complete_actions()  # what KafkaApis runs at the end of every request
    assert env.replica_manager.action_queue.size() == 0
    assert first.done() != second.done(), "one fetch took the record; nothing is left for the other"
