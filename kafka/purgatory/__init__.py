"""Generic delayed operations and the purgatory they wait in (Kafka's DelayedOperation,
DelayedOperationPurgatory).

Seed 000 "Purgatories and Delayed Operations"; seed 002 "Purgatory holds requests until replicated".
"""

from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.purgatory.delayed_operation_key import GroupKey, TopicPartitionOperationKey
from kafka.purgatory.delayed_operation_purgatory import (
    DelayedOperationPurgatory,
    ExpiredOperationReaper,
    Watchers,
)

__all__ = [
    "DelayedOperation",
    "DelayedOperationPurgatory",
    "ExpiredOperationReaper",
    "GroupKey",
    "TopicPartitionOperationKey",
    "Watchers",
]
