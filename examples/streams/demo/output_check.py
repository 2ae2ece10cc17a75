"""What the applications wrote, read as a downstream consumer would with ``isolation.level=read_committed``
(only records of committed transactions, up to the last stable offset), compared with what the input implies.

Word count: a word's counts must only ever grow (an instance that processed a sentence twice would show a
jump back or a final count too high) and its last count must be the number of times the input holds it.
Under exactly-once, Streams forwards a count at each commit, not at every word, so counts may skip numbers.
The join: exactly the expected (order, payment) pairs, each once: none missing, none twice, nothing else.
"""

from __future__ import annotations

import struct
import time
from collections import Counter
from dataclasses import dataclass, field

from kafka.clients.admin import AdminClient
from kafka.clients.consumer.kafka_consumer import KafkaConsumer
from kafka.utils.topic_partition import TopicPartition


def read_committed(bootstrap: str, topic: str, timeout_s: float = 30.0) -> list[tuple[bytes, bytes]]:
    """Every committed (key, value) of ``topic``, partition by partition, from the beginning to the last
    stable offset as it was when reading began."""
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "isolation.level": "read_committed",
                              "enable.auto.commit": False})
    try:
        partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        consumer.assign(partitions)
        consumer.seek_to_beginning(partitions)
        end = consumer.end_offsets(partitions)  # read_committed: each partition's last stable offset
        records: list[tuple[bytes, bytes]] = []
        deadline = time.monotonic() + timeout_s
        while any(consumer.position(tp) < end[tp] for tp in partitions):
            if time.monotonic() > deadline:
                raise TimeoutError(f"reading {topic} up to its last stable offsets {end} took over "
                                   f"{timeout_s} s")
            records.extend((r.key, r.value) for r in consumer.poll(500))
        return records
    finally:
        consumer.close()


@dataclass
class WordCountCheck:
    expected: Counter[str]
    last: dict[str, int] = field(default_factory=dict)
    updates: int = 0
    # word: (the last count read, the count expected)
    wrong: dict[str, tuple[int | None, int]] = field(default_factory=dict)
    went_back: list[str] = field(default_factory=list)  # words whose count ever decreased or repeated

    @property
    def exact(self) -> bool:
        return not self.wrong and not self.went_back


def check_word_counts(records: list[tuple[bytes, bytes]], expected: Counter[str]) -> WordCountCheck:
    check = WordCountCheck(expected)
    for key, value in records:
        word, count = key.decode(), struct.unpack(">q", value)[0]  # Serdes.Long(): 8 bytes, big-endian
        if word in check.last and count <= check.last[word] and word not in check.went_back:
            check.went_back.append(word)
        check.last[word] = count
        check.updates += 1
    for word in sorted(set(expected) | set(check.last)):
        if check.last.get(word) != expected.get(word):
            check.wrong[word] = (check.last.get(word), expected.get(word, 0))
    return check


@dataclass
class JoinCheck:
    expected: Counter[tuple[str, str]]
    read: Counter[tuple[str, str]]

    @property
    def missing(self) -> Counter[tuple[str, str]]:
        return self.expected - self.read

    @property
    def duplicates(self) -> int:
        """Copies read beyond those expected (an order paid twice with equal amounts joins twice)."""
        return sum(max(0, n - self.expected[pair]) for pair, n in self.read.items() if pair in self.expected)

    @property
    def unexpected(self) -> Counter[tuple[str, str]]:
        return Counter({pair: n for pair, n in self.read.items() if pair not in self.expected})

    @property
    def exact(self) -> bool:
        return self.read == self.expected


def check_joins(records: list[tuple[bytes, bytes]], expected: Counter[tuple[str, str]]) -> JoinCheck:
    return JoinCheck(expected, Counter((k.decode(), v.decode()) for k, v in records))


def unprocessed(admin: AdminClient, group: str, topics: list[str]) -> dict[TopicPartition, int]:
    """The records of ``topics`` the group has not committed yet (its lag), by partition: log end offsets
    minus the offsets its transactions committed; only partitions with a lag."""
    described = admin.describe_topics(topics)
    partitions = [TopicPartition(t, p) for t in topics for p in range(len(described[t].partitions))]
    ends = admin.list_offsets({tp: "latest" for tp in partitions})
    committed = admin.list_consumer_group_offsets(group)
    lags = {tp: ends[tp][0] - committed.get(tp, 0) for tp in partitions}
    return {tp: lag for tp, lag in lags.items() if lag > 0}
