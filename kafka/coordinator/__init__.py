"""Consumer groups and committed offsets: the GroupCoordinator and its GroupMetadataManager.

Mirrors Kafka's ``kafka.coordinator.group`` package. The coordinator keeps its state as records in
the internal ``__consumer_offsets`` topic, appended only through ``ReplicaManager.append_records``
(seed 000: the offset manager "only needs to talk to the Replica Manager"); it never touches a Log.
"""
