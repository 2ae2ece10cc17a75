"""ConsumerGroupWriter: how a KIP-848 group's change reaches __consumer_offsets before anyone hears
of it -- the write path of Kafka's org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime
(scheduleWriteOperation and its deferred event queue), and the error mapping of its
CoordinatorOperationExceptionHelper.handleOperationException.

In Kafka a write operation (a ConsumerGroupHeartbeat, a leave, a fenced member) changes the group in
memory and produces records; its response is completed only once those records are committed (the
partition's high watermark is past them). An operation that produced no records answers at once,
unless an earlier write is still waiting to commit: then it waits for that one, so no answer ever
shows state the log may lose. Here the records go through ``GroupMetadataManager.append_group_records``
(acks=-1, as the classic group's store_group), whose callback is that "committed, or failed" moment;
nobody blocks: the answer is sent from the callback, on whichever thread completes the append.

When the append fails, Kafka reverts the group to its snapshot at the batch's start (the timeline
data structures). This writer does not keep snapshots. It does two smaller things instead:

* every answer waiting on the failed write gets the mapped error (``coordinator_operation_error``);
  a client that heard an error keeps its old member epoch, and its next heartbeat is judged against
  the member as the coordinator now holds it: accepted when the old epoch is the member's previous one
  and it owns no more than it is given (the coordinator's lost-response rule), else FENCED_MEMBER_EPOCH
  and the client rejoins;
* what the log holds for that group is no longer known, so every record key the failed write touched
  is marked unknown in ``group.written``: the group's next write (anyone's next heartbeat) rewrites
  those records whole, with tombstones for the parts that went, and that answer waits for it.

So memory can be ahead of the log until that next write commits, but no client is told of a state
before it is committed. A member created by a join whose write failed stays in memory until it
rejoins with its id or its session times out (Kafka would have forgotten it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

from kafka.coordinator.consumer_group import ConsumerGroup
from kafka.coordinator.consumer_group_records import changed_records
from kafka.coordinator.group_metadata_manager import append_error_to_coordinator_error
from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.coordinator.ConsumerGroupWriter")

UNKNOWN = None  # the value of a key in ``group.written`` when the log may hold anything for it


def coordinator_operation_error(error: Errors) -> Errors:
    """Kafka's CoordinatorOperationExceptionHelper.handleOperationException: what a client hears when
    a group coordinator write failed. NOT_ENOUGH_REPLICAS_AFTER_APPEND is not in Kafka's list because
    its runtime appends with acks=1 and then waits for the high watermark; ours appends with acks=-1,
    which can end so, and it means the same as NOT_ENOUGH_REPLICAS. The classic group's mapping
    (append_error_to_coordinator_error) but for a batch too large, which a heartbeat did not choose."""
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.UNKNOWN_SERVER_ERROR
    if error == Errors.NETWORK_EXCEPTION:
        return Errors.COORDINATOR_LOAD_IN_PROGRESS
    return append_error_to_coordinator_error(error)


class _Write:
    """One append in flight: the record keys it touched and who waits for it to commit."""

    __slots__ = ("keys", "waiters")

    def __init__(self, keys: set, done: Callable[[Errors], None]) -> None:
        self.keys = keys
        self.waiters = [done]


class ConsumerGroupWriter:
    """``append(group_id, entries, callback)`` is GroupMetadataManager.append_group_records; its
    callback gets the append's own error (Errors.NONE once committed)."""

    def __init__(self, append: Callable[[str, list, Callable[[Errors], None]], None]) -> None:
        self.append = append
        # Guards every group's ``written`` and the writes in flight. Never held while calling out: the
        # append's callback may run on a thread that holds a purgatory operation's lock.
        self.lock = threading.Lock()
        self.in_flight: dict[str, _Write] = {}  # group id -> its latest write not yet committed

    def write(self, group: ConsumerGroup, done: Callable[[Errors], None], deleted: bool = False) -> None:
        """Append what changed in ``group`` and call ``done`` with Errors.NONE once it is committed, or
        with Kafka's mapped error. The caller holds the ConsumerGroupManager's lock, so appends keep
        the order of the changes; ``done`` may run before this returns."""
        with self.lock:
            keys_before = set(group.written)
            entries = changed_records(group, group.written, deleted)
            if entries:
                write = self.in_flight[group.group_id] = _Write(keys_before | set(group.written), done)
            else:
                pending = self.in_flight.get(group.group_id)
                if pending is not None:  # Kafka's read after an uncommitted write: wait for it too
                    pending.waiters.append(done)
                    return
        if not entries:
            done(Errors.NONE)
            return
        self.append(group.group_id, entries, lambda error: self._completed(group, write, error))

    def _completed(self, group: ConsumerGroup, write: _Write, error: Errors | None) -> None:
        error = Errors.NONE if error is None else error
        with self.lock:
            if self.in_flight.get(group.group_id) is write:
                del self.in_flight[group.group_id]
            if error != Errors.NONE:
                for key in write.keys:
                    group.written[key] = UNKNOWN
        if error != Errors.NONE:
            log.warning("consumer group records not written; the next write rewrites them", group_id=group.group_id,
                        error=error.name, waiting=len(write.waiters))
            error = coordinator_operation_error(error)
        for done in write.waiters:
            done(error)
