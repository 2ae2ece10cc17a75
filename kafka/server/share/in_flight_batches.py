"""InFlightBatches: a SharePartition's cached state, its in-flight batches in offset order (Kafka's
NavigableMap<Long, InFlightBatch> cachedState, with the walks SharePartition makes over it).

Keyed by each batch's first offset, with the NavigableMap lookups SharePartition needs: the batch
holding an offset (floor), the batches starting in a range (sub_map), dropping the front. And the two
walks from the front: where the first AVAILABLE record is, and how far the records are all done.
Not thread-safe on its own: the SharePartition's lock guards it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from kafka.server.share.in_flight_batch import InFlightBatch
from kafka.server.share.record_state import RecordState


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

    def first_available_offset(self) -> int | None:
        """The first AVAILABLE record not in the middle of a change, or None."""
        for batch in self:
            if batch.offset_state is None:
                if batch.state is RecordState.AVAILABLE and not batch.has_ongoing_state_transition():
                    return batch.first_offset
                continue
            for offset, state in batch.offset_state.items():
                if state.state is RecordState.AVAILABLE and not state.has_ongoing_state_transition():
                    return offset
        return None

    def last_offset_acknowledged(self) -> int:
        """The end of the run of ACKNOWLEDGED/ARCHIVED records at the front (-1: none), Kafka's
        findLastOffsetAcknowledged: where the start offset may move to, less one."""
        last = -1
        for batch in self:
            for offset, state in batch.states():
                if state.has_ongoing_state_transition() or not state.state.is_terminal:
                    return last
                last = offset if batch.offset_state is not None else batch.last_offset
        return last
