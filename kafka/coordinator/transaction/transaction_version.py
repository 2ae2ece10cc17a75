"""TransactionVersion: the levels of the ``transaction.version`` feature and what each switches on
(Kafka's org.apache.kafka.server.common.TransactionVersion).

    TV_0  the first transaction protocol (KIP-98): the epoch moves only at InitProducerId
    TV_1  the transaction log's flexible value (version 1: previous and next producer id, the
          client's transaction version as tagged fields)
    TV_2  KIP-890 part 2: EndTxn bumps the producer epoch at every commit and abort (a new producer
          id when the epoch runs out), and a broker adds a transactional Produce's or
          TxnOffsetCommit's partition to the transaction itself

The finalized level (a FeatureLevelRecord, read from the metadata image) says what the coordinator
writes. What a transaction runs at is the client's: Kafka decides per request, by its version
(`for_end_txn`, `for_add_partitions_to_txn`), so a TV_0 client keeps the old protocol on a TV_2 cluster.
"""

from __future__ import annotations

FEATURE_NAME = "transaction.version"
TV_0, TV_1, TV_2 = 0, 1, 2


def transaction_log_value_version(level: int) -> int:
    """The TransactionLogValue version a coordinator at this level writes: the flexible 1 from TV_1."""
    return 1 if level >= TV_1 else 0


def supports_epoch_bump(level: int) -> bool:
    return level >= TV_2


def for_end_txn(api_version: int) -> int:
    """EndTxn v5+ is a TV_2 client's (Kafka's transactionVersionForEndTxn)."""
    return TV_2 if api_version > 4 else TV_0


def for_add_partitions_to_txn(api_version: int) -> int:
    """AddPartitionsToTxn v4+ comes from a broker, for a TV_2 client (Kafka's
    transactionVersionForAddPartitionsToTxn)."""
    return TV_2 if api_version > 3 else TV_0


def finalized_level(finalized_features: dict[str, int]) -> int:
    """The cluster's transaction.version, from the metadata image's finalized features (absent: 0)."""
    return finalized_features.get(FEATURE_NAME, TV_0)
