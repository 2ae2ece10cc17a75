"""CompletedTxn: a transaction that a marker just ended in one partition (Kafka's
org.apache.kafka.storage.internals.log.CompletedTxn, KIP-98).

Seed 004's idempotent producer writes each batch once; a transactional one also writes them all or
none. The partition leader learns the outcome when the transaction coordinator's WriteTxnMarkers
appends a COMMIT or ABORT marker: ProducerAppendInfo turns the producer's open transaction into a
CompletedTxn, which takes it out of the ongoing ones (the last stable offset may move on) and, for an
ABORT, becomes an entry of the segment's `.txnindex`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CompletedTxn:
    producer_id: int
    first_offset: int  # the transaction's first record in this partition
    last_offset: int  # its marker
    is_aborted: bool
