"""kafka-replica-verification's comparison: batches below the common high watermark must match by
offset and CRC on every replica (the cluster test runs the whole tool against three nodes)."""

from __future__ import annotations

from kafka.tools.replica_verification import first_mismatch
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)


def test_identical_replicas_match():
    batches = [(0, 9, 111), (10, 14, 222)]
    assert first_mismatch(TP, {1: batches, 2: list(batches), 3: list(batches)}) is None


def test_a_different_checksum_is_reported_as_kafka_prints_it():
    assert first_mismatch(TP, {1: [(0, 9, 111), (10, 14, 222)], 2: [(0, 9, 111), (10, 14, 999)]}) == (
        "Partition orders-0 has unmatched checksum at offset 10; replica 1's checksum 222; "
        "replica 2's checksum 999")


def test_a_replica_missing_batches_is_reported():
    assert "replica 2 is missing batches" in first_mismatch(TP, {1: [(0, 9, 1), (10, 14, 2)], 2: [(0, 9, 1)]})
