"""A transactional Produce that meets CONCURRENT_TRANSACTIONS is asked again before the producer hears of it,
as Kafka 4.4's ReplicaManager.maybeRetryOnConcurrentTransactions does (found by make demo-streams: every
Kafka Streams commit under exactly_once_v2 starts the next transaction while the coordinator is still writing
the previous one's markers, and each first batch came back NOT_ENOUGH_REPLICAS, retried by the client).

The collaborators are real: a TransactionCoordinator over __transaction_state-0 on a ReplicaManager with a
mock clock, its KafkaScheduler, and the AddPartitionsToTxnManager. Only the other brokers are stood in for:
the WriteTxnMarkers the coordinator sends wait in `sent` until the test answers them.
"""

from __future__ import annotations

import threading

import pytest

from kafka.coordinator.transaction.producer_id_manager import RPCProducerIdManager
from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.coordinator.transaction.transaction_marker_channel_manager import MarkerDestination
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.protocol.record_batch import build_batch
from kafka.protocol.schema import Record
from kafka.server.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafka.server.transaction_apis import TransactionApis
from kafka.utils.kafka_scheduler import KafkaScheduler
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

TXN_ID = "wordcount-1"
PRODUCE_V12 = 12  # a client at transaction.version 2: the broker adds the partition to the transaction


class Broker:
    def __init__(self, tmp_path) -> None:
        self.parts = BrokerParts(tmp_path, {"transaction.state.log.num.partitions": "1"})
        self.parts.publish(broker_registration(), *topic_records("orders", 2),
                           *topic_records(TRANSACTION_STATE_TOPIC_NAME, 1),
                           record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="transaction.version",
                                  feature_level=2))
        self.scheduler = KafkaScheduler(self.parts.time)
        self.scheduler.startup()
        self.parts.replica_manager.startup(self.scheduler)
        self.sent: list = []  # (WriteTxnMarkers body, its callback): the partition leaders' answers, pending
        self.coordinator = self._coordinator()
        self.manager = AddPartitionsToTxnManager(self.parts.config, self.coordinator,
                                                 self.parts.replica_manager)
        self.io_thread = IoThread(self.parts.request_helper, TransactionApis(
            self.parts.request_helper, self.parts.auth_helper, self.coordinator, self.parts.metadata_cache))

    def _coordinator(self) -> TransactionCoordinator:
        """Built as KafkaServer builds it (TransactionCoordinator.build); the controller's producer id block
        comes at once, and the markers wait in `sent`."""
        parts = self.parts

        def allocate_producer_ids(body, callback) -> None:
            callback(Record(error_code=Errors.NONE, producer_id_start=1000, producer_id_len=1000),
                     Errors.NONE)

        coordinator = TransactionCoordinator.build(
            NODE_ID, parts.config, parts.replica_manager,
            RPCProducerIdManager(NODE_ID, parts.time, lambda: 1, allocate_producer_ids),
            lambda tp: MarkerDestination(NODE_ID, HOST, PORT),
            lambda destination, body, callback: self.sent.append((body, callback)),
            lambda group_id: 0, parts.time)
        coordinator.is_active.set()
        coordinator.on_election(0, coordinator_epoch=0, load_now=True)
        return coordinator

    def commit_a_transaction_on_orders_0(self) -> tuple[int, int]:
        """InitProducerId, AddPartitionsToTxn orders-0, EndTxn(commit): the transaction is PrepareCommit,
        its marker sent and not answered yet. The producer's id and epoch."""
        init = self.parts.call(self.io_thread, ApiKey.INIT_PRODUCER_ID, 4, dict(
            transactional_id=TXN_ID, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1))
        added = self.parts.call(self.io_thread, ApiKey.ADD_PARTITIONS_TO_TXN, 3, dict(
            transactional_id=TXN_ID, producer_id=init.producer_id, producer_epoch=init.producer_epoch,
            topics=[dict(name="orders", partitions=[0])]))
        assert added.results_by_topic[0].results_by_partition[0].partition_error_code == Errors.NONE
        ended = self.parts.call(self.io_thread, ApiKey.END_TXN, 3, dict(
            transactional_id=TXN_ID, producer_id=init.producer_id, producer_epoch=init.producer_epoch,
            committed=True))
        assert ended.error_code == Errors.NONE
        self.coordinator.txn_marker_channel_manager.do_work()  # the sender thread's round: WriteTxnMarkers
        assert len(self.sent) == 1
        return init.producer_id, init.producer_epoch

    def answer_the_markers(self) -> None:
        """The leader of orders-0 wrote the COMMIT marker: the coordinator completes the transaction."""
        body, callback = self.sent.pop()
        callback(Record(markers=[Record(producer_id=m["producer_id"], topics=[
            Record(name=t["name"], partitions=[Record(partition_index=p, error_code=Errors.NONE)
                                               for p in t["partition_indexes"]]) for t in m["topics"]])
            for m in body["markers"]]), Errors.NONE)

    def produce_next_transaction_to_orders_1(self, producer_id: int,
                                             epoch: int) -> tuple[list, threading.Event]:
        """The next transaction's first batch, for orders-1: the refusals the Produce would answer."""
        answers: list = []
        answered = threading.Event()
        batch = build_batch([(None, b"hello")], producer_id=producer_id, producer_epoch=epoch,
                            base_sequence=0, is_transactional=True)

        def callback(refusals) -> None:
            answers.append(refusals)
            answered.set()
        self.manager.verify_produce(TXN_ID, {TopicPartition("orders", 1): batch}, PRODUCE_V12, callback)
        return answers, answered

    def advance(self, ms: int) -> None:
        self.parts.time.sleep(ms)
        self.scheduler.wakeup()

    def close(self) -> None:
        self.parts.close(self.scheduler.shutdown, self.coordinator.shutdown)


@pytest.fixture
def broker(tmp_path):
    broker = Broker(tmp_path)
    yield broker
    broker.close()


def test_a_batch_that_meets_the_previous_transactions_markers_waits_for_them(broker):
    producer_id, epoch = broker.commit_a_transaction_on_orders_0()
    answers, answered = broker.produce_next_transaction_to_orders_1(producer_id, epoch)
    assert answers == [], "CONCURRENT_TRANSACTIONS (PrepareCommit): asked again in 20 ms, not refused"

    broker.answer_the_markers()  # CompleteCommit written: the coordinator may start the next transaction
    broker.advance(20)
    assert answered.wait(10), "the retry did not run"
    assert answers == [{}], "the partition is in the new transaction: the batch may be appended"


def test_the_producer_hears_not_enough_replicas_once_the_retries_have_run_out(broker):
    producer_id, epoch = broker.commit_a_transaction_on_orders_0()  # its marker is never answered
    answers, answered = broker.produce_next_transaction_to_orders_1(producer_id, epoch)
    for _ in range(5):  # add.partitions.to.txn.retry.backoff.max.ms=100, every 20 ms
        assert answers == []
        broker.advance(20)
    assert answered.wait(10)
    assert answers == [{TopicPartition("orders", 1): (
        Errors.NOT_ENOUGH_REPLICAS,
        "Unable to verify the partition has been added to the transaction. Underlying error: "
        "CONCURRENT_TRANSACTIONS")}]
