"""KafkaConsumer: ``poll()`` for records from assigned or subscribed partitions
(Kafka's clients.consumer.KafkaConsumer).

Each ``poll()`` does, in order: keep the group membership going (ConsumerCoordinator: join,
rebalance, auto-commit), give every partition without a position one (the committed offset,
else ListOffsets for ``auto.offset.reset``), return records the Fetcher already holds, or else
send Fetch requests to the partitions' leaders and wait for them in the NetworkClient.

    consumer = KafkaConsumer({"bootstrap.servers": "127.0.0.1:9092", "group.id": "g",
                              "auto.offset.reset": "earliest"})
    consumer.subscribe(["orders"])
    for record in consumer.poll(1000):
        print(record.partition, record.offset, record.key, record.value)
    consumer.close()
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafka.clients.client_config import CONSUMER, ClientConfig
from kafka.clients.consumer.consumer_coordinator import ConsumerCoordinator, ConsumerRebalanceListener
from kafka.clients.consumer.consumer_group_metadata import ConsumerGroupMetadata
from kafka.clients.consumer.consumer_record import ConsumerRecords
from kafka.clients.consumer.fetcher import READ_COMMITTED, Fetcher
from kafka.clients.consumer.offset_fetcher import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, OffsetFetcher
from kafka.clients.consumer.subscription_state import OffsetAndMetadata, SubscriptionState
from kafka.clients.errors import KafkaError, KafkaTimeoutError
from kafka.clients.metadata import Metadata
from kafka.clients.network_client import NetworkClient
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from kafka.utils.time import SYSTEM, Time
from kafka.utils.topic_partition import TopicPartition

_client_ids = itertools.count(1)


class KafkaConsumer:
    def __init__(self, config: Mapping[str, Any] | None = None, time: Time = SYSTEM, **kwargs: Any) -> None:
        self.config = ClientConfig(CONSUMER, config, **kwargs)
        c = self.config
        self.client_id = c["client.id"] or f"consumer-{c['group.id'] or ''}-{next(_client_ids)}"
        self.config.values["client.id"] = self.client_id
        self.time = time
        self.default_api_timeout_ms = c["default.api.timeout.ms"]
        self.metadata = Metadata(c["retry.backoff.ms"], c["metadata.max.age.ms"])
        self.client = NetworkClient(self.metadata, c, time, allow_auto_topic_creation=False)
        self.subscriptions = SubscriptionState(c["auto.offset.reset"])
        self.fetcher = Fetcher(self.client, self.metadata, self.subscriptions, c, time)
        isolation = READ_COMMITTED if c["isolation.level"] == "read_committed" else 0
        self.offset_fetcher = OffsetFetcher(self.client, self.metadata, self.subscriptions, isolation, time)
        self.coordinator = ConsumerCoordinator(self.client, self.subscriptions, self.metadata, c, time) \
            if c["group.id"] else None
        self._closed = False

    # ------------------------------------------------------------------ what to read
    def assign(self, partitions: Iterable[TopicPartition]) -> None:
        partitions = [TopicPartition(*tp) for tp in partitions]
        self.fetcher.clear_buffered()
        self.subscriptions.assign_from_user(partitions)
        self.metadata.set_topics({tp.topic for tp in partitions})

    def subscribe(self, topics: Iterable[str], listener: ConsumerRebalanceListener | None = None) -> None:
        if self.coordinator is None:
            raise KafkaError(Errors.INVALID_GROUP_ID, "subscribe() needs a group.id")
        topics = list(topics)
        if listener is not None:
            self.coordinator.listener = listener
        if self.subscriptions.subscribe(topics):
            self.metadata.set_topics(set(topics))
            self.coordinator.request_rejoin("subscription changed")

    def assignment(self) -> set[TopicPartition]:
        return self.subscriptions.assigned_partitions()

    def subscription(self) -> set[str]:
        return set(self.subscriptions.subscription)

    def unsubscribe(self) -> None:
        if self.coordinator is not None and self.subscriptions.subscription:
            self.coordinator.on_join_prepare(self.coordinator.generation_id, self.coordinator.member_id)
            self.coordinator.maybe_leave_group("the consumer unsubscribed")
        self.fetcher.clear_buffered()
        self.subscriptions.unsubscribe()

    # ------------------------------------------------------------------ poll
    def poll(self, timeout_ms: float = 0) -> ConsumerRecords:
        """Records from the assigned partitions, waiting up to ``timeout_ms`` for some."""
        return ConsumerRecords(self._poll(timeout_ms, self.fetcher.fetched_records))

    def poll_batches(self, timeout_ms: float = 0) -> dict[TopicPartition, list[RecordBatch]]:
        """Like ``poll``, but the fetched record batches themselves, whole, for a reader that decodes
        them column by column (the Spark source). Not in Kafka's API: Java's records cost little."""
        batches = self._poll(timeout_ms, self.fetcher.fetched_batches)
        if batches:
            # The next Fetch, queued by _poll, goes on the wire now (Java's poll calls transmitSends):
            # the broker reads the next batches while the caller decodes these.
            self.client.poll(0)
        return batches

    def _poll(self, timeout_ms: float, fetched: Callable[[], dict]) -> dict:
        self._ensure_open()
        if not self.subscriptions.subscription and not self.subscriptions.user_assigned:
            raise KafkaError(Errors.INVALID_REQUEST,
                             "consumer is not subscribed to any topics or assigned any partitions")
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        while True:
            remaining = max(0, deadline - self.time.hi_res_clock_ms())
            if self.coordinator is not None and not self.coordinator.poll(remaining):
                return {}
            self._update_fetch_positions(max(0, deadline - self.time.hi_res_clock_ms()))
            records = fetched()
            if records:
                self.fetcher.send_fetches()  # pipelining: the next fetch is on its way while the app works
                return records
            self.fetcher.send_fetches()
            remaining = deadline - self.time.hi_res_clock_ms()
            # Short slices, so group membership is looked after while we wait for data; poll(0)
            # still reads what has arrived, so a caller looping on poll(0) makes progress.
            self.client.poll(max(0, min(remaining, 100 if self.coordinator is not None else remaining)))
            if self.fetcher.has_completed_fetches():
                records = fetched()
                if records:
                    self.fetcher.send_fetches()
                    return records
            if remaining <= 0:
                return {}

    def _update_fetch_positions(self, timeout_ms: float) -> None:
        if self.subscriptions.has_all_fetch_positions():
            return
        # Only once the committed offsets are known may the partitions without one be reset
        # (Kafka's updateFetchPositions): a slow OffsetFetch must not send us back to earliest.
        coordinator = self.coordinator
        if coordinator is not None and not coordinator.refresh_committed_offsets_if_needed(timeout_ms):
            return
        for tp in self.subscriptions.missing_fetch_positions():
            self.subscriptions.request_offset_reset(tp)
        subscriptions = self.subscriptions
        if subscriptions.default_reset_strategy == "none" and subscriptions.partitions_needing_reset():
            tps = sorted(map(str, subscriptions.partitions_needing_reset()))
            raise KafkaError(Errors.OFFSET_OUT_OF_RANGE,
                             f"no committed offset for {tps} and auto.offset.reset is none")
        try:
            self.offset_fetcher.reset_positions_if_needed(max(timeout_ms, 1))
        except KafkaTimeoutError:
            pass  # the next poll tries again

    # ------------------------------------------------------------------ positions
    def seek(self, partition: TopicPartition, offset: int) -> None:
        if offset < 0:
            raise ValueError(f"seek offset must not be negative, got {offset}")
        self.subscriptions.seek(partition, offset)

    def seek_to_beginning(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        for tp in partitions or self.assignment():
            self.subscriptions.request_offset_reset(tp, "earliest")

    def seek_to_end(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        for tp in partitions or self.assignment():
            self.subscriptions.request_offset_reset(tp, "latest")

    def position(self, partition: TopicPartition, timeout_ms: float | None = None) -> int:
        """The offset of the next record poll() would return (looked up now if unknown)."""
        timeout_ms = self.default_api_timeout_ms if timeout_ms is None else timeout_ms
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        while (position := self.subscriptions.position(partition)) is None:
            remaining = deadline - self.time.hi_res_clock_ms()
            if remaining <= 0:
                raise KafkaTimeoutError(f"no position for {partition} within {timeout_ms} ms")
            self._update_fetch_positions(remaining)
        return position

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        for tp in partitions:
            self.subscriptions.pause(tp)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        for tp in partitions:
            self.subscriptions.resume(tp)

    def paused(self) -> set[TopicPartition]:
        return self.subscriptions.paused_partitions()

    # ------------------------------------------------------------------ commits
    def commit(self, offsets: Mapping[TopicPartition, int | OffsetAndMetadata] | None = None,
               timeout_ms: float | None = None) -> None:
        """Commit (synchronously) the given offsets, or every partition's current position."""
        coordinator = self._require_group()
        coordinator.commit_offsets_sync(self._offsets(offsets), timeout_ms or self.default_api_timeout_ms)

    def commit_async(self, offsets: Mapping[TopicPartition, int | OffsetAndMetadata] | None = None,
                     callback: Callable[[dict, BaseException | None], None] | None = None):
        coordinator = self._require_group()
        coordinator.ensure_coordinator_ready(self.default_api_timeout_ms)
        future = coordinator.commit_offsets_async(self._offsets(offsets), callback)
        self.client.poll(0)
        return future

    def committed(self, partitions: Iterable[TopicPartition],
                  timeout_ms: float | None = None) -> dict[TopicPartition, OffsetAndMetadata | None]:
        partitions = set(partitions)
        result = self._require_group().fetch_committed_offsets(partitions, timeout_ms
                                                               or self.default_api_timeout_ms)
        if result is None:
            raise KafkaTimeoutError("fetching committed offsets timed out")
        return {tp: result.get(tp) for tp in partitions}

    def _offsets(self, offsets) -> dict[TopicPartition, OffsetAndMetadata]:
        if offsets is None:
            return self.subscriptions.all_consumed()
        return {tp: o if isinstance(o, OffsetAndMetadata) else OffsetAndMetadata(int(o))
                for tp, o in offsets.items()}

    def _require_group(self) -> ConsumerCoordinator:
        if self.coordinator is None:
            raise KafkaError(Errors.INVALID_GROUP_ID, "committing offsets needs a group.id")
        return self.coordinator

    # ------------------------------------------------------------------ metadata
    def group_metadata(self) -> ConsumerGroupMetadata:
        """This consumer in its group, for KafkaProducer.send_offsets_to_transaction (KIP-447)."""
        coordinator = self._require_group()
        return ConsumerGroupMetadata(coordinator.group_id, coordinator.generation_id, coordinator.member_id,
                                     coordinator.group_instance_id)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        self.metadata.add_topics(topic)
        if self.metadata.cluster.partition_count(topic) is None:
            self.client.await_metadata(self.default_api_timeout_ms)
        infos = self.metadata.cluster.partitions_for_topic(topic)
        return {p.partition for p in infos} or None

    def beginning_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, EARLIEST_TIMESTAMP)

    def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, LATEST_TIMESTAMP)

    def offsets_for_times(self,
                          timestamps: Mapping[TopicPartition, int]) -> dict[TopicPartition, tuple[int, int]]:
        return self.offset_fetcher.list_offsets(dict(timestamps), self.default_api_timeout_ms)

    def _list_offsets(self, partitions, timestamp: int) -> dict[TopicPartition, int]:
        found = self.offset_fetcher.list_offsets({tp: timestamp for tp in partitions},
                                                 self.default_api_timeout_ms)
        return {tp: offset for tp, (offset, _) in found.items()}

    # ------------------------------------------------------------------ close
    def _ensure_open(self) -> None:
        if self._closed:
            raise KafkaError(Errors.UNKNOWN_SERVER_ERROR, "this consumer has already been closed")

    def close(self, timeout_ms: int = 30000) -> None:
        """Commit (with auto-commit), leave the group, close connections."""
        if self._closed:
            return
        self._closed = True
        try:
            if self.coordinator is not None:
                self.coordinator.close(timeout_ms)
        finally:
            self.client.close()

    def __enter__(self) -> KafkaConsumer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
