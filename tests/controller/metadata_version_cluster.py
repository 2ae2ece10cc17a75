"""A two-controller Cluster (tests/controller/test_quorum_controller.py) whose log starts at a chosen
metadata.version, as `kafka-storage format --release-version` starts it (bootstrap.checkpoint's
FeatureLevelRecord): the tests of a level's gate send the same request below the level and at it."""

from __future__ import annotations

from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.raft.batch import LeaderAndEpoch
from kafka.utils.time import MockTime
from tests.controller.test_quorum_controller import CLUSTER, Cluster, LocalRaft


class ClusterAt(Cluster):
    def __init__(self, metadata_version: int) -> None:  # Cluster's, each controller bootstrapped at the level
        self.time = MockTime()
        self.raft = LocalRaft()
        config = QuorumControllerConfig(num_partitions=1, default_replication_factor=1)
        self.active = QuorumController(1, self.raft, self.time, config, CLUSTER, threaded=False)
        self.standby = QuorumController(2, self.raft, self.time, config, CLUSTER, threaded=False)
        for c in (self.active, self.standby):
            c.bootstrap_records = [record(MetadataRecordType.FEATURE_LEVEL_RECORD, name="metadata.version",
                                          feature_level=metadata_version)]
            c.handle_leader_change(LeaderAndEpoch(1, 1))
        self.step()
        assert self.active.features.metadata_version == metadata_version
