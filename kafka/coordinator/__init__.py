"""The coordinators: group, share-group and transaction state kept as records in internal topics.

``common/runtime/`` is Kafka 4's coordinator runtime (org.apache.kafka.coordinator.common.runtime): a
shard per internal-topic partition this broker leads, its events run one at a time, its records
appended through ``ReplicaManager`` and answered once they commit. ``group/`` is the group
coordinator on it (org.apache.kafka.coordinator.group); ``transaction/`` the transaction
coordinator (kafka.coordinator.transaction). Seed 000: the coordinators "only need to talk to the
Replica Manager"; none of them touches a Log.
"""
