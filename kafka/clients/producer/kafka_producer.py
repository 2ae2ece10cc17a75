"""KafkaProducer: ``send()`` a record, get a future of where it landed
(Kafka's clients.producer.KafkaProducer).

The journey of seed 002's produce request starts here, on the application's thread: wait until
the metadata knows the topic's partitions, pick a partition (the DefaultPartitioner: murmur2 of
the key, or the sticky partition for keyless records), and append the record to its partition's
batch in the RecordAccumulator. That is all ``send()`` does. The Sender thread takes it from
there: it drains ready batches into Produce requests, one per broker, through the NetworkClient.

The producer is idempotent unless told otherwise (``enable.idempotence``, true since Kafka 3.0):
a TransactionManager gets it a producer id before the first batch goes, and numbers every batch,
so a retry after a lost Produce response cannot write the batch twice (seed 004).

    producer = KafkaProducer({"bootstrap.servers": "127.0.0.1:9092", "linger.ms": 10})
    producer.send("orders", b"value", key=b"k", headers=[("h", b"v")]).get(10)
    producer.close()

With ``transactional.id`` it is the Java producer's transactional API (KIP-98): records sent between
``begin_transaction()`` and ``commit_transaction()`` reach read_committed consumers all together, or
(``abort_transaction()``) never; ``send_offsets_to_transaction`` commits a consumer's offsets with them.

    producer = KafkaProducer({"bootstrap.servers": "127.0.0.1:9092", "transactional.id": "orders-app"})
    producer.init_transactions()
    producer.begin_transaction()
    producer.send("orders", b"value")
    producer.commit_transaction()
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafka.clients.client_config import ProducerConfig
from kafka.clients.errors import KafkaError, KafkaTimeoutError
from kafka.clients.metadata import Metadata
from kafka.clients.network_client import NetworkClient
from kafka.clients.producer.buffer_pool import BufferPool
from kafka.clients.producer.partitioner import DefaultPartitioner
from kafka.clients.producer.producer_batch import FutureRecordMetadata, estimate_size
from kafka.clients.producer.record_accumulator import RecordAccumulator
from kafka.clients.producer.sender import Sender
from kafka.clients.producer.transaction_manager import TransactionManager
from kafka.protocol.compression import CompressionType
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import HEADER_SIZE, Header
from kafka.utils.time import SYSTEM, Time
from kafka.utils.topic_partition import TopicPartition

_client_ids = itertools.count(1)

HeadersLike = Iterable[tuple[str, bytes | str | None]] | Mapping[str, bytes | str | None] | None


def _to_bytes(value: Any, what: str) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"{what} must be bytes, str or None, not {type(value).__name__}")


def _to_headers(headers: HeadersLike) -> list[Header]:
    if not headers:
        return []
    items = headers.items() if isinstance(headers, Mapping) else headers
    return [Header(str(k), _to_bytes(v, "header value")) for k, v in items]


class KafkaProducer:
    def __init__(self, config: Mapping[str, Any] | None = None, time: Time = SYSTEM, **kwargs: Any) -> None:
        self.config = ProducerConfig(config, **kwargs)
        c = self.config
        self.client_id = c["client.id"] or f"producer-{next(_client_ids)}"
        self.config.values["client.id"] = self.client_id
        self.time = time
        self.metadata = Metadata(c["retry.backoff.ms"], c["metadata.max.age.ms"])
        self.partitioner = DefaultPartitioner(c["partitioner.ignore.keys"])
        self.transaction_manager = self._configure_transaction_state(c)
        self.accumulator = RecordAccumulator(
            c["batch.size"], CompressionType[c["compression.type"].upper()], c["linger.ms"],
            c["retry.backoff.ms"], c["delivery.timeout.ms"], BufferPool(c["buffer.memory"]), time,
            transaction_manager=self.transaction_manager)
        self.client = NetworkClient(self.metadata, c, time, allow_auto_topic_creation=True)
        self.sender = Sender(self.client, self.metadata, self.accumulator, acks=c["acks"],
                             retries=c["retries"],
                             request_timeout_ms=c["request.timeout.ms"],
                             max_request_size=c["max.request.size"],
                             guarantee_message_order=c["max.in.flight.requests.per.connection"] == 1,
                             retry_backoff_ms=c["retry.backoff.ms"],
                             transaction_manager=self.transaction_manager,
                             time=time, name=f"kafka-producer-network-thread | {self.client_id}")
        self.sender.start()
        self._closed = False

    @staticmethod
    def _configure_transaction_state(config: ProducerConfig) -> TransactionManager | None:
        if not config["enable.idempotence"]:
            return None
        return TransactionManager(config["transactional.id"], config["transaction.timeout.ms"],
                                  retry_backoff_ms=config["retry.backoff.ms"])

    # ------------------------------------------------------------------ transactions (KIP-98)
    def _transactional(self) -> TransactionManager:
        if self.transaction_manager is None or not self.transaction_manager.is_transactional():
            raise KafkaError(Errors.INVALID_TXN_STATE, "cannot use transactional methods without enabling "
                                                       "transactions by setting the transactional.id")
        return self.transaction_manager

    def init_transactions(self) -> None:
        """Register the transactional.id with its coordinator: fences older producers with the same
        id and completes (or aborts) a transaction one of them left open. Once, before anything else."""
        result = self._transactional().initialize_transactions()
        self.client.wakeup()
        result.await_(self.config["max.block.ms"])

    def begin_transaction(self) -> None:
        self._transactional().begin_transaction()

    def send_offsets_to_transaction(self, offsets: Mapping[TopicPartition, Any], group_metadata) -> None:
        """Commit the consumer's ``offsets`` (next offsets to read, ints or OffsetAndMetadata) with this
        transaction; ``group_metadata`` is ``consumer.group_metadata()`` (KIP-447 fences zombies)."""
        result = self._transactional().send_offsets_to_transaction(
            {tp: _offset_and_metadata(o) for tp, o in offsets.items()}, group_metadata)
        self.client.wakeup()
        result.await_(self.config["max.block.ms"])

    def commit_transaction(self) -> None:
        """Send what is queued, then EndTxn(commit): its records become visible to read_committed."""
        tm = self._transactional()
        if not tm.has_error():
            self.flush()
        result = tm.begin_commit()
        self.client.wakeup()
        result.await_(self.config["max.block.ms"])

    def abort_transaction(self) -> None:
        """Drop what is not sent yet, wait for what is in flight, then EndTxn(abort)."""
        tm = self._transactional()
        self.accumulator.abort_incomplete_batches(KafkaError(Errors.UNKNOWN_SERVER_ERROR,
                                                             "failing batch since transaction was aborted"))
        self.flush()
        result = tm.begin_abort()
        self.client.wakeup()
        result.await_(self.config["max.block.ms"])

    # ------------------------------------------------------------------ send
    def send(self, topic: str, value: Any = None, key: Any = None, headers: HeadersLike = None,
             partition: int | None = None, timestamp_ms: int | None = None,
             callback: Callable[[Any, BaseException | None], None] | None = None) -> FutureRecordMetadata:
        """Queue one record; the future (and ``callback(metadata, exception)``) tell where it landed."""
        if self._closed:
            raise KafkaError(Errors.UNKNOWN_SERVER_ERROR, "cannot send after the producer is closed")
        tm = self.transaction_manager
        if tm is not None:
            tm.fail_if_not_ready_for_send()
        key_bytes, value_bytes = _to_bytes(key, "key"), _to_bytes(value, "value")
        record_headers = _to_headers(headers)
        max_block_ms = self.config["max.block.ms"]
        try:
            self._ensure_valid_record_size(HEADER_SIZE + estimate_size(key_bytes, value_bytes,
                                                                       record_headers))
            num_partitions = self._wait_on_metadata(topic, partition, max_block_ms)
        except KafkaError as e:
            return self._failed_future(e, callback)
        cluster = self.metadata.cluster
        available = [p.partition for p in cluster.available_partitions_for_topic(topic)]
        chosen = partition if partition is not None else self.partitioner.partition(
            topic, key_bytes, num_partitions, available)
        timestamp = timestamp_ms if timestamp_ms is not None else self.time.milliseconds()
        keyless = partition is None and (key_bytes is None or self.partitioner.ignore_keys)
        if tm is not None and tm.is_transactional():
            try:
                tm.maybe_add_partition(TopicPartition(topic, chosen))
            except KafkaError as e:
                return self._failed_future(e, callback)
        result = self.accumulator.append(TopicPartition(topic, chosen), timestamp, key_bytes, value_bytes,
                                         record_headers, callback, max_block_ms, abort_on_new_batch=keyless)
        if result.abort_for_new_batch:
            # Sticky partitioning: a new batch is the moment to move to another partition (KIP-480).
            chosen = self.partitioner.on_new_batch(topic, num_partitions, available, chosen)
            if tm is not None and tm.is_transactional():
                tm.maybe_add_partition(TopicPartition(topic, chosen))
            result = self.accumulator.append(TopicPartition(topic, chosen), timestamp, key_bytes, value_bytes,
                                             record_headers, callback, max_block_ms, abort_on_new_batch=False)
        if result.batch_is_full or result.new_batch_created:
            self.client.wakeup()
        return result.future

    def _wait_on_metadata(self, topic: str, partition: int | None, max_block_ms: int) -> int:
        """Block until the metadata knows ``topic`` (the producer's waitOnMetadata); its partition count."""
        self.metadata.add_topics(topic)
        deadline = self.time.hi_res_clock_ms() + max_block_ms
        while True:
            cluster = self.metadata.cluster
            count = cluster.partition_count(topic)
            if count is not None and (partition is None or partition < count):
                return count
            error = cluster.topic_errors.get(topic)
            if error is not None and not error.retriable:
                raise KafkaError(error, f"topic {topic!r}")
            remaining = deadline - self.time.hi_res_clock_ms()
            if remaining <= 0:
                if count is not None:
                    raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                     f"partition {partition} of topic {topic!r} (it has {count})")
                raise KafkaTimeoutError(f"topic {topic!r} not present in metadata after {max_block_ms} ms")
            version = self.metadata.request_update()
            self.client.wakeup()
            self.metadata.await_update(version, min(remaining, 100))

    def _ensure_valid_record_size(self, size: int) -> None:
        if size > self.config["max.request.size"]:
            raise KafkaError(Errors.MESSAGE_TOO_LARGE,
                             f"the record is {size} bytes, more than max.request.size "
                             f"({self.config['max.request.size']})")
        if size > self.config["buffer.memory"]:
            raise KafkaError(Errors.MESSAGE_TOO_LARGE, f"the record is {size} bytes, more than buffer.memory "
                                                       f"({self.config['buffer.memory']})")

    @staticmethod
    def _failed_future(error: BaseException, callback) -> FutureRecordMetadata:
        future = FutureRecordMetadata()
        future.set_exception(error)
        if callback is not None:
            callback(None, error)
        return future

    # ------------------------------------------------------------------ the rest of the API
    def flush(self, timeout: float | None = None) -> None:
        """Send everything queued now, regardless of linger.ms, and wait until it is answered."""
        self.accumulator.begin_flush()
        self.client.wakeup()
        if not self.accumulator.await_flush_completion(timeout):
            raise KafkaTimeoutError(f"flush did not finish within {timeout} s")

    def partitions_for(self, topic: str) -> list:
        self._wait_on_metadata(topic, None, self.config["max.block.ms"])
        return self.metadata.cluster.partitions_for_topic(topic)

    def close(self, timeout: float | None = None) -> None:
        """Send what is queued and stop; with ``timeout=0`` drop it (futures fail)."""
        if self._closed:
            return
        self._closed = True
        if timeout == 0:
            self.sender.force_close_now()
        else:
            self.sender.initiate_close()
        self.sender.join(timeout)
        if self.sender.is_alive():
            self.sender.force_close_now()
            self.sender.join()

    def __enter__(self) -> KafkaProducer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _offset_and_metadata(offset: Any) -> Any:
    """An int offset as the OffsetAndMetadata TxnOffsetCommit needs (offset, leader epoch, metadata)."""
    if isinstance(offset, int):
        from kafka.clients.consumer.subscription_state import OffsetAndMetadata
        return OffsetAndMetadata(offset)
    return offset
