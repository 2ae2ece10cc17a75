"""The metadata image (Kafka's org.apache.kafka.image): the cluster as the metadata log describes it.

Seed 004: brokers "passively" follow the metadata log. A MetadataImage is an immutable picture of the
cluster at one offset of that log; a MetadataDelta replays records on top of an image and yields the
next one. The MetadataLoader feeds committed records through deltas and hands each new image to the
publishers that apply it (the broker's MetadataCache, ReplicaManager, ...).
"""
