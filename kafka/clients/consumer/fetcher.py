"""Fetcher: Fetch requests to partition leaders, and turning their batches into records
(Kafka's consumer.internals.Fetcher, AbstractFetch and CompletedFetch).

Seed 002's fetch journey from the client's side: for every broker that leads some of our
partitions, one Fetch request names each partition and the offset to read from. The broker holds
the request in its purgatory until ``fetch.min.bytes`` are ready or ``fetch.max.wait.ms`` passes,
so an idle consumer costs one request per ``fetch.max.wait.ms``, not a busy loop. Each leader
keeps a fetch session for us (KIP-227, fetch_session_handler.py): once it knows our partitions, a
request names only those whose position moved, and the answer only those with news. The answer
carries RecordBatches exactly as the producer wrote them -- compressed, if they were -- and here
they are checked (CRC), decompressed and cut into records, at most ``max.poll.records`` per poll.

With ``isolation.level=read_committed`` (KIP-98) the broker answers only up to the last stable
offset and lists, per partition, the aborted transactions that start in the answer (producer id,
first offset). CompletedFetch then skips each aborted producer's transactional batches from that
first offset until the producer's ABORT marker. Markers are never returned, in either level; the
position moves past them.
"""

from __future__ import annotations

import heapq
import threading
from collections import deque
from collections.abc import Iterator

import structlog

from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.consumer.consumer_record import CREATE_TIME, LOG_APPEND_TIME, ConsumerRecord
from kafka.clients.consumer.subscription_state import SubscriptionState
from kafka.clients.errors import KafkaError
from kafka.clients.fetch_session_handler import FetchSessionHandler, PartitionData
from kafka.clients.metadata import STALE_METADATA_ERRORS, Metadata
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.control_records import ABORT, read_end_txn_marker
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import NO_PRODUCER_ID, RecordBatch, iter_batches
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.consumer.Fetcher")

READ_COMMITTED = 1
FETCH_VERSION_WITHOUT_TOPIC_IDS = 12  # the last Fetch version that names topics (KIP-516 from 13)


class CompletedFetch:
    """One partition's data from one Fetch response, consumed record by record across polls."""

    def __init__(self, tp: TopicPartition, fetch_offset: int, data, check_crcs: bool,
                 isolation_level: int = 0) -> None:
        self.tp = tp
        self.fetch_offset = fetch_offset
        self.error = Errors.for_code(data.error_code)
        self.high_watermark = data.high_watermark
        self.records = data.records or b""
        self.next_fetch_offset = fetch_offset
        self._check_crcs = check_crcs
        self.isolation_level = isolation_level
        # (first offset, producer id) of the aborted transactions, earliest first; a producer
        # becomes aborted once a batch reaches its first offset, until its ABORT marker.
        self._aborted_transactions = [(t.first_offset, t.producer_id)
                                      for t in (data.get("aborted_transactions") or ())]
        heapq.heapify(self._aborted_transactions)
        self._aborted_producer_ids: set[int] = set()
        self._batches = self._returned_batches() if self.error == Errors.NONE else iter(())
        self._iterator = self._records()

    def _consume_aborted_transactions_up_to(self, offset: int) -> None:
        while self._aborted_transactions and self._aborted_transactions[0][0] <= offset:
            self._aborted_producer_ids.add(heapq.heappop(self._aborted_transactions)[1])

    def _skip_for_isolation(self, batch: RecordBatch) -> bool:
        """read_committed: is this batch part of an aborted transaction (or its ABORT marker)?"""
        if self.isolation_level != READ_COMMITTED or batch.producer_id == NO_PRODUCER_ID:
            return False
        self._consume_aborted_transactions_up_to(batch.last_offset)
        if batch.is_control_batch and batch.is_transactional:
            if read_end_txn_marker(batch)[0] == ABORT:
                self._aborted_producer_ids.discard(batch.producer_id)
            return True
        return batch.is_transactional and batch.producer_id in self._aborted_producer_ids

    def _returned_batches(self) -> Iterator[RecordBatch]:
        """The batches whose records the user gets: CRC-checked, without markers or aborted ones."""
        for batch in iter_batches(self.records):
            if self._check_crcs:
                batch.ensure_valid()  # raises CorruptRecordError, which poll() surfaces
            if self._skip_for_isolation(batch) or batch.is_control_batch:
                # Transaction markers are for the broker, not the user; an aborted batch is as if
                # never written. Either way the position moves past it.
                self.next_fetch_offset = max(self.next_fetch_offset, batch.next_offset)
                continue
            yield batch

    def _records(self) -> Iterator[ConsumerRecord]:
        for batch in self._batches:
            timestamp_type = LOG_APPEND_TIME if batch.is_log_append_time else CREATE_TIME
            for record in batch:
                if record.offset < self.next_fetch_offset:  # a batch can start before our position
                    continue
                timestamp = batch.max_timestamp if batch.is_log_append_time else record.timestamp
                yield ConsumerRecord(self.tp.topic, self.tp.partition, record.offset, timestamp,
                                     timestamp_type,
                                     record.key, record.value, [(h.key, h.value) for h in record.headers])
            # Compaction can leave gaps at a batch's end: move past the whole batch.
            self.next_fetch_offset = max(self.next_fetch_offset, batch.next_offset)

    def take(self, max_records: int) -> list[ConsumerRecord]:
        out = []
        for record in self._iterator:
            out.append(record)
            self.next_fetch_offset = record.offset + 1
            if len(out) >= max_records:
                break
        return out

    def take_batches(self) -> list[RecordBatch]:
        """Every remaining batch, whole (the first may start before the position): for a reader
        that decodes records itself, column by column. The position moves past all of them."""
        batches = list(self._batches)
        if batches:
            self.next_fetch_offset = max(self.next_fetch_offset, batches[-1].next_offset)
        return batches


class Fetcher:
    def __init__(self, client: NetworkClient, metadata: Metadata, subscriptions: SubscriptionState, config,
                 time: Time) -> None:
        self.client = client
        self.metadata = metadata
        self.subscriptions = subscriptions
        self.time = time
        self.min_bytes = config["fetch.min.bytes"]
        self.max_bytes = config["fetch.max.bytes"]
        self.max_wait_ms = config["fetch.max.wait.ms"]
        self.max_partition_bytes = config["max.partition.fetch.bytes"]
        self.max_poll_records = config["max.poll.records"]
        self.check_crcs = config["check.crcs"]
        self.isolation_level = READ_COMMITTED if config["isolation.level"] == "read_committed" else 0
        self._completed: deque[CompletedFetch] = deque()
        self._next_in_line: CompletedFetch | None = None
        self._nodes_with_pending_fetch: set[int] = set()
        self._sessions: dict[int, FetchSessionHandler] = {}  # node id -> our fetch session with it
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ asking
    def send_fetches(self) -> int:
        """One Fetch per leader of our fetchable partitions that has none in flight already. Each
        leader keeps a fetch session (KIP-227): after the first request, only changes are sent."""
        requests = self._prepare_fetch_requests()
        for node_id, partitions in requests.items():
            session = self._sessions.setdefault(node_id, FetchSessionHandler(node_id))
            data = session.build({tp: PartitionData(offset, self.max_partition_bytes)
                                  for tp, offset in partitions.items()})
            by_topic: dict[str, list[dict]] = {}
            for tp, p in data.to_send.items():
                by_topic.setdefault(tp.topic, []).append(
                    {"partition": tp.partition, "fetch_offset": p.fetch_offset,
                     "partition_max_bytes": p.max_bytes})
            forgotten: dict[str, list[int]] = {}
            for tp in data.to_forget:
                forgotten.setdefault(tp.topic, []).append(tp.partition)
            body = {"replica_id": -1, "max_wait_ms": self.max_wait_ms, "min_bytes": self.min_bytes,
                    "max_bytes": self.max_bytes, "isolation_level": self.isolation_level,
                    "session_id": data.session_id, "session_epoch": data.epoch,
                    "topics": [{"topic": t, "partitions": ps} for t, ps in by_topic.items()],
                    "forgotten_topics_data": [{"topic": t, "partitions": ps} for t, ps in forgotten.items()],
                    "rack_id": ""}
            with self._lock:
                self._nodes_with_pending_fetch.add(node_id)
            # The broker may hold a fetch for max_wait_ms: give it that long on top of the timeout.
            # At most v12, by topic name: the Java consumer's version when it cannot name every topic by
            # id (FetchSessionHandler.canUseTopicIds), and this client's Metadata keeps no topic ids.
            self.client.send(ClientRequest(node_id, ApiKey.FETCH, body,
                                           max_version=FETCH_VERSION_WITHOUT_TOPIC_IDS,
                                           timeout_ms=self.client.request_timeout_ms + self.max_wait_ms,
                                           callback=lambda r,
                                           p=partitions: self._handle_fetch_response(r, p)))
        return len(requests)

    def _prepare_fetch_requests(self) -> dict[int, dict[TopicPartition, int]]:
        buffered = self._buffered_partitions()
        requests: dict[int, dict[TopicPartition, int]] = {}
        cluster = self.metadata.cluster
        for tp in self.subscriptions.fetchable_partitions():
            if tp in buffered:
                continue  # records for it are still waiting to be returned by poll()
            leader = cluster.leader_for(tp)
            if leader is None:
                self.metadata.add_topics(tp.topic)
                self.metadata.request_update()
                continue
            with self._lock:
                if leader.node_id in self._nodes_with_pending_fetch:
                    continue
            position = self.subscriptions.position(tp)
            if position is not None:
                requests.setdefault(leader.node_id, {})[tp] = position
        return requests

    def _buffered_partitions(self) -> set[TopicPartition]:
        with self._lock:
            tps = {c.tp for c in self._completed}
            if self._next_in_line is not None:
                tps.add(self._next_in_line.tp)
            return tps

    def _handle_fetch_response(self, response: ClientResponse, partitions: dict[TopicPartition, int]) -> None:
        with self._lock:
            self._nodes_with_pending_fetch.discard(response.request.node_id)
        session = self._sessions[response.request.node_id]
        if response.body is None:
            session.handle_error()
            if response.disconnected:
                self.metadata.request_update()
            return
        if not session.handle_response(Errors.for_code(response.body.error_code), response.body.session_id):
            return  # the session was lost: nothing in this response, the next request is a full one
        for topic in response.body.responses:
            for data in topic.partitions:
                tp = TopicPartition(topic.topic, data.partition_index)
                if tp in partitions:
                    with self._lock:
                        self._completed.append(CompletedFetch(tp, partitions[tp], data, self.check_crcs,
                                                             self.isolation_level))

    # ------------------------------------------------------------------ returning records
    def has_completed_fetches(self) -> bool:
        with self._lock:
            return bool(self._completed) or self._next_in_line is not None

    def fetched_records(self) -> dict[TopicPartition, list[ConsumerRecord]]:
        """Up to max.poll.records records, advancing each partition's position past them."""
        out: dict[TopicPartition, list[ConsumerRecord]] = {}
        remaining = self.max_poll_records
        while remaining > 0:
            with self._lock:
                if self._next_in_line is None:
                    if not self._completed:
                        break
                    self._next_in_line = self._initialize(self._completed.popleft())
                completed = self._next_in_line
            if completed is None:
                continue
            tp = completed.tp
            if not self._still_wanted(completed):
                with self._lock:  # revoked, seeked or paused since we asked: drop what we have
                    self._next_in_line = None
                continue
            start = completed.next_fetch_offset
            records = completed.take(remaining)
            self.subscriptions.maybe_advance(tp, start, completed.next_fetch_offset)
            if records:
                out.setdefault(tp, []).extend(records)
                remaining -= len(records)
            else:
                with self._lock:
                    self._next_in_line = None
        return out

    def fetched_batches(self) -> dict[TopicPartition, list[RecordBatch]]:
        """The buffered fetches as record batches instead of records (``KafkaConsumer.poll_batches``):
        the same checks and skips as ``fetched_records``, no ``max.poll.records`` limit."""
        out: dict[TopicPartition, list[RecordBatch]] = {}
        while True:
            with self._lock:
                completed = self._next_in_line if self._next_in_line is not None else (
                    self._initialize(self._completed.popleft()) if self._completed else None)
                self._next_in_line = None
                if completed is None and not self._completed:
                    break
            if completed is None:
                continue
            tp = completed.tp
            if not self._still_wanted(completed):
                continue  # revoked, seeked or paused since we asked: drop what we have
            start = completed.next_fetch_offset
            batches = completed.take_batches()
            self.subscriptions.maybe_advance(tp, start, completed.next_fetch_offset)
            out.setdefault(tp, []).extend(batches)
        return out

    def _still_wanted(self, completed: CompletedFetch) -> bool:
        """Is the partition still assigned, unpaused, and at the position this fetch started from?"""
        tp = completed.tp
        subscriptions = self.subscriptions
        return (subscriptions.is_assigned(tp) and subscriptions.position(tp) == completed.next_fetch_offset
                and tp not in subscriptions.paused_partitions())

    def _initialize(self, completed: CompletedFetch) -> CompletedFetch | None:
        """Act on a partition's error code; None if the fetch carries nothing to return."""
        tp, error = completed.tp, completed.error
        if not self.subscriptions.is_assigned(tp):
            return None
        if error == Errors.NONE:
            self.subscriptions.update_high_watermark(tp, completed.high_watermark)
            return completed
        if error == Errors.OFFSET_OUT_OF_RANGE:
            if self.subscriptions.position(tp) == completed.fetch_offset:
                if self.subscriptions.default_reset_strategy == "none":
                    raise KafkaError(error, f"offset {completed.fetch_offset} is out of range for {tp} "
                                            "and auto.offset.reset is none")
                log.info("offset out of range, resetting", partition=str(tp), offset=completed.fetch_offset)
                self.subscriptions.request_offset_reset(tp)
        elif error in STALE_METADATA_ERRORS:
            self.metadata.request_update()
        else:
            raise KafkaError(error, f"fetching {tp}")
        return None

    def clear_buffered(self) -> None:
        with self._lock:
            self._completed.clear()
            self._next_in_line = None
