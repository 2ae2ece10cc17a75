"""The KRaft controller (Kafka's org.apache.kafka.controller): decides the cluster's metadata and writes it
to the metadata log through the raft client. Active on the quorum's leader; the others replay."""
