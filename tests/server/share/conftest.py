"""Real collaborators for the share tests: a ReplicaManager on a temporary directory leading one
partition (one replica, so an append moves the high watermark at once), its fetch purgatory without
a reaper thread, a SystemTimer on a MockTime for the acquisition locks, and an in-memory persister."""

from __future__ import annotations

import uuid

import pytest

from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.network.end_point import EndPoint
from kafka.protocol.record_batch import build_batch
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import Broker, MetadataCache, PartitionState, TopicMetadata
from kafka.server.replica_manager import ReplicaManager
from kafka.server.share.log_reader import ReplicaManagerLogReader
from kafka.server.share.partition_metadata_provider import ReplicaManagerPartitionMetadataProvider
from kafka.server.share.session.share_session_cache import ShareSessionCache
from kafka.server.share.share_group_config_provider import ShareGroupConfigProvider
from kafka.server.share.share_group_metrics import ShareGroupMetrics
from kafka.server.share.share_partition_manager import SharePartitionManager
from kafka.utils.time import MockTime
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition
from tests.server.share.in_memory_persister import InMemoryPersister

TOPIC_ID = uuid.UUID("11111111-2222-3333-4444-555555555555")
TP = TopicPartition("orders", 0)
TIP = TopicIdPartition(TOPIC_ID, "orders", 0)
GROUP = "g1"


def metadata_cache() -> MetadataCache:
    """The cluster as the metadata says: orders-0 led here (broker 1), orders-1 led by broker 2."""
    brokers = {node: Broker(node, (EndPoint("PLAINTEXT", "localhost", 9091 + node),), rack=f"rack-{node}")
               for node in (1, 2)}
    cache = MetadataCache("cluster", brokers[1])
    cache.set_snapshot({"orders": TopicMetadata("orders", TOPIC_ID, 2, partitions=(
        PartitionState(0, leader=1, leader_epoch=0, replicas=(1,), isr=(1,)),
        PartitionState(1, leader=2, leader_epoch=3, replicas=(2,), isr=(2,))))}, brokers, 0)
    return cache


class Env:
    def __init__(self, tmp_path, group_configs: dict | None = None) -> None:
        self.time = MockTime()
        self.metadata_cache = metadata_cache()
        self.log_manager = LogManager([str(tmp_path)], LogConfig(), self.time, node_id=1)
        self.log_manager.startup()
        self.replica_manager = ReplicaManager(
            KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path)}), self.log_manager,
            metadata_cache=self.metadata_cache,
            time=self.time,
            produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=self.time),
            fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=self.time))
        self.lead(leader_epoch=0)
        self.timer = SystemTimer("share-group-lock-timeout", time=self.time)
        self.persister = InMemoryPersister()
        self.group_configs = dict(group_configs or {"share.auto.offset.reset": "earliest"})
        self.config_provider = ShareGroupConfigProvider(lambda group_id: self.group_configs)
        self.metrics = ShareGroupMetrics(self.time)
        self.sessions = ShareSessionCache(max_entries=3, on_eviction=self.metrics.session_evictions.inc)
        self.manager = self.new_manager()

    def new_manager(self) -> SharePartitionManager:
        return SharePartitionManager(
            log_reader=ReplicaManagerLogReader(self.replica_manager),
            metadata_provider=ReplicaManagerPartitionMetadataProvider(self.replica_manager), time=self.time,
            timer=self.timer, purgatory=self.replica_manager.delayed_fetch_purgatory,
            action_queue=self.replica_manager.add_to_action_queue,
            persister=self.persister,
            config_provider=self.config_provider, metrics=self.metrics, session_cache=self.sessions)

    def lead(self, leader_epoch: int) -> None:
        self.replica_manager.make_leader(TP,
                                         PartitionState(0, leader=1, leader_epoch=leader_epoch, replicas=(1,),
                                                            isr=(1,), partition_epoch=leader_epoch),
                                                            LogConfig())

    def produce(self, *values: bytes, **batch_args) -> None:
        """One batch of records (acks=1: with one replica the high watermark moves at once)."""
        answers = []
        self.replica_manager.append_records(1000, 1, False, {TP: build_batch([(None, v) for v in values],
                                                                             **batch_args)}, answers.append)
        assert answers and answers[0][TP].error == 0

    def advance(self, ms: int) -> None:
        """Time passes: acquisition locks and waiting fetches that are due expire."""
        self.time.advance(ms)
        self.timer.advance_clock(0)
        self.replica_manager.delayed_fetch_purgatory.advance_clock(0)

    def close(self) -> None:
        self.timer.shutdown()
        self.replica_manager.shutdown()
        self.log_manager.shutdown()


@pytest.fixture
def env(tmp_path):
    environment = Env(tmp_path)
    yield environment
    environment.close()
