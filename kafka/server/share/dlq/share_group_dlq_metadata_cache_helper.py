"""ShareGroupDLQMetadataCacheHelper: what the broker knows that a dead-letter-queue write needs (Kafka's
org.apache.kafka.server.share.dlq.ShareGroupDLQMetadataCacheHelper, as its
ShareCoordinatorMetadataCacheHelperImpl implements it).

    the group's DLQ topic     errors.deadletterqueue.topic.name (a group config; empty: none)
    copy the record?          errors.deadletterqueue.copy.record.enable (a group config)
    may the topic be used?    its topic config errors.deadletterqueue.group.enable
    may the broker create it? errors.deadletterqueue.auto.create.topics.enable (a broker config)
    the name it must start    errors.deadletterqueue.topic.name.prefix (a broker config, "dlq."; "" any)
    where to write            the topic's id, partition count and each partition's leader on the
                              inter-broker listener; max.message.bytes bounds a DLQ record batch
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kafka.clients.metadata import Node

TOPIC_NAME_CONFIG = "errors.deadletterqueue.topic.name"
COPY_RECORD_ENABLE_CONFIG = "errors.deadletterqueue.copy.record.enable"
GROUP_ENABLE_CONFIG = "errors.deadletterqueue.group.enable"  # a topic config (Kafka's TopicConfig)


@dataclass(frozen=True)
class TopicPartitionData:
    """Kafka's ShareGroupDLQMetadataCacheHelper.TopicPartitionData."""

    topic_name: str
    num_partitions: int | None
    topic_id: uuid.UUID | None
    partition_leader_nodes: list[Node | None]  # by partition; None: no leader now


def _true(value: str | None) -> bool:
    return value is not None and value.strip().lower() == "true"


class ShareGroupDLQMetadataCacheHelper:
    def __init__(self, metadata_cache, group_configs: Callable[[str], Mapping[str, str]], config,
                 listener_name: str) -> None:
        """`group_configs(group_id)`: the keys the group sets (a GroupConfigManager's group_props);
        `config`: the broker's KafkaConfig, read each time (the DLQ keys are dynamic broker configs)."""
        self.metadata_cache = metadata_cache
        self.group_configs = group_configs
        self.config = config
        self.listener_name = listener_name

    def share_group_dlq_topic(self, group_id: str) -> str | None:
        name = self.group_configs(group_id).get(TOPIC_NAME_CONFIG, "")
        return name or None

    def is_share_group_dlq_copy_record_enabled(self, group_id: str) -> bool:
        return _true(self.group_configs(group_id).get(COPY_RECORD_ENABLE_CONFIG))

    def is_dlq_enabled_on_topic(self, topic: str) -> bool:
        meta = self.metadata_cache.get_topic(topic)
        return meta is not None and _true(meta.configs.get(GROUP_ENABLE_CONFIG))

    def is_dlq_auto_topic_create_enabled(self) -> bool:
        return bool(self.config.errors_deadletterqueue_auto_create_topics_enable)

    def share_group_dlq_topic_prefix(self) -> str | None:
        return self.config.errors_deadletterqueue_topic_name_prefix

    def contains_topic(self, topic: str) -> bool:
        return self.metadata_cache.contains(topic)

    def dlq_topic_max_message_bytes(self, topic: str) -> int:
        meta = self.metadata_cache.get_topic(topic)
        configured = meta.configs.get("max.message.bytes") if meta is not None else None
        return int(configured) if configured is not None else self.config.message_max_bytes

    def topic_name(self, topic_id: uuid.UUID) -> str | None:
        return self.metadata_cache.topic_name_for_id(topic_id)

    def get_cluster_nodes(self) -> list[Node]:
        nodes = []
        for broker in self.metadata_cache.alive_brokers():
            end_point = broker.end_point(self.listener_name)
            if end_point is not None:
                nodes.append(Node(broker.node_id, end_point.host, end_point.port))
        return nodes

    def topic_partition_data(self, topic: str) -> TopicPartitionData:
        meta = self.metadata_cache.get_topic(topic)
        if meta is None:
            return TopicPartitionData(topic, None, None, [])
        leaders: list[Node | None] = []
        for partition in range(meta.num_partitions):
            leader, end_point = self.metadata_cache.partition_leader_end_point(topic, partition,
                                                                               self.listener_name)
            leaders.append(Node(leader, end_point.host, end_point.port) if end_point is not None else None)
        return TopicPartitionData(topic, meta.num_partitions, meta.topic_id, leaders)
