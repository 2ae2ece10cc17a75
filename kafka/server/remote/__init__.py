"""Tiered storage's broker-side plumbing (KIP-405): the TopicBasedRemoteLogMetadataManager over the
`__remote_log_metadata` topic, which reaches the cluster through the broker's own clients, and the builder
that turns the broker's remote.log.* keys into a RemoteLogManager."""
