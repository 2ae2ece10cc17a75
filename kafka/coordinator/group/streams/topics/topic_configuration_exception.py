"""TopicConfigurationException: why a streams group's topology is not ready, as the status its members'
heartbeats carry (Kafka's org.apache.kafka.coordinator.group.streams.topics.TopicConfigurationException,
and the StreamsGroupHeartbeatResponse.Status codes).
"""

from __future__ import annotations

from enum import IntEnum


class Status(IntEnum):
    """StreamsGroupHeartbeatResponse's status codes (KIP-1071)."""

    STALE_TOPOLOGY = 0  # the member's topology epoch is behind the group's
    MISSING_SOURCE_TOPICS = 1
    INCORRECTLY_PARTITIONED_TOPICS = 2  # co-partitioned topics that are not, or an internal topic's count
    MISSING_INTERNAL_TOPICS = 3  # the broker creates them
    SHUTDOWN_APPLICATION = 4  # a member asked the whole application to stop
    ASSIGNMENT_DELAYED = 5  # the initial rebalance delay or the assignment interval holds the assignment back
    MISSING_CLIENT_TAGS = 6  # (v1+) tags group.streams.rack.aware.assignment.tags needs


class TopicConfigurationException(Exception):
    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    @classmethod
    def incorrectly_partitioned_topics(cls, message: str) -> TopicConfigurationException:
        return cls(Status.INCORRECTLY_PARTITIONED_TOPICS, message)

    @classmethod
    def missing_source_topics(cls, message: str) -> TopicConfigurationException:
        return cls(Status.MISSING_SOURCE_TOPICS, message)

    @classmethod
    def missing_internal_topics(cls, message: str) -> TopicConfigurationException:
        return cls(Status.MISSING_INTERNAL_TOPICS, message)
