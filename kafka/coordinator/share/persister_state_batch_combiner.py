"""PersisterStateBatchCombiner: merge the batches a write brings over the batches a share partition
has (Kafka's org.apache.kafka.coordinator.share.PersisterStateBatchCombiner, as in Kafka 4.4).

A WriteShareGroupState carries only the batches that changed, and they may overlap what the share
coordinator holds, or each other. The rule that settles every offset is one line: where batches
overlap, the one with the higher delivery count wins, and at the same count the higher delivery state
(ARCHIVED 4 > ACKNOWLEDGED 2 > AVAILABLE 0). A delivery count only grows and a state only moves
forward, so the winner is always the newer news, whichever order the batches came in.

    combine_state_batches():
      prune    drop what lies before the start offset (cut a batch the start offset falls inside)
      sweep    one begin event at each batch's first offset, one end event after its last; walking
               the events in offset order, keep the batches open at this point, and emit each stretch
               between two events with the priority of the best open batch
      coalesce a stretch next to the previous one with the same state and count extends it

The result is sorted and non-overlapping. Kafka 4.4 replaced its older pairwise merge with this sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.coordinator.share.persister_state_batch import PersisterStateBatch

NO_START_OFFSET = -1


@dataclass(frozen=True, order=True)
class BatchPriority:
    """A batch's claim on its offsets: its delivery count first, then its delivery state."""
    delivery_count: int
    delivery_state: int

    @classmethod
    def of(cls, batch: PersisterStateBatch) -> BatchPriority:
        return cls(batch.delivery_count, batch.delivery_state)


@dataclass(frozen=True)
class Event:
    offset: int
    is_begin: bool  # else the batch ends just before `offset`
    priority: BatchPriority


class PersisterStateBatchCombiner:
    def __init__(self, batches_so_far: list[PersisterStateBatch] | None,
                 new_batches: list[PersisterStateBatch] | None, start_offset: int) -> None:
        self.batches_so_far = list(batches_so_far or ())
        self.new_batches = list(new_batches or ())
        self.start_offset = start_offset

    def combine_state_batches(self) -> list[PersisterStateBatch]:
        pruned = self.prune()
        if len(pruned) <= 1:
            return pruned
        return self.sweep_merge(pruned)

    def prune(self) -> list[PersisterStateBatch]:
        kept: list[PersisterStateBatch] = []
        for batch in self.batches_so_far + self.new_batches:
            if self.start_offset != NO_START_OFFSET and batch.last_offset < self.start_offset:
                continue  # wholly before the start offset: delivered and gone
            if self.start_offset == NO_START_OFFSET or batch.first_offset >= self.start_offset:
                kept.append(batch)
            else:  # the start offset falls inside: keep the part from it
                kept.append(PersisterStateBatch(self.start_offset, batch.last_offset, batch.delivery_state,
                                                batch.delivery_count))
        return kept

    def sweep_merge(self, batches: list[PersisterStateBatch]) -> list[PersisterStateBatch]:
        events = []
        for batch in batches:
            priority = BatchPriority.of(batch)
            events.append(Event(batch.first_offset, True, priority))
            events.append(Event(batch.last_offset + 1, False, priority))
        # By offset; at one offset the ends before the begins (Boolean.compare: false first).
        events.sort(key=lambda e: (e.offset, e.is_begin))
        active: dict[BatchPriority, int] = {}  # the open batches' priorities, with how many are open
        result: list[PersisterStateBatch] = []
        previous_offset, current = -1, None
        i = 0
        while i < len(events):
            offset = events[i].offset
            if current is not None and offset > previous_offset:
                self.append_coalesced(result, previous_offset, offset - 1, current)
            while i < len(events) and events[i].offset == offset:
                event = events[i]
                i += 1
                if event.is_begin:
                    active[event.priority] = active.get(event.priority, 0) + 1
                else:
                    self.decrement(active, event.priority)
            current = max(active) if active else None  # the highest count, then the highest state
            previous_offset = offset
        return result

    @staticmethod
    def decrement(active: dict[BatchPriority, int], priority: BatchPriority) -> None:
        if active[priority] == 1:
            del active[priority]
        else:
            active[priority] -= 1

    @staticmethod
    def append_coalesced(result: list[PersisterStateBatch], first: int, last: int,
                         priority: BatchPriority) -> None:
        if result:
            tail = result[-1]
            if (tail.last_offset + 1 == first and tail.delivery_state == priority.delivery_state
                    and tail.delivery_count == priority.delivery_count):
                result[-1] = PersisterStateBatch(tail.first_offset, last, priority.delivery_state,
                                                 priority.delivery_count)
                return
        result.append(PersisterStateBatch(first, last, priority.delivery_state, priority.delivery_count))
