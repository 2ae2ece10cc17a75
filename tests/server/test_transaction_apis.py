"""TransactionApis without a broker, over a real TransactionCoordinator whose state lives in
__transaction_state-0 on a real ReplicaManager: a producer gets its id, adds partitions, commits.
Beside it the two other doors of a transaction, each built with the coordinator as a collaborator
instead of reaching into TransactionApis: FindCoordinator for a transactional id (GroupApis), and a
transactional Produce checked by the AddPartitionsToTxnManager before anything is appended (KafkaApis)."""

from __future__ import annotations

import pytest

from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.server.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.fetch_manager import FetchManager
from kafka.server.fetch_session import FetchSessionCache
from kafka.server.group_apis import GroupApis
from kafka.server.kafka_apis import KafkaApis
from kafka.server.transaction_apis import TransactionApis
from kafka.utils.topic_partition import TopicPartition
from tests.server.handler_harness import (
    HOST,
    NODE_ID,
    PORT,
    BrokerParts,
    IoThread,
    broker_registration,
    topic_records,
)

TXN_ID = "orders-tx"


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path,
                        {"transaction.state.log.num.partitions": "1", "offsets.topic.num.partitions": "1"})
    parts.txn_coordinator = parts.transaction_coordinator()
    parts.publish(broker_registration(), *topic_records("orders", 2),
                  *topic_records(TRANSACTION_STATE_TOPIC_NAME, 1))
    parts.txn_coordinator.on_election(0, coordinator_epoch=0, load_now=True)  # as the publisher asks it to
    yield parts
    parts.close(parts.txn_coordinator.shutdown)


def transaction_apis(parts: BrokerParts) -> IoThread:
    family = TransactionApis(parts.request_helper, parts.auth_helper, parts.txn_coordinator,
                             parts.metadata_cache)
    return IoThread(parts.request_helper, family)


def begin(parts: BrokerParts, io_thread: IoThread) -> tuple[int, int]:
    """InitProducerId, then AddPartitionsToTxn orders-0: the producer's id and epoch."""
    init = parts.call(io_thread, ApiKey.INIT_PRODUCER_ID, 4, dict(
        transactional_id=TXN_ID, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1))
    assert (init.error_code, init.producer_id, init.producer_epoch) == (Errors.NONE, 1000, 0)
    added = parts.call(io_thread, ApiKey.ADD_PARTITIONS_TO_TXN, 3, dict(
        transactional_id=TXN_ID, producer_id=init.producer_id, producer_epoch=0,
        topics=[dict(name="orders", partitions=[0])]))
    results = added.results_by_topic[0].results_by_partition
    assert [(r.partition_index, r.partition_error_code) for r in results] == [(0, Errors.NONE)]
    return init.producer_id, init.producer_epoch


def test_a_producer_gets_its_id_adds_a_partition_and_commits(parts):
    io_thread = transaction_apis(parts)
    producer_id, epoch = begin(parts, io_thread)

    unknown = parts.call(io_thread, ApiKey.ADD_PARTITIONS_TO_TXN, 3, dict(
        transactional_id=TXN_ID, producer_id=producer_id, producer_epoch=epoch,
        topics=[dict(name="orders", partitions=[1]), dict(name="gone", partitions=[0])]))
    assert {(t.name, r.partition_index): r.partition_error_code for t in unknown.results_by_topic
            for r in t.results_by_partition} == {("orders", 1): Errors.OPERATION_NOT_ATTEMPTED,
                                                 ("gone", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION}

    ended = parts.call(io_thread, ApiKey.END_TXN, 3, dict(
        transactional_id=TXN_ID, producer_id=producer_id, producer_epoch=epoch, committed=True))
    assert ended.error_code == Errors.NONE, "answered once PrepareCommit is in __transaction_state"


def test_find_coordinator_for_a_transactional_id_names_its_partitions_leader(parts):
    group_coordinator, timer = parts.group_coordinator()
    try:
        family = GroupApis(parts.request_helper, parts.auth_helper, group_coordinator, parts.metadata_cache,
                           AutoTopicCreationManager(parts.config, parts.admin_manager), parts.config,
                           parts.txn_coordinator)
        (found,) = parts.call(IoThread(parts.request_helper, family), ApiKey.FIND_COORDINATOR, 4,
                              dict(key_type=1, coordinator_keys=[TXN_ID])).coordinators
    finally:
        group_coordinator.shutdown()
        timer.shutdown()
    assert (found.error_code, found.node_id, found.host, found.port) == (Errors.NONE, NODE_ID, HOST, PORT)


def test_a_transactional_produce_to_a_partition_not_in_the_transaction_is_refused_before_the_log(parts):
    producer_id, epoch = begin(parts, transaction_apis(parts))
    apis = KafkaApis(parts.request_helper, parts.auth_helper, parts.replica_manager, parts.metadata_cache,
                     FetchManager(parts.time, FetchSessionCache(10)),
                     AutoTopicCreationManager(parts.config, parts.admin_manager), parts.forwarding_manager,
                     parts.config, add_partitions_to_txn_manager=AddPartitionsToTxnManager(
                         parts.config, parts.txn_coordinator, parts.replica_manager))

    def batch() -> bytes:
        return build_batch([(None, b"v")], producer_id=producer_id, producer_epoch=epoch, base_sequence=0,
                           is_transactional=True)

    response = parts.call(apis, ApiKey.PRODUCE, 9,
                          dict(transactional_id=TXN_ID, acks=-1, timeout_ms=1000, topic_data=[
        dict(name="orders",
             partition_data=[dict(index=0, records=batch()), dict(index=1, records=batch())])]))

    by_partition = {p.index: (p.error_code, p.error_message)
                    for p in response.responses[0].partition_responses}
    assert by_partition == {0: (Errors.NONE, None),
                            1: (Errors.INVALID_TXN_STATE, "Partition was not added to the transaction")}
    assert parts.replica_manager.get_partition(TopicPartition("orders", 1)).log.log_end_offset == 0
