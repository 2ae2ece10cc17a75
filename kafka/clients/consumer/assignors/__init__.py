"""Partition assignors, by the names ``partition.assignment.strategy`` uses."""

from kafka.clients.consumer.assignors.abstract_partition_assignor import (
    AbstractPartitionAssignor,
    RebalanceProtocol,
    Subscription,
)
from kafka.clients.consumer.assignors.cooperative_sticky_assignor import CooperativeStickyAssignor
from kafka.clients.consumer.assignors.range_assignor import RangeAssignor
from kafka.clients.consumer.assignors.round_robin_assignor import RoundRobinAssignor

ASSIGNORS = {a.name: a for a in (RangeAssignor, RoundRobinAssignor, CooperativeStickyAssignor)}
# The Java class names work too, as in partition.assignment.strategy=org.apache...RangeAssignor.
ASSIGNORS.update({"org.apache.kafka.clients.consumer." + a.__name__: a for a in ASSIGNORS.values()})

__all__ = ["ASSIGNORS", "AbstractPartitionAssignor", "RebalanceProtocol", "Subscription"]
