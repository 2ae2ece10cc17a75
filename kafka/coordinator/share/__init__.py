"""The share coordinator (Kafka's org.apache.kafka.coordinator.share, KIP-932): share groups' in-flight
state kept in ``__share_group_state`` on the coordinator runtime, so that a new leader of a share
partition resumes exactly where the old one stopped.

    ShareCoordinatorService       the front: splits requests by partition, runs them on the runtime
    ShareCoordinatorShard         one per __share_group_state partition led here: validates, merges,
                                  writes ShareSnapshot / ShareUpdate records, replays them
    PersisterStateBatchCombiner   merges the batches a write brings over the state held
    share_coordinator_records     the records, ShareCoordinatorRecordSerde their bytes

docs/share_groups.md ("The share coordinator") tells the story; the broker reaches this coordinator
through the persister (kafka/server/share/persister/) and serves it through ShareCoordinatorApis.
"""
