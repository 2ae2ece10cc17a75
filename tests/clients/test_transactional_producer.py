"""The transactional producer's requests (KIP-98), driven by hand on a mock clock and a MockClient:
the real RecordAccumulator, Sender and TransactionManager, with the test playing the brokers. It
checks the order Java's TransactionManager sends them in -- FindCoordinator, InitProducerId,
AddPartitionsToTxn before the partition's first batch, AddOffsetsToTxn then TxnOffsetCommit to the
group's coordinator, EndTxn only once every batch is answered -- and how errors are classed."""

from __future__ import annotations

import pytest

from kafka.clients.consumer.consumer_group_metadata import ConsumerGroupMetadata
from kafka.clients.consumer.subscription_state import OffsetAndMetadata
from kafka.clients.errors import KafkaError
from kafka.clients.producer.transaction_manager import State, TransactionManager
from kafka.clients.producer.transactional_request_handlers import GROUP, TRANSACTION
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from tests.clients.test_transaction_manager import NODE, PID, TP0, TP1, Harness, batches_of

TXN_ID = "orders-app"


class TxnHarness(Harness):
    def __init__(self) -> None:
        super().__init__()
        self.tm = TransactionManager(TXN_ID, 30000, retry_backoff_ms=100)
        self.accumulator.transaction_manager = self.tm
        self.sender.transaction_manager = self.tm

    def respond(self, api_key: int, body: dict):
        request = self.client.take(api_key)
        self.client.respond(request, {"throttle_time_ms": 0, **body})
        self.run()
        return request

    def find_coordinator(self, key_type: int, key: str):
        request = self.client.requests(ApiKey.FIND_COORDINATOR)[0]
        assert (request.body["key_type"], request.body["key"]) == (key_type, key)
        return self.respond(ApiKey.FIND_COORDINATOR, {"error_code": 0, "error_message": None,
                                                      "node_id": NODE.node_id, "host": NODE.host,
                                                      "port": NODE.port})

    def init_transactions(self) -> None:
        result = self.tm.initialize_transactions()
        self.run()
        self.find_coordinator(TRANSACTION, TXN_ID)
        init = self.respond(ApiKey.INIT_PRODUCER_ID,
                            {"error_code": 0, "producer_id": PID, "producer_epoch": 3})
        assert init.body["transactional_id"] == TXN_ID and init.body["transaction_timeout_ms"] == 30000
        assert result.is_completed() and result.error is None
        assert self.tm.current_state == State.READY

    def send_in_transaction(self, tp=TP0, records=1):
        self.tm.maybe_add_partition(tp)
        return self.send(tp, records)

    def api_keys_sent(self) -> list[int]:
        return [r.api_key for r in self.client.sent]


def test_a_committed_transaction_sends_its_requests_in_javas_order():
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    futures = h.send_in_transaction(TP0, 2)
    h.run()
    assert h.produce_requests() == []  # not before the partition is in the transaction
    add = h.client.requests(ApiKey.ADD_PARTITIONS_TO_TXN)[0]
    assert add.body["producer_id"] == PID and add.body["producer_epoch"] == 3
    assert add.body["topics"] == [{"name": "t", "partitions": [0]}]
    h.respond(ApiKey.ADD_PARTITIONS_TO_TXN, {"results_by_topic": [
        {"name": "t", "results_by_partition": [{"partition_index": 0, "partition_error_code": 0}]}]})
    (produce,) = h.produce_requests()
    assert produce.body["transactional_id"] == TXN_ID
    batch = batches_of(produce)[TP0]
    assert batch.is_transactional and (batch.producer_id, batch.producer_epoch) == (PID, 3)

    offsets = h.tm.send_offsets_to_transaction({TP1: OffsetAndMetadata(42)},
                                               ConsumerGroupMetadata("g", 5, "member-1", None))
    commit = None
    h.run()
    add_offsets = h.respond(ApiKey.ADD_OFFSETS_TO_TXN, {"error_code": 0})
    assert add_offsets.body["group_id"] == "g"
    h.find_coordinator(GROUP, "g")  # the offsets go to the group's coordinator
    txn_commit = h.client.requests(ApiKey.TXN_OFFSET_COMMIT)[0]
    assert (txn_commit.body["generation_id"], txn_commit.body["member_id"]) == (5, "member-1")
    assert txn_commit.body["topics"][0]["partitions"][0]["committed_offset"] == 42
    h.respond(ApiKey.TXN_OFFSET_COMMIT, {"topics": [{"name": "t", "partitions": [
        {"partition_index": 1, "error_code": 0}]}]})
    assert offsets.is_completed() and offsets.error is None

    commit = h.tm.begin_commit()
    h.run()
    assert h.client.requests(ApiKey.END_TXN) == []  # the Produce is still unanswered
    h.answer(produce)
    h.run()
    assert all(f.done() and f.exception() is None for f in futures)
    end = h.respond(ApiKey.END_TXN, {"error_code": 0})
    assert end.body["committed"] is True
    assert commit.is_completed() and commit.error is None and h.tm.current_state == State.READY
    assert h.api_keys_sent() == [ApiKey.FIND_COORDINATOR, ApiKey.INIT_PRODUCER_ID,
                                 ApiKey.ADD_PARTITIONS_TO_TXN,
                                 ApiKey.PRODUCE, ApiKey.ADD_OFFSETS_TO_TXN, ApiKey.FIND_COORDINATOR,
                                 ApiKey.TXN_OFFSET_COMMIT, ApiKey.END_TXN]


def test_an_abort_after_an_added_partition_sends_end_txn_abort():
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    h.send_in_transaction(TP0)
    h.run()
    h.respond(ApiKey.ADD_PARTITIONS_TO_TXN, {"results_by_topic": [
        {"name": "t", "results_by_partition": [{"partition_index": 0, "partition_error_code": 0}]}]})
    h.answer(h.produce_requests()[0])
    h.run()
    result = h.tm.begin_abort()
    h.run()
    end = h.respond(ApiKey.END_TXN, {"error_code": 0})
    assert end.body["committed"] is False and result.error is None and h.tm.current_state == State.READY


def test_a_transaction_that_sent_nothing_ends_without_a_request():
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    assert h.tm.begin_commit().is_completed()
    h.run()
    assert ApiKey.END_TXN not in h.api_keys_sent()


@pytest.mark.parametrize("error", [Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH])
def test_a_fenced_producer_is_dead(error):
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    h.send_in_transaction(TP0)
    h.run()
    h.respond(ApiKey.ADD_PARTITIONS_TO_TXN, {"results_by_topic": [
        {"name": "t", "results_by_partition": [{"partition_index": 0, "partition_error_code": error}]}]})
    assert h.tm.has_fatal_error() and h.tm.last_error.error == Errors.PRODUCER_FENCED
    with pytest.raises(KafkaError):
        h.tm.begin_abort()
    with pytest.raises(KafkaError):
        h.tm.fail_if_not_ready_for_send()


def test_a_refused_generation_only_aborts_the_transaction():
    """KIP-447: a consumer that lost its partitions cannot commit them, but the producer lives on."""
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    result = h.tm.send_offsets_to_transaction({TP1: OffsetAndMetadata(1)}, ConsumerGroupMetadata("g", 1, "m"))
    h.run()
    h.respond(ApiKey.ADD_OFFSETS_TO_TXN, {"error_code": 0})
    h.find_coordinator(GROUP, "g")
    h.respond(ApiKey.TXN_OFFSET_COMMIT, {"topics": [{"name": "t", "partitions": [
        {"partition_index": 1, "error_code": Errors.ILLEGAL_GENERATION}]}]})
    assert result.error is not None and result.error.error == Errors.ILLEGAL_GENERATION
    assert h.tm.has_abortable_error() and not h.tm.has_fatal_error()
    abort = h.tm.begin_abort()
    h.run()
    h.respond(ApiKey.END_TXN, {"error_code": 0})
    assert abort.error is None and h.tm.current_state == State.READY


def test_not_coordinator_looks_the_coordinator_up_again():
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    h.send_in_transaction(TP0)
    h.run()
    h.respond(ApiKey.ADD_PARTITIONS_TO_TXN, {"results_by_topic": [
        {"name": "t", "results_by_partition": [{"partition_index": 0,
                                                "partition_error_code": Errors.NOT_COORDINATOR}]}]})
    h.find_coordinator(TRANSACTION, TXN_ID)
    h.time.advance(100)
    h.run()
    assert len(h.client.requests(ApiKey.ADD_PARTITIONS_TO_TXN)) == 1  # sent again


def test_send_outside_a_transaction_is_refused():
    h = TxnHarness()
    h.init_transactions()
    with pytest.raises(KafkaError) as e:
        h.tm.maybe_add_partition(TP0)
    assert e.value.error == Errors.INVALID_TXN_STATE


def test_a_transactional_batch_is_marked_in_its_header():
    h = TxnHarness()
    h.init_transactions()
    h.tm.begin_transaction()
    h.send_in_transaction(TP1)
    h.run()
    h.respond(ApiKey.ADD_PARTITIONS_TO_TXN, {"results_by_topic": [
        {"name": "t", "results_by_partition": [{"partition_index": 1, "partition_error_code": 0}]}]})
    batch = batches_of(h.produce_requests()[0])[TP1]
    assert isinstance(batch, RecordBatch) and batch.is_valid() and batch.is_transactional
