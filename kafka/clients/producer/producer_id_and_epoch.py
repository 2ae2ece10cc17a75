"""ProducerIdAndEpoch: who an idempotent producer is, to the broker (Kafka's common.utils.ProducerIdAndEpoch).

Seed 004: "Duplicate data can be written if replication is done but the Produce Response does not
reach the producer (which retries)." KIP-98's answer is to give the producer a name. InitProducerId
hands out a producer id and an epoch. Every batch carries both, together with a sequence number
per partition, so a leader can tell a retried batch it already has from a new one.
"""

from __future__ import annotations

from typing import NamedTuple

from kafka.protocol.record_batch import NO_PRODUCER_ID

NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1  # RecordBatch.NO_SEQUENCE: the batch is not (yet) numbered


class ProducerIdAndEpoch(NamedTuple):
    producer_id: int
    epoch: int

    @property
    def is_valid(self) -> bool:
        return self.producer_id > NO_PRODUCER_ID

    def __str__(self) -> str:
        return f"(producerId={self.producer_id}, epoch={self.epoch})"


NONE = ProducerIdAndEpoch(NO_PRODUCER_ID, NO_PRODUCER_EPOCH)
