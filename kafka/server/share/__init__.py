"""Share partitions on the broker (KIP-932): Kafka's kafka.server.share and org.apache.kafka.server.share.

The leader of a partition keeps, for each share group reading it, a SharePartition: the records in
flight between the share-partition start and end offsets, each available, acquired by one member
under a lock that times out, acknowledged or archived. The SharePartitionManager serves ShareFetch
and ShareAcknowledge over them, with share sessions and the DelayedShareFetch long poll; the state is
written through a Persister to the share coordinator. docs/share_groups.md ("Share partitions on the
broker") tells the story.
"""
