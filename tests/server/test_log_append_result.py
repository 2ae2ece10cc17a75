"""LogAppendResult (Kafka's ReplicaManager.LogAppendResult): a real ReplicaManager's append of one
partition says what was appended or why not, whether the high watermark moved, and what acks=all
waits for, in one object instead of nested tuples."""

from __future__ import annotations

import pytest

from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.log_append_result import LogAppendResult
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import replica_manager_leading

TP = TopicPartition("orders", 0)


@pytest.fixture
def replica_manager(tmp_path):
    time = MockTime()
    with replica_manager_leading(
            tmp_path, time, TP,
            produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=time),
            fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=time)) as manager:
        yield manager


def test_an_append_result_carries_the_info_the_answer_and_the_offset_acks_all_waits_for(replica_manager):
    replica_manager.append_to_local_log(TP, build_batch([(None, b"x")] * 2), 1, False)
    result = replica_manager.append_to_local_log(TP, build_batch([(None, b"y")] * 3), -1, False)
    assert isinstance(result, LogAppendResult)
    assert (result.error, result.info.first_offset, result.required_offset) == (Errors.NONE, 2, 5)
    assert result.hw_moved, "a single-replica ISR commits at once"
    response = result.partition_response()
    assert (response.error, response.base_offset, response.log_start_offset) == (Errors.NONE, 2, 0)


def test_a_refused_append_carries_its_error_and_no_offset(replica_manager):
    result = replica_manager.append_to_local_log(TP, b"\x00" * 70, -1, False)
    assert (result.info, result.error, result.required_offset, result.hw_moved) == (
        None, Errors.CORRUPT_MESSAGE, -1, False)
    assert result.error_message and result.partition_response().error_message is None  # Kafka answers none
    internal = replica_manager.append_to_local_log(TopicPartition("__consumer_offsets", 0), b"", -1, False)
    assert internal.error == Errors.INVALID_TOPIC_EXCEPTION
