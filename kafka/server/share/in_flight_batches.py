"""InFlightBatches: a SharePartition's cached state, its in-flight batches in offset order (Kafka's
NavigableMap<Long, InFlightBatch> cachedState, with the walks SharePartition makes over it).

Keyed by each batch's first offset, with the NavigableMap lookups SharePartition needs: the batch
holding an offset (floor), the batches starting in a range (sub_map), dropping the front. And the
walks Kafka's SharePartition makes over the map: from the front, where the first AVAILABLE record is,
how far the records are all done and whether the start offset may move; the batches an
acknowledgement names; archiving the records of a range. They read and change the batches only:
the offsets, the persister and the lock stay the SharePartition's, which guards this map.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from kafka.protocol.errors import Errors
from kafka.server.share.in_flight_batch import InFlightBatch
from kafka.server.share.record_state import RecordState
from kafka.server.share.share_acknowledgement_batch import ShareAcknowledgementBatch
from kafka.server.share.share_errors import ShareError


class InFlightBatches:
    def __init__(self) -> None:
        self._batches: dict[int, InFlightBatch] = {}  # first offset -> batch
        self._keys: list[int] = []  # the first offsets, sorted

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[InFlightBatch]:
        return iter([self._batches[k] for k in self._keys])

    def put(self, batch: InFlightBatch) -> None:
        if batch.first_offset not in self._batches:
            bisect.insort(self._keys, batch.first_offset)
        self._batches[batch.first_offset] = batch

    def first_key(self) -> int:
        return self._keys[0]

    def last(self) -> InFlightBatch | None:
        return self._batches[self._keys[-1]] if self._keys else None

    def floor(self, offset: int) -> InFlightBatch | None:
        """The batch with the greatest first offset at or below `offset` (it may end before it)."""
        i = bisect.bisect_right(self._keys, offset)
        return self._batches[self._keys[i - 1]] if i else None

    def higher_key(self, offset: int) -> int:
        return self._keys[bisect.bisect_right(self._keys, offset)]

    def sub_map(self, from_key: int, to_offset: int) -> list[InFlightBatch]:
        """The batches whose first offset is in [from_key, to_offset] (Kafka's
        subMap(from, true, to, true))."""
        lo, hi = bisect.bisect_left(self._keys, from_key), bisect.bisect_right(self._keys, to_offset)
        return [self._batches[k] for k in self._keys[lo:hi]]

    def remove_up_to(self, last_key: int) -> None:
        """Drop the batches whose first offset is at or below last_key."""
        hi = bisect.bisect_right(self._keys, last_key)
        for key in self._keys[:hi]:
            del self._batches[key]
        del self._keys[:hi]

    def remove_before(self, key: int) -> None:
        """Drop the batches before the one starting at `key`."""
        i = self._keys.index(key)
        if i > 0:
            self.remove_up_to(self._keys[i - 1])

    def clear(self) -> None:
        self._batches.clear()
        self._keys.clear()

    def first_available_offset(self, gap_start: int | None = None) -> int | None:
        """The first AVAILABLE record not in the middle of a change, or None. With `gap_start` (a new
        leader's GapWindow), the first hole between the batches from there on if it comes first: records
        nobody has had since the state was read back."""
        for batch in self:
            if gap_start is not None:
                if batch.first_offset > gap_start:
                    return gap_start
                gap_start = max(batch.last_offset + 1, gap_start)
            if batch.offset_state is None:
                if batch.state is RecordState.AVAILABLE and not batch.has_ongoing_state_transition():
                    return batch.first_offset
                continue
            for offset, state in batch.offset_state.items():
                if state.state is RecordState.AVAILABLE and not state.has_ongoing_state_transition():
                    return offset
        return None

    def last_offset_acknowledged(self, gap_start: int | None = None) -> int:
        """The end of the run of ACKNOWLEDGED/ARCHIVED records at the front (-1: none), Kafka's
        findLastOffsetAcknowledgedAndMetadata: where the start offset may move to, less one. With
        `gap_start` (a new leader's GapWindow), no further than the batches before it: a hole may follow."""
        last = -1
        for batch in self:
            if gap_start is not None and batch.last_offset >= gap_start:
                return last
            for offset, state in batch.states():
                if state.has_ongoing_state_transition() or not state.state.is_terminal:
                    return last
                last = offset if batch.offset_state is not None else batch.last_offset
        return last

    def delivery_complete_count(self, start_offset: int) -> int:
        """How many records from `start_offset` on are ACKNOWLEDGED or ARCHIVED, a change under way counted
        as made (it is the one being written): KIP-1226's deliveryCompleteCount, which the persister keeps
        so that DescribeShareGroupOffsets can tell the lag. Kafka keeps it as a running count, changed
        wherever a record's state is; here it is counted when written."""
        count = 0
        for batch in self:
            if batch.offset_state is None:
                if batch.state.is_terminal:
                    count += max(0, batch.last_offset - max(batch.first_offset, start_offset) + 1)
                continue
            count += sum(1 for offset, state in batch.offset_state.items()
                         if offset >= start_offset and state.state.is_terminal)
        return count

    def can_move_start_offset(self, start_offset: int) -> bool:
        """Kafka's canMoveStartOffset: the record at the start offset is done (ACKNOWLEDGED or
        ARCHIVED, no change of it under way)."""
        entry = self.floor(start_offset)
        if entry is None:
            return False
        state = entry.batch_state if entry.offset_state is None else entry.offset_state.get(start_offset)
        return state is not None and not state.has_ongoing_state_transition() and state.state.is_terminal

    def move_start_offset(self, start_offset: int, gap_start: int | None) -> tuple[int, bool] | None:
        """Kafka's maybeUpdateCachedStateAndOffsets walk: past the ACKNOWLEDGED/ARCHIVED records at the
        front (not past gap_start), dropping the batches wholly behind; (the new start offset, whether the
        map is now empty), or None when the start offset stays."""
        if not self.can_move_start_offset(start_offset):
            return None
        last_acked = self.last_offset_acknowledged(gap_start)
        if last_acked == -1:
            return None
        if last_acked == self.last().last_offset:
            self.clear()
            return last_acked + 1, True
        holder = self.floor(last_acked)
        if last_acked == holder.last_offset:
            start_offset = max(start_offset, self.higher_key(last_acked))
            if gap_start is not None:
                start_offset = min(gap_start, start_offset)
            self.remove_up_to(holder.first_offset)
        else:
            start_offset = max(start_offset, last_acked + 1)
            self.remove_before(holder.first_offset)
        return start_offset, False

    def sub_map_for_acknowledgement(self, ack: ShareAcknowledgementBatch,
                                    start_offset: int) -> list[InFlightBatch]:
        """The batches an acknowledgement covers (Kafka's fetchSubMapForAcknowledgementBatch); a range
        the cache does not hold is refused."""
        floor = self.floor(ack.first_offset)
        if floor is None:
            if not ack.first_offset < start_offset <= ack.last_offset:
                raise ShareError(Errors.INVALID_RECORD_STATE, "Batch record not found. "
                                 "The request batch offsets are not found in the cache.")
            floor = self.floor(start_offset)
        batches = self.sub_map(floor.first_offset, ack.last_offset)
        if batches[-1].last_offset < ack.first_offset:
            raise ShareError(Errors.INVALID_REQUEST,
                             "Batch record not found. The first offset in request is past acquired records.")
        if ack.last_offset > batches[-1].last_offset:
            raise ShareError(Errors.INVALID_REQUEST,
                             "Batch record not found. The last offset in request is past acquired records.")
        return batches

    def archive_range(self, first: int, last: int, initial: RecordState) -> bool:
        """archive_records over [first, last], from the batch holding `first` on."""
        floor = self.floor(first)
        return self.archive_records(floor.first_offset if floor else first, first, last, initial)

    def archive_records(self, from_key: int, first: int, last: int, initial: RecordState) -> bool:
        """Kafka's archiveRecords: in the batches from `from_key` to `last`, archive the records of
        [first, last] that are in `initial` state. True if any were."""
        archived = False
        for batch in self.sub_map(from_key, last):
            archived = batch.archive_records(first, last, initial) or archived
        return archived
