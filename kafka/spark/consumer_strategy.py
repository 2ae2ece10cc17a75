"""ConsumerStrategy: which topic-partitions a query reads (Spark's kafka010.ConsumerStrategy).

Exactly one of three options picks the strategy: ``assign`` (fixed partitions, as JSON),
``subscribe`` (a comma-separated list of topics) or ``subscribePattern`` (a regular expression
that must match a whole topic name, as Java's ``Pattern.matches``). The driver asks the strategy
again before every micro-batch, which is how a running query notices new partitions and topics.

Unlike Spark's Admin-based reader, a subscribed topic that does not exist yet simply has no
partitions (as it would for a subscribed KafkaConsumer); its partitions join once it is created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka.clients.admin import AdminClient
from kafka.utils.topic_partition import TopicPartition


def _all_partitions(admin: AdminClient, topics: set[str]) -> set[TopicPartition]:
    if not topics:
        return set()
    described = admin.describe_topics(sorted(topics))
    return {TopicPartition(name, p.partition) for name, d in described.items() for p in d.partitions}


@dataclass(frozen=True)
class AssignStrategy:
    partitions: tuple[TopicPartition, ...]

    def assigned_topic_partitions(self, admin: AdminClient) -> set[TopicPartition]:
        existing = _all_partitions(admin, {tp.topic for tp in self.partitions})
        return existing & set(self.partitions)

    def __str__(self) -> str:
        return f"Assign[{', '.join(map(str, self.partitions))}]"


@dataclass(frozen=True)
class SubscribeStrategy:
    topics: tuple[str, ...]

    def assigned_topic_partitions(self, admin: AdminClient) -> set[TopicPartition]:
        return _all_partitions(admin, set(self.topics) & admin.list_topics())

    def __str__(self) -> str:
        return f"Subscribe[{', '.join(self.topics)}]"


@dataclass(frozen=True)
class SubscribePatternStrategy:
    pattern: str

    def assigned_topic_partitions(self, admin: AdminClient) -> set[TopicPartition]:
        regex = re.compile(self.pattern)
        return _all_partitions(admin, {t for t in admin.list_topics() if regex.fullmatch(t)})

    def __str__(self) -> str:
        return f"SubscribePattern[{self.pattern}]"


ConsumerStrategy = AssignStrategy | SubscribeStrategy | SubscribePatternStrategy
