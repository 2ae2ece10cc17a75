"""The KRaft metadata quorum (KIP-595): Raft over the __cluster_metadata log.

The core (KafkaRaftClient, QuorumState and its epoch states, LeaderState) takes messages and time
and returns messages, with no sockets or threads, so a seeded simulation can drive it
(tests/raft/). KafkaRaftClientDriver and KafkaNetworkChannel are its edge to the real world, and
KafkaMetadataLog stores the log with the commit log's UnifiedLog.
"""
