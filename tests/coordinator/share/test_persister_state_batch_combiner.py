"""PersisterStateBatchCombiner: the merge a WriteShareGroupState applies over the state held, checked by
hand on the cases that teach it and against Kafka 4.4's own answers on random ones (data/)."""

from __future__ import annotations

import pathlib

import pytest

from kafka.coordinator.share.persister_state_batch import PersisterStateBatch as B
from kafka.coordinator.share.persister_state_batch_combiner import PersisterStateBatchCombiner

pytestmark = pytest.mark.fast

AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4
CASES = pathlib.Path(__file__).parent / "data" / "persister_state_batch_combiner_cases.txt"


def combine(so_far, new, start_offset=-1):
    return PersisterStateBatchCombiner(so_far, new, start_offset).combine_state_batches()


def test_nothing_and_one_batch_come_back_as_they_are():
    assert combine([], []) == []
    assert combine(None, [B(1, 5, AVAILABLE, 1)]) == [B(1, 5, AVAILABLE, 1)]


def test_the_higher_delivery_count_wins_where_batches_overlap():
    assert combine([B(0, 9, ACKNOWLEDGED, 1)], [B(5, 14, AVAILABLE, 2)]) == [
        B(0, 4, ACKNOWLEDGED, 1), B(5, 14, AVAILABLE, 2)]
    # whichever side the newer news comes from
    assert combine([B(5, 14, AVAILABLE, 2)], [B(0, 9, ACKNOWLEDGED, 1)]) == [
        B(0, 4, ACKNOWLEDGED, 1), B(5, 14, AVAILABLE, 2)]


def test_at_the_same_count_the_later_state_wins():
    assert combine([B(0, 9, AVAILABLE, 1)], [B(3, 5, ARCHIVED, 1), B(4, 7, ACKNOWLEDGED, 1)]) == [
        B(0, 2, AVAILABLE, 1), B(3, 5, ARCHIVED, 1), B(6, 7, ACKNOWLEDGED, 1), B(8, 9, AVAILABLE, 1)]


def test_a_batch_inside_another_splits_it_in_three():
    assert combine([B(0, 9, AVAILABLE, 1)], [B(4, 5, ACKNOWLEDGED, 2)]) == [
        B(0, 3, AVAILABLE, 1), B(4, 5, ACKNOWLEDGED, 2), B(6, 9, AVAILABLE, 1)]


def test_neighbours_alike_are_coalesced_and_gaps_are_kept():
    assert combine([B(0, 4, ACKNOWLEDGED, 1)], [B(5, 9, ACKNOWLEDGED, 1), B(20, 21, AVAILABLE, 1)]) == [
        B(0, 9, ACKNOWLEDGED, 1), B(20, 21, AVAILABLE, 1)]


def test_the_start_offset_prunes_and_cuts():
    assert combine([B(0, 9, ACKNOWLEDGED, 1), B(10, 19, AVAILABLE, 1)], [B(3, 12, ARCHIVED, 2)], 11) == [
        B(11, 12, ARCHIVED, 2), B(13, 19, AVAILABLE, 1)]
    assert combine([B(0, 9, ACKNOWLEDGED, 1)], [], 10) == []


def _parse(text: str) -> list[B]:
    return [B(*map(int, b.split(","))) for b in text.split(";")] if text else []


def test_random_cases_match_kafka_4_4():
    lines = [line for line in CASES.read_text().splitlines() if not line.startswith("#")]
    assert len(lines) >= 50
    for line in lines:
        so_far, new, start_offset, kafka_says = line.split("|")
        assert combine(_parse(so_far), _parse(new), int(start_offset)) == _parse(kafka_says), line
