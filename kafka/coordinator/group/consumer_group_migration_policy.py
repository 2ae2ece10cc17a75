"""ConsumerGroupMigrationPolicy: which online conversions between the two group types are allowed
(Kafka's org.apache.kafka.coordinator.group.ConsumerGroupMigrationPolicy, the broker key
``group.consumer.migration.policy``; Kafka 4's default is ``bidirectional``).

A *conversion* happens to a group that has members. An empty group is never converted: its id is
simply taken by the other type. ``upgrade`` lets a classic group whose members use the consumer
embedded protocol become a consumer group when a member of the new protocol joins (a rolling upgrade
of the clients); ``downgrade`` lets a consumer group whose last member of the new protocol leaves
become a classic group again, if only classic members remain.
"""

from __future__ import annotations

from enum import Enum


class ConsumerGroupMigrationPolicy(Enum):
    DISABLED = "disabled"
    UPGRADE = "upgrade"
    DOWNGRADE = "downgrade"
    BIDIRECTIONAL = "bidirectional"

    @classmethod
    def parse(cls, name: str) -> ConsumerGroupMigrationPolicy:
        return cls(name.strip().lower())

    def is_upgrade_enabled(self) -> bool:
        return self in (ConsumerGroupMigrationPolicy.UPGRADE, ConsumerGroupMigrationPolicy.BIDIRECTIONAL)

    def is_downgrade_enabled(self) -> bool:
        return self in (ConsumerGroupMigrationPolicy.DOWNGRADE, ConsumerGroupMigrationPolicy.BIDIRECTIONAL)

    def __str__(self) -> str:
        return self.value
