"""The broker-side assignors of KIP-848 consumer groups, by the names ``group.consumer.assignors``
and a member's ``group.remote.assignor`` use (Kafka's "uniform" and "range")."""

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import ConsumerGroupPartitionAssignor
from kafka.coordinator.group.assignor.range_assignor import RangeAssignor
from kafka.coordinator.group.assignor.uniform_assignor import UniformAssignor

ASSIGNORS: dict[str, type[ConsumerGroupPartitionAssignor]] = {
    UniformAssignor.name: UniformAssignor, RangeAssignor.name: RangeAssignor}
# Kafka accepts the class names too: org.apache.kafka.coordinator.group.assignor.UniformAssignor
CLASS_NAMES = {f"org.apache.kafka.coordinator.group.assignor.{cls.__name__}": name
               for name, cls in ASSIGNORS.items()}


def assignors_from_config(names: list[str]) -> dict[str, ConsumerGroupPartitionAssignor]:
    """``group.consumer.assignors`` to instances, in order: the first is the default."""
    found = {}
    for name in names:
        name = CLASS_NAMES.get(name, name)
        if name not in ASSIGNORS:
            raise ValueError(f"unknown consumer group assignor {name!r}; known: {', '.join(ASSIGNORS)}")
        found[name] = ASSIGNORS[name]()
    return found


def assignors_problem(names: list[str]) -> str | None:
    """Why ``group.consumer.assignors`` cannot be used, or None (the broker's config check)."""
    unknown = [n for n in names if n not in ASSIGNORS and n not in CLASS_NAMES]
    return f"unknown assignors {unknown}; known: {', '.join(ASSIGNORS)}" if unknown or not names else None
