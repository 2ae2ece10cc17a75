"""ShareGroupDLQStateManager: the writes to share groups' dead-letter queue topics, sent as Produce requests
to each DLQ partition's leader and retried until they land (Kafka's
org.apache.kafka.server.share.dlq.ShareGroupDLQStateManager and its ProduceRequestHandler).

One handler per enqueued run of offsets. It lives through these steps, each one a callback on the
inter-broker send thread or the timer, so no request thread ever waits on it:

    validate     the group names a DLQ topic, not starting with "__", starting with the broker's
                 errors.deadletterqueue.topic.name.prefix; an existing topic has errors.deadletterqueue.
                 group.enable=true; a missing one may be created (errors.deadletterqueue.auto.create.
                 topics.enable). A failed check is the answer: the records are archived without a DLQ copy
    create       a missing topic: CreateTopics (broker defaults for partitions and replicas, the topic
                 config errors.deadletterqueue.group.enable=true) to a random live broker, then wait for
                 the metadata to show it
    produce      one record per offset, to partition (source partition % DLQ partitions), timestamped
                 now, with the headers below; the key and value are the original record's only with
                 errors.deadletterqueue.copy.record.enable (read back from the local log), else null.
                 A round holds what fits in the topic's max.message.bytes; rounds follow until the last
                 offset is written
    retry        a lost connection, no leader yet, NOT_LEADER_OR_FOLLOWER and the like: wait (exponential
                 backoff from 1 s to 30 s) and try again; after 5 attempts the error is the answer

The headers (Kafka's ProduceRequestHandler.headers), all UTF-8 text: __dlq.errors.topic,
__dlq.errors.partition, __dlq.errors.offset, __dlq.errors.group, __dlq.errors.delivery.count and
__dlq.errors.message (the cause's message).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.clients.metadata import Node
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.protocol.record_stream import DefaultRecord, Header
from kafka.server.replica_manager import FetchParams
from kafka.server.share.dlq.share_group_dlq_metadata_cache_helper import (
    GROUP_ENABLE_CONFIG,
    ShareGroupDLQMetadataCacheHelper,
)
from kafka.server.share.dlq.share_group_dlq_record_parameter import ShareGroupDLQRecordParameter
from kafka.server.share.persister.persister_state_manager import ExponentialBackoffManager
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer
from kafka.utils.timer.timer_task import TimerTask

log = structlog.get_logger("kafka.server.share.dlq.ShareGroupDLQStateManager")

REQUEST_BACKOFF_MS = 1000
REQUEST_BACKOFF_MAX_MS = 30_000
MAX_REQUEST_ATTEMPTS = 5
HEADER_DLQ_ERRORS_TOPIC = "__dlq.errors.topic"
HEADER_DLQ_ERRORS_PARTITION = "__dlq.errors.partition"
HEADER_DLQ_ERRORS_OFFSET = "__dlq.errors.offset"
HEADER_DLQ_ERRORS_GROUP = "__dlq.errors.group"
HEADER_DLQ_ERRORS_DELIVERY_COUNT = "__dlq.errors.delivery.count"
HEADER_DLQ_ERRORS_MESSAGE = "__dlq.errors.message"
RETRIABLE = frozenset({Errors.NETWORK_EXCEPTION, Errors.REQUEST_TIMED_OUT, Errors.NOT_LEADER_OR_FOLLOWER,
                       Errors.LEADER_NOT_AVAILABLE, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                       Errors.NOT_ENOUGH_REPLICAS, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
                       Errors.NOT_CONTROLLER, Errors.KAFKA_STORAGE_ERROR})
RECORD_OVERHEAD_BYTES = 61  # a record batch's header: what a round's records must leave room for


class DLQConfigError(Exception):
    """Kafka's ConfigException from the handler's checks: the DLQ cannot be used, nothing is retried."""


class ShareGroupDLQTimerTask(TimerTask):
    """A handler run again once its backoff has passed."""

    def __init__(self, delay_ms: int, handler: ProduceRequestHandler) -> None:
        super().__init__(delay_ms)
        self.handler = handler

    def run(self) -> None:
        self.handler.manager.enqueue(self.handler)


class ShareGroupDLQStateManager:
    def __init__(self, channel, cache_helper: ShareGroupDLQMetadataCacheHelper, time: Time, timer: Timer,
                 log_reader, backoff_ms: int = REQUEST_BACKOFF_MS,
                 backoff_max_ms: int = REQUEST_BACKOFF_MAX_MS,
                 max_attempts: int = MAX_REQUEST_ATTEMPTS, rng: random.Random | None = None) -> None:
        """`channel`: an InterBrokerSendThread (send(node, api_key, body, callback(body or None, error)));
        `log_reader`: the share partitions' LogReader, to copy records."""
        self.channel = channel
        self.cache_helper = cache_helper
        self.time = time
        self.timer = timer
        self.log_reader = log_reader
        self.backoff_ms = backoff_ms
        self.backoff_max_ms = backoff_max_ms
        self.max_attempts = max_attempts
        self.random = rng or random.Random()
        self._lock = threading.Lock()
        self._started = False
        self._running = True

    def new_backoff(self) -> ExponentialBackoffManager:
        return ExponentialBackoffManager(self.max_attempts, self.backoff_ms, 2, self.backoff_max_ms, 0.2)

    def start(self) -> None:
        """Start the send thread (once; a send starts it if nobody did)."""
        with self._lock:
            if self._started or not self._running:
                return
            self._started = True
        self.channel.start()

    def stop(self) -> None:
        with self._lock:
            self._running = False
            started = self._started
        if started:
            self.channel.shutdown()

    def write(self, param: ShareGroupDLQRecordParameter) -> Future:
        future: Future = Future()
        self.enqueue(ProduceRequestHandler(self, param, future))
        return future

    def enqueue(self, handler: ProduceRequestHandler) -> None:
        if not self._running:
            handler.fail(RuntimeError("the DLQ state manager is stopped"))
            return
        handler.run_round()

    def retry_later(self, handler: ProduceRequestHandler, backoff: ExponentialBackoffManager,
                    error: Errors | str) -> None:
        backoff.increment_attempt()
        if not backoff.can_attempt() or not self._running:
            handler.fail(RuntimeError(f"DLQ write for {handler.param.group_id} failed: {error}"))
            return
        self.timer.add(ShareGroupDLQTimerTask(backoff.back_off(), handler))

    def send(self, node: Node, api_key: ApiKey, body: dict,
             callback: Callable[[dict | None, Errors], None]) -> None:
        self.start()
        self.channel.send(node, api_key, body, callback)


class ProduceRequestHandler:
    def __init__(self, manager: ShareGroupDLQStateManager, param: ShareGroupDLQRecordParameter,
                 future: Future) -> None:
        self.manager = manager
        self.param = param
        self.future = future
        self.helper = manager.cache_helper
        self.next_offset_to_send = param.first_offset
        self.create_topics_backoff = manager.new_backoff()
        self.produce_request_backoff = manager.new_backoff()
        self._create_sent = False
        self._round_first = param.first_offset

    # ------------------------------------------------------------------ the checks
    def dlq_topic(self) -> str:
        topic = self.helper.share_group_dlq_topic(self.param.group_id)
        if topic is None:
            raise DLQConfigError(f"DLQ topic is not configured for share group {self.param.group_id}.")
        return topic

    def validate_dlq_topic(self) -> DLQConfigError | None:
        """Kafka's validateDlqTopic, in its order and words."""
        group = self.param.group_id
        topic = self.helper.share_group_dlq_topic(group)
        if topic is None:
            return DLQConfigError(f"Configured DLQ topic name in share group: {group} is empty.")
        if topic.startswith("__"):
            return DLQConfigError(f"Configured DLQ topic name in share group: {group} cannot start with __, "
                                  f"topic: {topic}.")
        if self.helper.contains_topic(topic) and not self.helper.is_dlq_enabled_on_topic(topic):
            return DLQConfigError(f"DLQ is not enabled on configured DLQ topic for share group: {group}, "
                                  f"topic: {topic}.")
        if not self.helper.contains_topic(topic) and not self.helper.is_dlq_auto_topic_create_enabled():
            return DLQConfigError(f"DLQ topic does not exist and auto create is disabled on cluster for "
                                  f"share group: {group}, topic: {topic}.")
        prefix = self.helper.share_group_dlq_topic_prefix()
        if prefix and not topic.startswith(prefix):
            return DLQConfigError(f"Configured DLQ topic name does not comply with the DLQ topic prefix in "
                                  f"share group: {group}, topic: {topic}, prefix: {prefix}.")
        return None

    # ------------------------------------------------------------------ one round
    def run_round(self) -> None:
        if self.future.done():
            return
        problem = self.validate_dlq_topic()
        if problem is not None:
            self.fail(problem)
            return
        topic = self.dlq_topic()
        if not self.helper.contains_topic(topic):
            self.maybe_create_topic(topic)
            return
        data = self.helper.topic_partition_data(topic)
        if data.topic_id is None or not data.num_partitions:
            self.manager.retry_later(self, self.produce_request_backoff, "no metadata of the DLQ topic yet")
            return
        partition = self.param.topic_id_partition.partition % data.num_partitions
        leader = data.partition_leader_nodes[partition]
        if leader is None:
            self.manager.retry_later(self, self.produce_request_backoff, Errors.LEADER_NOT_AVAILABLE)
            return
        records = self.round_records(self.helper.dlq_topic_max_message_bytes(topic))
        last_index = records[-1].offset  # the round's records are numbered from 0
        batch = build_batch(records, base_offset=0)
        body = {"transactional_id": None, "acks": -1, "timeout_ms": 30_000,
                "topic_data": [{"name": topic, "partition_data": [{"index": partition, "records": batch}]}]}
        self.manager.send(leader, ApiKey.PRODUCE, body,
                          lambda response, error: self.handle_produce_response(response, error, last_index))

    def round_records(self, max_message_bytes: int) -> list[DefaultRecord]:
        """The records of this round: from next_offset_to_send, as many as fit in max_message_bytes (one
        at least), offsets relative to 0 as a producer sends them."""
        now = self.manager.time.milliseconds()
        copied = self.copied_records() if self.helper.is_share_group_dlq_copy_record_enabled(
            self.param.group_id) else {}
        records: list[DefaultRecord] = []
        size = RECORD_OVERHEAD_BYTES
        for offset in range(self.next_offset_to_send, self.param.last_offset + 1):
            key, value = copied.get(offset, (None, None))
            record = DefaultRecord(len(records), now, key, value, self.headers(offset))
            record_size = _record_size(record)
            if records and size + record_size > max_message_bytes:
                break
            records.append(record)
            size += record_size
        self._round_first = self.next_offset_to_send
        return records

    def copied_records(self) -> dict[int, tuple[bytes | None, bytes | None]]:
        """The original keys and values from next_offset_to_send on (Kafka's ShareGroupDLQRecordFetcher),
        read from the local log this broker leads, bounded by the DLQ topic's max.message.bytes."""
        tip = self.param.topic_id_partition
        max_bytes = self.helper.dlq_topic_max_message_bytes(self.dlq_topic())
        params = FetchParams(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes)
        try:
            data = self.manager.log_reader.read(params, {tip: (self.next_offset_to_send, max_bytes)})[tip]
        except Exception as e:  # noqa: BLE001  (the partition moved: the DLQ record goes without its copy)
            log.warning("cannot read the records to copy to the DLQ", partition=str(tip), error=str(e))
            return {}
        copied: dict[int, tuple[bytes | None, bytes | None]] = {}
        if data.error != Errors.NONE or not data.records:
            return copied
        for batch in iter_batches(bytes(data.records)):
            if batch.is_control_batch:
                continue
            for record in batch:
                if self.next_offset_to_send <= record.offset <= self.param.last_offset:
                    copied[record.offset] = (record.key, record.value)
        return copied

    def headers(self, offset: int) -> list[Header]:
        """Kafka's ProduceRequestHandler.headers."""
        param = self.param
        topic = param.topic_id_partition.topic or self.helper.topic_name(
            param.topic_id_partition.topic_id) or str(param.topic_id_partition.topic_id)
        headers = [Header(HEADER_DLQ_ERRORS_TOPIC, topic.encode()),
                   Header(HEADER_DLQ_ERRORS_PARTITION, str(param.topic_id_partition.partition).encode()),
                   Header(HEADER_DLQ_ERRORS_OFFSET, str(offset).encode()),
                   Header(HEADER_DLQ_ERRORS_GROUP, param.group_id.encode())]
        if param.delivery_count is not None:
            headers.append(Header(HEADER_DLQ_ERRORS_DELIVERY_COUNT, str(param.delivery_count).encode()))
        if param.cause is not None and str(param.cause):
            headers.append(Header(HEADER_DLQ_ERRORS_MESSAGE, str(param.cause).encode()))
        return headers

    # ------------------------------------------------------------------ the answers
    def maybe_create_topic(self, topic: str) -> None:
        """The topic is missing and may be created: ask a random live broker once (it forwards to the
        controller), then wait, backing off, until this broker's metadata shows the topic."""
        if self._create_sent:
            self.manager.retry_later(self, self.create_topics_backoff, "the DLQ topic is being created")
            return
        nodes = self.helper.get_cluster_nodes()
        if not nodes:
            self.manager.retry_later(self, self.create_topics_backoff, "no live broker")
            return
        body = {"topics": [{"name": topic, "num_partitions": -1, "replication_factor": -1, "assignments": [],
                            "configs": [{"name": GROUP_ENABLE_CONFIG, "value": "true"},
                                        {"name": "message.timestamp.type", "value": "CreateTime"}]}],
                "timeout_ms": 30_000, "validate_only": False}
        self._create_sent = True
        self.manager.send(self.manager.random.choice(nodes), ApiKey.CREATE_TOPICS, body,
                          self.handle_create_topics_response)

    def handle_create_topics_response(self, response: dict | None, error: Errors) -> None:
        if response is not None and error == Errors.NONE:
            result = response["topics"][0] if response.get("topics") else {}
            error = Errors.for_code(result.get("error_code", 0))
        if error in (Errors.NONE, Errors.TOPIC_ALREADY_EXISTS):
            self.manager.retry_later(self, self.create_topics_backoff, "waiting for the DLQ topic's metadata")
            return
        self._create_sent = False
        if error in RETRIABLE:
            self.manager.retry_later(self, self.create_topics_backoff, error)
        else:
            self.fail(RuntimeError(f"DLQ topic creation failed: {error.name}"))

    def handle_produce_response(self, response: dict | None, error: Errors, last_index: int) -> None:
        if response is not None and error == Errors.NONE:
            partition = response["responses"][0]["partition_responses"][0]
            error = Errors.for_code(partition["error_code"])
        if error == Errors.NONE:
            self.produce_request_backoff.reset_attempts()
            self.next_offset_to_send = self._round_first + last_index + 1
            if self.next_offset_to_send > self.param.last_offset:
                self.future.set_result(None)
            else:
                self.manager.enqueue(self)
        elif error in RETRIABLE:
            self.manager.retry_later(self, self.produce_request_backoff, error)
        else:
            self.fail(RuntimeError(f"DLQ produce failed: {error.name}"))

    def fail(self, error: BaseException) -> None:
        if not self.future.done():
            self.future.set_exception(error)


def _record_size(record: DefaultRecord) -> int:
    """A generous bound on the record's encoded size (varints at their widest)."""
    size = 21 + len(record.key or b"") + len(record.value or b"")
    return size + sum(10 + len(h.key.encode()) + len(h.value or b"") for h in record.headers)
