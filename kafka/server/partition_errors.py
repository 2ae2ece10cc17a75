"""The errors a Partition refuses with (Kafka's NotEnoughReplicasException, and the ApiException a
fetch or an OffsetsForLeaderEpoch gets), raised to ReplicaManager, which answers with their codes."""

from __future__ import annotations

from kafka.protocol.errors import Errors


class NotEnoughReplicasError(Exception):
    """acks=all but the ISR is smaller than min.insync.replicas (Kafka's NotEnoughReplicasException)."""


class PartitionError(Exception):
    """A fetch or an OffsetsForLeaderEpoch this replica must refuse, with the error code to answer."""

    def __init__(self, error: Errors, message: str = "") -> None:
        super().__init__(message or error.name)
        self.error = error
