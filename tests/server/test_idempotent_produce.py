"""Idempotent produce in a real ReplicaManager (KIP-98): a retry answers NONE with the base offset
of its first append, a sequence gap OUT_OF_ORDER_SEQUENCE_NUMBER, an old epoch INVALID_PRODUCER_EPOCH;
the partition reports its producers for DescribeProducers and the broker counts them (ProducerIdCount)."""

from __future__ import annotations

import pytest

from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import replica_manager_leading

TP = TopicPartition("orders", 0)
PID = 4000


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def replica_manager(tmp_path, time):
    with replica_manager_leading(
            tmp_path, time, TP,
            produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=time),
            fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=time)) as manager:
        yield manager


def produce(manager, records: bytes, acks: int = -1):
    answers = []
    manager.append_records(1000, acks, False, {TP: records}, answers.append)
    (answer,) = answers
    return answer[TP]


def batch(time, seq: int, count: int = 1, epoch: int = 0, pid: int = PID) -> bytes:
    return build_batch([(None, b"v")] * count, timestamp=time.milliseconds(), producer_id=pid,
                       producer_epoch=epoch, base_sequence=seq)


def test_a_retry_is_answered_with_the_first_base_offset_and_written_once(replica_manager, time):
    produce(replica_manager, build_batch([(None, b"x")] * 3))
    records = batch(time, 0, count=2)
    first = produce(replica_manager, records)
    retry = produce(replica_manager, records)
    assert (first.error, first.base_offset) == (retry.error, retry.base_offset) == (Errors.NONE, 3)
    assert replica_manager.get_partition(TP).log.log_end_offset == 5


def test_refused_batches_get_kafkas_error_codes(replica_manager, time):
    produce(replica_manager, batch(time, 0, epoch=2))
    gap = replica_manager.append_to_local_log(TP, batch(time, 5, epoch=2), -1, False)
    assert gap.error == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert "5 (incoming seq. number), 0" in gap.error_message
    assert gap.partition_response().error_message is None  # Kafka answers it without the message
    assert gap.partition_response().log_start_offset == 0  # and with the partition's log start offset
    zombie = produce(replica_manager, batch(time, 1, epoch=1))
    assert zombie.error == Errors.INVALID_PRODUCER_EPOCH
    assert replica_manager.get_partition(TP).log.log_end_offset == 1


def test_the_partition_describes_its_producers_and_the_broker_counts_them(replica_manager, time):
    produce(replica_manager, batch(time, 0, count=3, epoch=1, pid=7))
    produce(replica_manager, batch(time, 9, pid=8))
    producers = sorted(replica_manager.get_partition(TP).active_producer_state(),
                       key=lambda p: p["producer_id"])
    assert producers == [
        dict(producer_id=7, producer_epoch=1, last_sequence=2, last_timestamp=time.milliseconds(),
             coordinator_epoch=-1, current_txn_start_offset=-1),
        dict(producer_id=8, producer_epoch=0, last_sequence=9, last_timestamp=time.milliseconds(),
             coordinator_epoch=-1, current_txn_start_offset=-1)]
    assert replica_manager.producer_id_count() == 2
