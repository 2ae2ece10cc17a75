"""Sender: the producer's I/O thread (Kafka's producer.internals.Sender).

It loops: ask the RecordAccumulator which nodes have ready batches, check each node is ready in
the NetworkClient (connected, below max.in.flight, and no metadata refresh due -- seed 003),
drain their batches into one Produce request per node, and poll the NetworkClient, which writes
the requests and hands back responses. A response completes each batch's futures, or puts the
batch back for a retry (retriable error, ``retries`` left, within ``delivery.timeout.ms``), or
fails it.

With idempotence the loop starts with the TransactionManager (seed 004's cure for duplicates on
retry). It gets a producer id with InitProducerId before any batch is drained, and it bumps the
epoch when an error asked for it. A fatal error fails every queued batch. A batch answered
DUPLICATE_SEQUENCE_NUMBER is a success: the leader already has it.
"""

from __future__ import annotations

import threading
from collections import defaultdict

import structlog

from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.errors import KafkaError, KafkaTimeoutError
from kafka.clients.metadata import STALE_METADATA_ERRORS, Metadata
from kafka.clients.network_client import NetworkClient
from kafka.clients.producer.producer_batch import ProducerBatch
from kafka.clients.producer.record_accumulator import RecordAccumulator
from kafka.clients.producer.transaction_manager import TransactionManager
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.Sender")


class Sender(threading.Thread):
    def __init__(self, client: NetworkClient, metadata: Metadata, accumulator: RecordAccumulator, *,
                 acks: int, retries: int, request_timeout_ms: int, max_request_size: int,
                 guarantee_message_order: bool, retry_backoff_ms: int = 100,
                 transaction_manager: TransactionManager | None = None, time: Time,
                 name: str = "kafka-producer-network-thread") -> None:
        super().__init__(name=name, daemon=True)
        self.client = client
        self.metadata = metadata
        self.accumulator = accumulator
        self.acks = acks
        self.retries = retries
        self.request_timeout_ms = request_timeout_ms
        self.max_request_size = max_request_size
        self.guarantee_message_order = guarantee_message_order  # max.in.flight.requests.per.connection == 1
        self.retry_backoff_ms = retry_backoff_ms
        self.transaction_manager = transaction_manager  # None unless enable.idempotence
        self.time = time
        self.running = True
        self.force_close = False

    def run(self) -> None:
        while self.running:
            self._run_once_safely()
        # Graceful close: send what is left and wait for the answers (unless told to hurry).
        while not self.force_close and (self.accumulator.has_undrained() or self.client.has_pending()):
            self._run_once_safely()
        if self.force_close:
            if self.transaction_manager is not None:
                self.transaction_manager.close()
            self.accumulator.abort_incomplete_batches(KafkaError(Errors.NETWORK_EXCEPTION,
                                                                 "producer closed forcefully"))
        self.client.close()

    def _run_once_safely(self) -> None:
        try:
            self.run_once()
        except Exception:  # keep the I/O thread alive whatever one iteration does
            log.exception("uncaught error in the producer's sender thread")

    def run_once(self) -> None:
        tm = self.transaction_manager
        if tm is not None:
            tm.maybe_resolve_sequences()
            if tm.has_fatal_error():
                # Nothing more can be sent: fail what is queued, keep answering what is in flight.
                self.accumulator.abort_incomplete_batches(tm.last_error)
                self.client.poll(self.retry_backoff_ms)
                return
            if tm.has_abortable_error():
                # The transaction can only abort: what is not sent yet never will be.
                self.accumulator.abort_incomplete_batches(tm.last_error)
            tm.bump_idempotent_epoch_and_reset_id_if_needed()
            if self.maybe_send_and_poll_transactional_request():
                # Batches still expire while we wait for a producer id (a broker that never answers).
                self._fail_expired_batches(self.time.hi_res_clock_ms())
                return
        poll_timeout = self.send_producer_data(self.time.hi_res_clock_ms())
        self.client.poll(poll_timeout)

    def maybe_send_and_poll_transactional_request(self) -> bool:
        """Send the TransactionManager's next request to the least loaded node or its coordinator, or
        wait for the one in flight. True when this loop was spent on it, not on producer data."""
        tm = self.transaction_manager
        if tm.has_in_flight_request():
            self.client.poll(self.retry_backoff_ms)
            return True
        now_ms = self.time.hi_res_clock_ms()
        has_incomplete = self.accumulator.has_incomplete()
        handler = tm.next_request(now_ms, has_incomplete)
        if handler is None:
            backoff = tm.time_to_next_request(now_ms, has_incomplete)
            if backoff is None:
                return False
            self.client.poll(backoff)  # a retry backing off (retry.backoff.ms)
            return True
        if handler.coordinator_type is None:
            node = self.client.least_loaded_node(now_ms)
        else:
            node = tm.coordinator(handler.coordinator_type)
            if node is None:  # find it first, then send this again
                tm.lookup_coordinator(handler.coordinator_type, handler.coordinator_key())
                tm.enqueue(handler)
                return True
        if node is None:
            tm.retry(handler, now_ms)
            self.client.poll(self.retry_backoff_ms)
            return True
        request = ClientRequest(node.node_id, handler.api_key, handler.request_body(),
                                callback=handler.on_complete,
                                timeout_ms=self.request_timeout_ms, max_version=handler.max_version)
        tm.set_in_flight_request(request)
        self.client.send(request)
        self.client.poll(self.retry_backoff_ms)
        return True

    def send_producer_data(self, now_ms: int) -> int:
        cluster = self.metadata.cluster
        result = self.accumulator.ready(cluster, now_ms)
        if result.unknown_leader_topics:
            self.metadata.add_topics(*result.unknown_leader_topics)
            self.metadata.request_update()
        not_ready_timeout = 2**31 - 1
        ready_nodes = []
        for node_id in result.ready_nodes:
            if self.client.ready(node_id, now_ms):
                ready_nodes.append(node_id)
            else:
                not_ready_timeout = min(not_ready_timeout, self.client.connection_delay(node_id, now_ms))
        batches_by_node = self.accumulator.drain(cluster, ready_nodes, self.max_request_size, now_ms)
        if self.guarantee_message_order:
            for batches in batches_by_node.values():
                for batch in batches:
                    self.accumulator.mute(batch.topic_partition)
        unresolved = self._fail_expired_batches(now_ms)
        for node_id, batches in batches_by_node.items():
            if batches:
                self.send_produce_request(node_id, batches)
        if unresolved:
            return 0  # the next loop may resolve it at once (maybe_resolve_sequences)
        return min(result.next_ready_check_delay_ms, not_ready_timeout, self.request_timeout_ms)

    def _fail_expired_batches(self, now_ms: int) -> bool:
        """Fail the batches past delivery.timeout.ms; True if one left a partition unresolved."""
        tm = self.transaction_manager
        unresolved = False
        for batch in self.accumulator.expired_batches(now_ms):
            self._fail_batch(batch, KafkaTimeoutError(
                f"expiring {batch.record_count} record(s) for {batch.topic_partition}: "
                f"{now_ms - batch.created_ms} ms has passed since batch creation (delivery.timeout.ms)"),
                False)
            if tm is not None and batch.attempts > 0:
                # It was sent and never answered: it may or may not be in the log. Hand out no
                # more sequences there until the partition's answers show which.
                tm.mark_sequence_unresolved(batch)
                unresolved = True
        return unresolved

    def send_produce_request(self, node_id: int, batches: list[ProducerBatch]) -> None:
        """One Produce request carries one batch per partition that ``node_id`` leads."""
        by_topic: dict[str, list[dict]] = defaultdict(list)
        by_tp = {}
        for batch in batches:
            tp = batch.topic_partition
            by_topic[tp.topic].append({"index": tp.partition, "records": batch.build()})
            by_tp[tp] = batch
        tm = self.transaction_manager
        transactional_id = tm.transactional_id if tm is not None else None
        body = {"transactional_id": transactional_id, "acks": self.acks,
                "timeout_ms": self.request_timeout_ms,
                "topic_data": [{"name": t, "partition_data": parts} for t, parts in by_topic.items()]}
        self.client.send(ClientRequest(
            node_id, ApiKey.PRODUCE, body, expect_response=self.acks != 0,
            callback=lambda response: self.handle_produce_response(response, by_tp),
            max_version=11 if transactional_id is not None else None))  # v12+: transaction.version 2

    def handle_produce_response(self, response: ClientResponse,
                                batches: dict[TopicPartition, ProducerBatch]) -> None:
        now_ms = self.time.hi_res_clock_ms()
        if response.error is not None or response.disconnected:
            error = response.error if isinstance(response.error,
                                                 KafkaError) else KafkaError(Errors.NETWORK_EXCEPTION)
            for batch in batches.values():
                self.complete_batch(batch, error.error, -1, -1, now_ms, str(error), error)
            return
        if response.body is None:  # acks=0: written is all we will ever know
            for batch in batches.values():
                self.complete_batch(batch, Errors.NONE, -1, -1, now_ms)
            return
        for topic in response.body.responses:
            for p in topic.partition_responses:
                batch = batches.pop(TopicPartition(topic.name, p.index), None)
                if batch is not None:
                    self.complete_batch(batch, Errors.for_code(p.error_code), p.base_offset,
                                        p.log_append_time_ms, now_ms, p.get("error_message"),
                                        log_start_offset=p.log_start_offset)
        for batch in batches.values():  # a partition the broker did not mention
            self.complete_batch(batch, Errors.UNKNOWN_SERVER_ERROR, -1, -1, now_ms,
                                "no response for partition")

    def complete_batch(self, batch: ProducerBatch, error: Errors, base_offset: int, log_append_time: int,
                       now_ms: int, message: str | None = None, exception: KafkaError | None = None,
                       log_start_offset: int = -1) -> None:
        tm = self.transaction_manager
        if error != Errors.NONE and self._can_retry(batch, error, log_start_offset, now_ms):
            if tm is not None and not tm.has_producer_id_and_epoch(batch.producer_id, batch.producer_epoch):
                # The id or epoch changed meanwhile (another partition's error bumped it): this
                # batch's sequence means nothing under the new one, so it cannot be retried safely.
                self._fail_batch(batch, KafkaError(
                    Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    f"attempted to retry sending a batch but the producer id and epoch changed from "
                    f"{batch.producer_id}/{batch.producer_epoch} to {tm.producer_id_and_epoch.producer_id}/"
                    f"{tm.producer_id_and_epoch.epoch} in the meantime; this batch will be dropped"), False)
            else:
                log.info("retrying batch", partition=str(batch.topic_partition), attempt=batch.attempts,
                         error=error.name, sequence=batch.base_sequence)
                self.accumulator.reenqueue(batch, now_ms)
            if error in STALE_METADATA_ERRORS or error == Errors.NETWORK_EXCEPTION:
                self.metadata.request_update()
        elif error == Errors.DUPLICATE_SEQUENCE_NUMBER:
            # The leader already has this batch, but no longer remembers its offset: a success
            # without an offset. (Kafka brokers today answer a duplicate with NONE and the offset.)
            self._complete_batch_successfully(batch, base_offset, log_append_time)
        elif error != Errors.NONE:
            if error in STALE_METADATA_ERRORS:
                self.metadata.request_update()
            # Only with retries left do we know the broker refused the batch; after the last
            # attempt it may be in the log, so its sequence must not be handed out again.
            self._fail_batch(batch, exception or KafkaError(error, message), batch.attempts <= self.retries)
        else:
            self._complete_batch_successfully(batch, base_offset, log_append_time)
        if self.guarantee_message_order:
            self.accumulator.unmute(batch.topic_partition)

    def _complete_batch_successfully(self, batch: ProducerBatch, base_offset: int,
                                     log_append_time: int) -> None:
        if self.transaction_manager is not None:
            self.transaction_manager.handle_completed_batch(batch, base_offset)
        batch.done(base_offset, log_append_time)
        self.accumulator.deallocate(batch)

    def _can_retry(self, batch: ProducerBatch, error: Errors, log_start_offset: int, now_ms: int) -> bool:
        delivery_timeout_ms = self.accumulator.delivery_timeout_ms
        if batch.attempts > self.retries or batch.has_reached_delivery_timeout(delivery_timeout_ms, now_ms):
            return False
        tm = self.transaction_manager
        return error.retriable if tm is None else tm.can_retry(error, log_start_offset, batch)

    def _fail_batch(self, batch: ProducerBatch, exception: BaseException,
                    adjust_sequence_numbers: bool) -> None:
        batch.done(-1, exception=exception)
        if self.transaction_manager is not None:
            self.transaction_manager.handle_failed_batch(batch, exception, adjust_sequence_numbers)
        self.accumulator.deallocate(batch)

    def initiate_close(self) -> None:
        self.accumulator.close()
        self.running = False
        self.client.wakeup()

    def force_close_now(self) -> None:
        self.force_close = True
        self.initiate_close()
