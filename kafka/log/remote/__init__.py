"""Tiered storage (KIP-405): the interfaces and records between a broker's logs and remote storage.

Kafka's org.apache.kafka.server.log.remote.storage: what a RemoteStorageManager stores and fetches, what a
RemoteLogMetadataManager remembers about it, and the metadata of one remote segment.
"""
