"""The replica check's judgement on hand-made logs (tests/nemesis/replica_check.py): no cluster, no hosts.

An ISR member may lag behind the high watermark, but every batch it holds below it must be the
leader's (base offset, last offset, CRC). Also: the segment files read as a live node leaves them (a
partial batch at the end), the verdict line's count, and the nemesis waiting for the check between faults.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka.protocol.record_batch import RecordBatch, build_batch
from tests.nemesis.checker import Verdict
from tests.nemesis.nemesis import Fault, Nemesis
from tests.nemesis.replica_check import Divergence, first_difference, segment_digests

pytestmark = pytest.mark.fast

LEADER = [(0, 4, 0xA0), (5, 9, 0xA5), (10, 14, 0xAA), (15, 19, 0xAF)]


def test_a_member_equal_to_its_leader_below_the_high_watermark_agrees():
    assert first_difference(LEADER, list(LEADER), high_watermark=20) is None


def test_a_member_behind_the_high_watermark_only_lags():
    assert first_difference(LEADER, LEADER[:2], high_watermark=20) is None
    assert first_difference(LEADER, [], high_watermark=20) is None


def test_what_lies_at_or_above_the_high_watermark_is_not_judged():
    follower = [*LEADER[:2], (10, 12, 0xEE)]  # not committed yet: the leader may still truncate it
    assert first_difference(LEADER, follower, high_watermark=10) is None


def test_a_healed_old_leader_keeping_its_own_tail_below_the_high_watermark_diverges():
    old_leader = [*LEADER[:1], (5, 7, 0x01D), (8, 9, 0x01E)]  # appended while cut off, never truncated
    assert first_difference(LEADER, old_leader, high_watermark=20) == ((5, 9, 0xA5), (5, 7, 0x01D))


def test_the_same_offsets_with_another_crc_diverge():
    follower = [LEADER[0], (5, 9, 0xBAD), *LEADER[2:]]
    assert first_difference(LEADER, follower, high_watermark=20) == ((5, 9, 0xA5), (5, 9, 0xBAD))


def test_a_batch_missing_below_the_members_log_end_diverges():
    follower = [LEADER[0], LEADER[2]]  # a hole at 5..9
    assert first_difference(LEADER, follower, high_watermark=20) == ((5, 9, 0xA5), (10, 14, 0xAA))


def test_a_batch_the_leader_lacks_below_the_high_watermark_diverges():
    follower = [*LEADER, (20, 24, 0xB4)]
    assert first_difference(LEADER, follower, high_watermark=25) == (None, (20, 24, 0xB4))


def batch(base: int, count: int, value: bytes = b"v") -> bytes:
    return build_batch([(None, value)] * count, base_offset=base)


def test_segment_files_are_read_in_offset_order_up_to_the_first_partial_batch(tmp_path: Path):
    (tmp_path / "00000000000000000000.log").write_bytes(batch(0, 3) + batch(3, 2))
    half_written = batch(12, 4)
    (tmp_path / "00000000000000000005.log").write_bytes(batch(5, 7) + half_written[:30])
    (tmp_path / "00000000000000000005.index").write_bytes(b"\0" * 8)  # not a segment
    digests = segment_digests(tmp_path)
    assert [(base, last) for base, last, _ in digests] == [(0, 2), (3, 4), (5, 11)]
    assert digests[0][2] == RecordBatch(batch(0, 3)).crc != RecordBatch(batch(0, 3, b"other")).crc


def test_nothing_after_a_partial_batch_is_read_not_even_a_later_segment(tmp_path: Path):
    (tmp_path / "00000000000000000000.log").write_bytes(batch(0, 3) + batch(3, 2)[:40])
    (tmp_path / "00000000000000000005.log").write_bytes(batch(5, 1))
    assert [(base, last) for base, last, _ in segment_digests(tmp_path)] == [(0, 2)]


def test_the_verdict_counts_each_diverged_replica_once_and_is_not_ok():
    def found(partition: str, node: int, when: str) -> Divergence:
        return Divergence(partition, node, 1, (1, 2, 3), 20, (5, 9, 0xA5), (5, 7, 0x01D), when)

    verdict = Verdict(seed=1, faults=3, diverged=[found("nemesis-0", 3, "after heal 2 (split)"),
                                                  found("nemesis-0", 3, "at the end"),
                                                  found("nemesis-2", 2, "at the end")])
    assert not verdict.ok
    assert "0 reordered, 2 diverged ISR replicas;" in verdict.line()
    assert ("diverged ISR replica: nemesis-0 on node 3 (ISR [1, 2, 3], leader 1) after heal 2 (split): below "
            "the high watermark 20 its first differing batch is offsets 5..7 (CRC 0x0000001d), the leader's "
            "offsets 5..9 (CRC 0x000000a5)") in verdict.details()
    assert Verdict(seed=1, faults=3).ok
    assert "0 diverged ISR replicas" in Verdict(seed=1, faults=3).line()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakeNode:
    def pause(self) -> None:
        pass


class FakeCluster:
    nodes = {1: FakeNode(), 2: FakeNode(), 3: FakeNode()}

    def restore(self) -> None:
        pass


class FakeHosts:
    def heal(self) -> None:
        pass


def test_the_schedule_waits_for_the_check_after_each_heal_and_keeps_each_fault_whole():
    clock, checks = FakeClock(), []
    faults = [Fault(5.0, "pause", 1, 8.0), Fault(16.0, "pause", 2, 7.0)]

    def check(k: int, fault: Fault) -> None:
        checks.append((k, fault.target, clock.now))
        clock.now += 20.0  # a slow check: the nodes took their time to agree

    nemesis = Nemesis(FakeHosts(), FakeCluster(), log=lambda line: None, after_heal=check)
    nemesis.run(faults, start=0.0, clock=clock, sleep=clock.sleep)
    # healed at 13, checked until 33; the second fault still comes 3 s after, and holds its 7 s
    assert checks == [(1, 1, 13.0), (2, 2, 43.0)]
