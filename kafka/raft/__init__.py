"""The KRaft metadata quorum (KIP-595): Raft over the __cluster_metadata log.

The core (KafkaRaftClient, QuorumState and its epoch states, LeaderState) takes messages and time
and returns messages, with no sockets or threads, so a seeded simulation can drive it
(tests/raft/). KafkaRaftClientDriver is its edge to the real world: the one thread that steps it,
with no lock held over the log's writes (other threads append through the BatchAccumulator and
read the PublishedQuorumState), sending through the network channel the server hands it
(kafka/server/kafka_network_channel.py, a NetworkClient to the voters, built where Kafka's
KafkaRaftManager builds it, so this package stays below the client library). KafkaMetadataLog
stores the log with the commit log's UnifiedLog.
"""
