"""The idempotent producer's bookkeeping, driven by hand on a mock clock and a MockClient (no broker).

The RecordAccumulator, Sender and TransactionManager are the real ones. The test plays the broker:
it answers InitProducerId and Produce requests, or drops the connection, and checks what the next
requests carry: producer id, epoch and base sequence in each batch header.
"""

from __future__ import annotations

import pytest

from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Cluster, Metadata, Node, PartitionInfo
from kafka.clients.producer.buffer_pool import BufferPool
from kafka.clients.producer.producer_id_and_epoch import ProducerIdAndEpoch
from kafka.clients.producer.record_accumulator import RecordAccumulator
from kafka.clients.producer.sender import Sender
from kafka.clients.producer.transaction_manager import MAX_PRODUCER_EPOCH, State, TransactionManager
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.compression import CompressionType
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.clients.mock_client import MockClient

TP0 = TopicPartition("t", 0)
TP1 = TopicPartition("t", 1)
NODE = Node(1, "127.0.0.1", 9092)
CLUSTER = Cluster({1: NODE}, {"t": [PartitionInfo("t", 0, 1), PartitionInfo("t", 1, 1)]})
PID = 4000
RETRY_BACKOFF_MS = 100
# 400-byte values: two records fill a 1024-byte batch, so every second send opens a new batch.
VALUE = b"v" * 400


class Harness:
    def __init__(self, unsupported_apis=frozenset(), retries=2**31 - 1, delivery_timeout_ms=120000) -> None:
        self.time = MockTime()
        self.tm = TransactionManager(retry_backoff_ms=RETRY_BACKOFF_MS)
        self.accumulator = RecordAccumulator(1024, CompressionType.NONE, 0, RETRY_BACKOFF_MS,
                                             delivery_timeout_ms,
                                             BufferPool(1 << 20), self.time, transaction_manager=self.tm)
        self.metadata = Metadata()
        self.metadata.cluster, self.metadata.need_update = CLUSTER, False
        self.client = MockClient(self.time, NODE, frozenset(unsupported_apis))
        self.sender = Sender(self.client, self.metadata, self.accumulator, acks=-1, retries=retries,
                             request_timeout_ms=30000, max_request_size=1 << 20,
                             guarantee_message_order=False,
                             retry_backoff_ms=RETRY_BACKOFF_MS, transaction_manager=self.tm, time=self.time)
        self.log_end: dict[TopicPartition, int] = {}

    def send(self, tp=TP0, records=2):
        return [self.accumulator.append(tp, 0, None, VALUE, [], None, 1000, abort_on_new_batch=False).future
                for _ in range(records)]

    def run(self, loops=5):
        for _ in range(loops):
            self.sender.run_once()

    def init_producer_id(self, epoch=0):
        self.run()
        request = self.client.take(ApiKey.INIT_PRODUCER_ID)
        self.client.respond(request, {"throttle_time_ms": 0, "error_code": 0, "producer_id": PID,
                                      "producer_epoch": epoch})
        self.run()
        assert self.tm.producer_id_and_epoch == (PID, epoch)

    def produce_requests(self):
        return self.client.requests(ApiKey.PRODUCE)

    def answer(self, request, errors=None):
        """Answer a Produce request: NONE (appending at the partition's log end) unless ``errors``
        gives (error, log_start_offset) for a partition."""
        topics = []
        for topic in request.body["topic_data"]:
            partitions = []
            for p in topic["partition_data"]:
                tp = TopicPartition(topic["name"], p["index"])
                error, log_start = (errors or {}).get(tp, (Errors.NONE, 0))
                base_offset = -1
                if error == Errors.NONE:
                    base_offset = self.log_end.get(tp, 0)
                    self.log_end[tp] = base_offset + RecordBatch(p["records"]).records_count
                partitions.append({"index": p["index"], "error_code": error, "base_offset": base_offset,
                                   "log_append_time_ms": -1, "log_start_offset": log_start,
                                   "record_errors": [],
                                   "error_message": None})
            topics.append({"name": topic["name"], "partition_responses": partitions})
        self.client.respond(request, {"responses": topics, "throttle_time_ms": 0})


def batches_of(request) -> dict[TopicPartition, RecordBatch]:
    return {TopicPartition(t["name"], p["index"]): RecordBatch(p["records"])
            for t in request.body["topic_data"] for p in t["partition_data"]}


def stamp(batch: RecordBatch) -> tuple[int, int, int, int]:
    return batch.producer_id, batch.producer_epoch, batch.base_sequence, batch.records_count


def test_no_batch_goes_before_init_producer_id_then_each_batch_is_numbered_per_partition():
    h = Harness()
    h.send(TP0, 6)  # three batches of two records
    h.send(TP1, 1)
    h.run()
    assert [r.api_key for r in h.client.sent] == [ApiKey.INIT_PRODUCER_ID]
    init = h.client.requests(ApiKey.INIT_PRODUCER_ID)[0]
    assert init.body["transactional_id"] is None and init.node_id == NODE.node_id
    h.init_producer_id()
    # One batch per partition per request, up to max.in.flight requests: all three go at once.
    sent = [batches_of(r) for r in h.produce_requests()]
    assert [stamp(b[TP0]) for b in sent] == [(PID, 0, 0, 2), (PID, 0, 2, 2), (PID, 0, 4, 2)]
    assert stamp(sent[0][TP1]) == (PID, 0, 0, 1)  # every partition counts from 0
    for request in h.produce_requests():
        h.answer(request)
    h.run()
    assert h.tm.sequence_number(TP0) == 6 and h.tm.last_acked_sequence(TP0) == 5
    assert not h.tm.has_in_flight_batches(TP0)


def test_a_retried_batch_keeps_its_sequence_and_its_bytes():
    h = Harness()
    futures = h.send(TP0, 2)
    h.init_producer_id()
    first = h.produce_requests()[0]
    h.client.disconnect(first)  # the response is lost: seed 004's case
    h.run()
    assert h.produce_requests() == []  # retry.backoff.ms first
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    retry = h.produce_requests()[0]
    assert retry.body["topic_data"][0]["partition_data"][0]["records"] == \
        first.body["topic_data"][0]["partition_data"][0]["records"]
    h.answer(retry)
    h.run()
    assert [f.result(0).offset for f in futures] == [0, 1]
    assert h.tm.sequence_number(TP0) == 2


def test_retries_go_back_in_sequence_order_and_one_at_a_time():
    h = Harness()
    h.send(TP0, 6)
    h.init_producer_id()
    in_flight = h.produce_requests()
    assert len(in_flight) == 3
    for request in in_flight:  # the connection breaks: all three fail, oldest first
        h.client.disconnect(request)
    h.run()
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    # The three came back in sequence order, and only the first goes until it is answered.
    assert [stamp(batches_of(r)[TP0])[2] for r in h.produce_requests()] == [0]
    h.answer(h.produce_requests()[0])
    h.run()
    assert [stamp(batches_of(r)[TP0])[2] for r in h.produce_requests()] == [2]
    h.answer(h.produce_requests()[0])
    h.run()
    assert [stamp(batches_of(r)[TP0])[2] for r in h.produce_requests()] == [4]


def test_duplicate_sequence_number_is_a_success():
    h = Harness()
    futures = h.send(TP0, 2)
    h.init_producer_id()
    h.answer(h.produce_requests()[0], {TP0: (Errors.DUPLICATE_SEQUENCE_NUMBER, 0)})
    h.run()
    # The leader already has the batch; it just cannot say at which offset any more.
    assert [f.result(0).offset for f in futures] == [-1, -1]
    assert h.tm.last_acked_sequence(TP0) == 1 and not h.tm.has_in_flight_batches(TP0)


def test_out_of_order_sequence_of_the_next_batch_bumps_the_epoch_and_renumbers_from_zero():
    h = Harness()
    futures = h.send(TP0, 4)
    h.init_producer_id()
    first, second = h.produce_requests()
    h.answer(first)
    h.answer(second, {TP0: (Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, 0)})  # a gap: seq 2 was expected
    h.run()
    assert h.tm.producer_id_and_epoch == (PID, 1)
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    retry = h.produce_requests()[0]
    assert stamp(batches_of(retry)[TP0]) == (PID, 1, 0, 2)  # the new epoch starts at sequence 0
    h.answer(retry)
    h.send(TP0, 2)
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 1, 2, 2)
    assert all(f.exception(0) is None for f in futures)


def test_out_of_order_sequence_behind_an_unanswered_batch_is_retried_without_a_bump():
    h = Harness()
    h.send(TP0, 4)
    h.init_producer_id()
    first, second = h.produce_requests()
    # The second batch fails first (say, after a leader change): the first is not answered yet,
    # so this is no gap, only a batch that arrived too early.
    h.answer(second, {TP0: (Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, 0)})
    h.run()
    assert h.tm.producer_id_and_epoch == (PID, 0) and not h.tm.epoch_bump_required
    h.answer(first)
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 0, 2, 2)


def test_unknown_producer_id_after_retention_bumps_the_epoch():
    h = Harness()
    h.send(TP0, 4)
    h.init_producer_id()
    first, second = h.produce_requests()
    h.answer(first)  # offsets 0-1 acknowledged
    # Retention deleted the log up to offset 5, and with it the leader's state for this producer.
    h.answer(second, {TP0: (Errors.UNKNOWN_PRODUCER_ID, 5)})
    h.run()
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 1, 0, 2)


def test_unknown_producer_id_without_a_log_start_offset_is_retried_as_is():
    h = Harness()
    h.send(TP0, 2)
    h.init_producer_id()
    h.answer(h.produce_requests()[0], {TP0: (Errors.UNKNOWN_PRODUCER_ID, -1)})
    h.run()
    h.time.advance(RETRY_BACKOFF_MS)
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 0, 0, 2)


@pytest.mark.parametrize("error", [Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE,
                                   Errors.NOT_COORDINATOR, None])
def test_init_producer_id_is_retried_after_retry_backoff_ms(error):
    h = Harness()
    h.send(TP0, 1)
    h.run()
    request = h.client.take(ApiKey.INIT_PRODUCER_ID)
    if error is None:
        h.client.disconnect(request)
    else:
        h.client.respond(request, {"throttle_time_ms": 0, "error_code": error, "producer_id": -1,
                                   "producer_epoch": -1})
    h.run()
    assert h.client.requests(ApiKey.INIT_PRODUCER_ID) == []  # backing off
    h.time.advance(RETRY_BACKOFF_MS - 1)
    h.run()
    assert h.client.requests(ApiKey.INIT_PRODUCER_ID) == []
    h.time.advance(1)
    h.init_producer_id()
    assert len(h.produce_requests()) == 1


def test_a_broker_without_init_producer_id_fails_the_sends_fatally():
    h = Harness(unsupported_apis={ApiKey.INIT_PRODUCER_ID})
    futures = h.send(TP0, 2) + h.send(TP1, 1)
    h.run()
    for future in futures:
        error = future.exception(0)
        assert isinstance(error, KafkaError) and error.error == Errors.UNSUPPORTED_VERSION
        assert "INIT_PRODUCER_ID" in str(error) and "enable.idempotence=false" in str(error)
    assert h.tm.has_fatal_error() and h.produce_requests() == []
    with pytest.raises(KafkaError, match="UNSUPPORTED_VERSION"):
        h.tm.fail_if_not_ready_for_send()  # what KafkaProducer.send checks first


def test_a_non_retriable_init_producer_id_error_is_fatal():
    h = Harness()
    future = h.send(TP0, 1)[0]
    h.run()
    h.client.respond(h.client.take(ApiKey.INIT_PRODUCER_ID), {
        "throttle_time_ms": 0, "producer_id": -1, "error_code": Errors.CLUSTER_AUTHORIZATION_FAILED,
        "producer_epoch": -1})
    h.run()
    assert future.exception(0).error == Errors.CLUSTER_AUTHORIZATION_FAILED
    assert h.tm.current_state == State.FATAL_ERROR


def test_an_exhausted_epoch_asks_init_producer_id_for_a_new_producer_id():
    h = Harness()
    h.send(TP0, 2)
    h.init_producer_id(epoch=MAX_PRODUCER_EPOCH)
    h.answer(h.produce_requests()[0])
    h.run()
    h.tm.request_epoch_bump_for_partition(TP0)
    h.send(TP0, 2)
    h.run()
    request = h.client.take(ApiKey.INIT_PRODUCER_ID)
    assert request.body["producer_id"] == -1  # not a bump: a fresh id
    h.client.respond(request,
                     {"throttle_time_ms": 0, "error_code": 0, "producer_id": PID + 1, "producer_epoch": 0})
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID + 1, 0, 0, 2)


def test_a_batch_that_expires_after_it_was_sent_holds_back_the_partition_until_resolved():
    h = Harness(delivery_timeout_ms=RETRY_BACKOFF_MS // 2)
    expired = h.send(TP0, 2)
    h.init_producer_id()
    h.client.disconnect(h.produce_requests()[0])
    h.run()
    h.time.advance(RETRY_BACKOFF_MS // 2)  # still backing off when delivery.timeout.ms runs out
    later = h.send(TP0, 2)
    h.run(1)
    assert isinstance(expired[0].exception(0), KafkaError)
    # Nobody knows whether the expired batch reached the log, and nothing is in flight to tell:
    # the partition starts a new epoch, so the next batch cannot be taken for a gap or a duplicate.
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 1, 0, 2)
    h.answer(h.produce_requests()[0])
    h.run()
    assert later[0].result(0).offset == 0


def test_a_batch_the_broker_refused_leaves_a_gap_that_a_new_epoch_closes():
    h = Harness()
    refused = h.send(TP0, 2)
    h.init_producer_id()
    h.answer(h.produce_requests()[0], {TP0: (Errors.INVALID_RECORD, 0)})
    h.run()
    assert refused[0].exception(0).error == Errors.INVALID_RECORD
    h.send(TP0, 2)
    h.run()
    assert stamp(batches_of(h.produce_requests()[0])[TP0]) == (PID, 1, 0, 2)


def test_sequences_wrap_at_int32_max():
    tm = TransactionManager()
    tm.producer_id_and_epoch = ProducerIdAndEpoch(PID, 0)
    tm.maybe_update_producer_id_and_epoch(TP0)
    tm.topic_partition_bookkeeper.get_partition(TP0).next_sequence = 2**31 - 2
    tm.increment_sequence_number(TP0, 3)
    assert tm.sequence_number(TP0) == 1
