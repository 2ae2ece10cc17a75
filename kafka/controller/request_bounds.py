"""The bounds a CreateTopics or CreatePartitions request is checked against before anything is built
from it (Kafka's ReplicationControlManager.validateTotalNumberOfPartitions and MAX_PARTITIONS_PER_BATCH,
and Topic.validate for the name), and the error they raise.

The broker checks the same bounds before it forwards a request (AdminManager), so a request that
breaks one costs a few comparisons on either side, never memory proportional to its numbers.
"""

from __future__ import annotations

from kafka.protocol import topic as topic_names
from kafka.protocol.errors import Errors

# Kafka's ReplicationControlManager.MAX_PARTITIONS_PER_BATCH: the partitions one CreateTopics (here
# also CreatePartitions) may add, over all its topics, checked before any placement is computed.
MAX_PARTITIONS_PER_BATCH = 10_000
EXCESSIVE_PARTITIONS_MESSAGE = "Excessively large number of partitions per request."


class ReplicationError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


def validate_topic_name(name: str) -> None:
    """Kafka's Topic.validate, answered with the controller's error."""
    try:
        topic_names.validate(name)
    except topic_names.InvalidTopicError as e:
        raise ReplicationError(Errors.INVALID_TOPIC_EXCEPTION, str(e)) from None


def validate_total_number_of_partitions(topics, default_partitions: int) -> None:
    """Kafka's validateTotalNumberOfPartitions for CreateTopics: an upper bound of what the request
    would create (assignments count as given, -1 as the default, invalid counts as nothing)."""
    total = 0
    for t in topics:
        if t.assignments:
            total += len(t.assignments)
        elif t.num_partitions == -1:
            total += default_partitions
        elif t.num_partitions > 0:
            total += t.num_partitions
        if total > MAX_PARTITIONS_PER_BATCH:
            raise ReplicationError(Errors.POLICY_VIOLATION, EXCESSIVE_PARTITIONS_MESSAGE)


def validate_total_new_partitions(topics, partition_count) -> None:
    """The same cap for CreatePartitions: the partitions each topic would gain over what it has
    (`partition_count(name)`, None for a topic that does not exist), or its assignments if longer."""
    total = 0
    for t in topics:
        current = partition_count(t.name)
        if current is not None:
            total += max(t.count - current, len(t.assignments or ()), 0)
        if total > MAX_PARTITIONS_PER_BATCH:
            raise ReplicationError(Errors.POLICY_VIOLATION, EXCESSIVE_PARTITIONS_MESSAGE)
