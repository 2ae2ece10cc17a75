"""TxnMetadata: a transaction a partition has seen begin (Kafka's
org.apache.kafka.storage.internals.log.TxnMetadata, KIP-98).

Seed 004: a producer's writes become visible to `read_committed` consumers only together, when the
transaction commits. Until its marker is written and replicated, a transaction's first offset holds
the partition's last stable offset (LSO) back: the ProducerStateManager keeps the ongoing ones by
first offset, and then the completed ones whose marker is not yet below the high watermark
(`last_offset` set), so a marker a new leader might not have does not let consumers past.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class TxnMetadata:
    producer_id: int
    first_offset: int
    last_offset: int | None = None  # the marker's offset, once the transaction completed
