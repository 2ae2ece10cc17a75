"""Sender: the producer's I/O thread (Kafka's producer.internals.Sender).

It loops: ask the RecordAccumulator which nodes have ready batches, check each node is ready in
the NetworkClient (connected, below max.in.flight, and no metadata refresh due -- seed 003),
drain their batches into one Produce request per node, and poll the NetworkClient, which writes
the requests and hands back responses. A response completes each batch's futures, or puts the
batch back for a retry (retriable error, ``retries`` left, within ``delivery.timeout.ms``), or
fails it.
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
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import SYSTEM, Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.producer.Sender")


class Sender(threading.Thread):
    def __init__(self, client: NetworkClient, metadata: Metadata, accumulator: RecordAccumulator, *,
                 acks: int, retries: int, request_timeout_ms: int, max_request_size: int,
                 guarantee_message_order: bool, time: Time = SYSTEM, name: str = "kafka-producer-network-thread") -> None:
        super().__init__(name=name, daemon=True)
        self.client = client
        self.metadata = metadata
        self.accumulator = accumulator
        self.acks = acks
        self.retries = retries
        self.request_timeout_ms = request_timeout_ms
        self.max_request_size = max_request_size
        self.guarantee_message_order = guarantee_message_order  # max.in.flight.requests.per.connection == 1
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
            self.accumulator.abort_incomplete_batches(KafkaError(Errors.NETWORK_EXCEPTION, "producer closed forcefully"))
        self.client.close()

    def _run_once_safely(self) -> None:
        try:
            self.run_once()
        except Exception:  # keep the I/O thread alive whatever one iteration does
            log.exception("uncaught error in the producer's sender thread")

    def run_once(self) -> None:
        poll_timeout = self.send_producer_data(self.time.hi_res_clock_ms())
        self.client.poll(poll_timeout)

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
        for batch in self.accumulator.expired_batches(now_ms):
            self._fail_batch(batch, KafkaTimeoutError(
                f"expiring {batch.record_count} record(s) for {batch.topic_partition}: "
                f"{now_ms - batch.created_ms} ms has passed since batch creation (delivery.timeout.ms)"))
        for node_id, batches in batches_by_node.items():
            if batches:
                self.send_produce_request(node_id, batches)
        return min(result.next_ready_check_delay_ms, not_ready_timeout, self.request_timeout_ms)

    def send_produce_request(self, node_id: int, batches: list[ProducerBatch]) -> None:
        """One Produce request carries one batch per partition that ``node_id`` leads."""
        by_topic: dict[str, list[dict]] = defaultdict(list)
        by_tp = {}
        for batch in batches:
            tp = batch.topic_partition
            by_topic[tp.topic].append({"index": tp.partition, "records": batch.build()})
            by_tp[tp] = batch
        body = {"transactional_id": None, "acks": self.acks, "timeout_ms": self.request_timeout_ms,
                "topic_data": [{"name": t, "partition_data": parts} for t, parts in by_topic.items()]}
        self.client.send(ClientRequest(
            node_id, ApiKey.PRODUCE, body, expect_response=self.acks != 0,
            callback=lambda response: self.handle_produce_response(response, by_tp)))

    def handle_produce_response(self, response: ClientResponse, batches: dict[TopicPartition, ProducerBatch]) -> None:
        now_ms = self.time.hi_res_clock_ms()
        if response.error is not None or response.disconnected:
            error = response.error if isinstance(response.error, KafkaError) else KafkaError(Errors.NETWORK_EXCEPTION)
            for batch in batches.values():
                self.complete_batch(batch, error.error, -1, -1, now_ms, str(error))
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
                                        p.log_append_time_ms, now_ms, p.get("error_message"))
        for batch in batches.values():  # a partition the broker did not mention
            self.complete_batch(batch, Errors.UNKNOWN_SERVER_ERROR, -1, -1, now_ms, "no response for partition")

    def complete_batch(self, batch: ProducerBatch, error: Errors, base_offset: int, log_append_time: int,
                       now_ms: int, message: str | None = None) -> None:
        if error != Errors.NONE and self._can_retry(batch, error, now_ms):
            log.info("retrying batch", partition=str(batch.topic_partition), attempt=batch.attempts,
                     error=error.name)
            if error in STALE_METADATA_ERRORS or error == Errors.NETWORK_EXCEPTION:
                self.metadata.request_update()
            self.accumulator.reenqueue(batch, now_ms)
        elif error != Errors.NONE:
            if error in STALE_METADATA_ERRORS:
                self.metadata.request_update()
            self._fail_batch(batch, KafkaError(error, message))
        else:
            batch.done(base_offset, log_append_time)
            self.accumulator.deallocate(batch)
        if self.guarantee_message_order:
            self.accumulator.unmute(batch.topic_partition)

    def _can_retry(self, batch: ProducerBatch, error: Errors, now_ms: int) -> bool:
        return (batch.attempts <= self.retries and error.retriable
                and not batch.has_reached_delivery_timeout(self.accumulator.delivery_timeout_ms, now_ms))

    def _fail_batch(self, batch: ProducerBatch, exception: BaseException) -> None:
        batch.done(-1, exception=exception)
        self.accumulator.deallocate(batch)

    def initiate_close(self) -> None:
        self.accumulator.close()
        self.running = False
        self.client.wakeup()

    def force_close_now(self) -> None:
        self.force_close = True
        self.initiate_close()
