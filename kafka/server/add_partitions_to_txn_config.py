"""AddPartitionsToTxnConfig: how long a transactional Produce keeps asking the transaction coordinator
while it answers CONCURRENT_TRANSACTIONS (Kafka's org.apache.kafka.coordinator.transaction.
AddPartitionsToTxnConfig: Kafka 4.4's names, defaults and bounds). AbstractKafkaConfig inherits the keys;
the AddPartitionsToTxnManager reads them (`config.add_partitions_to_txn_retry_backoff_ms`)."""

from __future__ import annotations

from kafka.server.config_def import INT, ConfigKey, at_least


class AddPartitionsToTxnConfig:
    add_partitions_to_txn_retry_backoff_max_ms = ConfigKey(
        "add.partitions.to.txn.retry.backoff.max.ms", INT, "100", at_least(0),
        "How long a Produce keeps asking while the coordinator answers CONCURRENT_TRANSACTIONS.")
    add_partitions_to_txn_retry_backoff_ms = ConfigKey(
        "add.partitions.to.txn.retry.backoff.ms", INT, "20", at_least(1), "The pause between those asks.")
