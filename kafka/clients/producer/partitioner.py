"""The default partitioner: murmur2 for keyed records, sticky partitions for keyless ones
(Kafka's producer.internals.BuiltInPartitioner and common.utils.Utils.murmur2).

Seed 002: "If the record has a key, then the default partitioner will use a hash of the key to
determine the correct partition. After that, any records with the same key will always be
assigned to the same partition." The hash is the Java client's murmur2, bit for bit, so a key
lands on the same partition whether a Java, librdkafka (``partitioner=murmur2_random``) or this
producer wrote it. Java ints wrap at 32 bits; Python ints do not, hence the masks.

Keyless records "stick" to one partition until a batch for it is full, then move on (KIP-480):
whole batches fill faster than records spread round-robin over every partition.
"""

from __future__ import annotations

import random
import threading

_M = 0x5BD1E995
_SEED = 0x9747B28C
_MASK32 = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's Utils.murmur2, returning the same signed 32-bit int as the Java method.

    Four bytes at a time, little-endian, each word mixed with the multiplier _M and folded into the
    hash; then the 1-3 bytes left over; then three final shifts. Every multiplication is Java's,
    so it keeps only the low 32 bits (``& _MASK32``)."""
    # BEGIN LAB 05 SOLUTION: mix each 4-byte little-endian word into h, then the tail, then the final shifts
    length = len(data)
    h = (_SEED ^ length) & _MASK32
    end = length - length % 4
    for i in range(0, end, 4):
        k = data[i] | data[i + 1] << 8 | data[i + 2] << 16 | data[i + 3] << 24
        k = (k * _M) & _MASK32
        k ^= k >> 24
        k = (k * _M) & _MASK32
        h = (h * _M) & _MASK32
        h ^= k
    tail = length % 4
    if tail == 3:
        h ^= data[end + 2] << 16
    if tail >= 2:
        h ^= data[end + 1] << 8
    if tail >= 1:
        h ^= data[end]
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h
    # END LAB 05 SOLUTION


def to_positive(n: int) -> int:
    """Utils.toPositive: clear the sign bit (not abs(), which differs for negative numbers)."""
    return n & 0x7FFFFFFF


def partition_for_key(key: bytes, num_partitions: int) -> int:
    return to_positive(murmur2(key)) % num_partitions


class StickyPartitionCache:
    """The partition each topic's keyless records currently stick to."""

    def __init__(self) -> None:
        self._current: dict[str, int] = {}
        self._lock = threading.Lock()

    def partition(self, topic: str, available: list[int], num_partitions: int) -> int:
        with self._lock:
            current = self._current.get(topic)
            if current is None:
                current = self._pick(available, num_partitions, None)
                self._current[topic] = current
            return current

    def on_new_batch(self, topic: str, available: list[int], num_partitions: int, previous: int) -> int:
        """The batch for ``previous`` filled up: move to another partition (if still on it)."""
        with self._lock:
            if self._current.get(topic, previous) == previous:
                self._current[topic] = self._pick(available, num_partitions, previous)
            return self._current[topic]

    @staticmethod
    def _pick(available: list[int], num_partitions: int, avoid: int | None) -> int:
        choices = available or list(range(num_partitions))
        if len(choices) > 1 and avoid in choices:
            choices = [p for p in choices if p != avoid]
        return random.choice(choices)


class DefaultPartitioner:
    """What ``KafkaProducer`` uses unless a record names its partition."""

    def __init__(self, ignore_keys: bool = False) -> None:
        self.ignore_keys = ignore_keys
        self.sticky = StickyPartitionCache()

    def partition(self, topic: str, key: bytes | None, num_partitions: int, available: list[int]) -> int:
        if key is not None and not self.ignore_keys:
            return partition_for_key(key, num_partitions)
        return self.sticky.partition(topic, available, num_partitions)

    def on_new_batch(self, topic: str, num_partitions: int, available: list[int], previous: int) -> int:
        return self.sticky.on_new_batch(topic, available, num_partitions, previous)
