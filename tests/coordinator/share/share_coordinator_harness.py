"""One broker's share coordinator for the tests: the ShareCoordinatorService over the coordinator runtime,
appending through (and loading from) a real ReplicaManager that leads __share_group_state-0, on a mock
clock, with a metadata image that knows topic "t" (3 partitions).

Everything runs on the test's thread: the DirectEventProcessor runs each event when it is scheduled, the
loader's executor runs a load at once (or when the test says), and the runtime's SystemTimer expires its
tasks when advance() is called. A single-replica partition commits each append at once, so every answer
is a Future already done. Requests go through the real codec (a dict encoded, then decoded) as they would
arrive from a broker.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_record_serde import ShareCoordinatorRecordSerde
from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.share.share_coordinator_shard import ShareCoordinatorShard
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME
from kafka.image.features_image import FeaturesImage
from kafka.image.metadata_image import MetadataImage
from kafka.image.topics_image import PartitionRegistration, TopicImage, TopicsImage
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.record_batch import iter_batches
from kafka.protocol.schema import Record
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

STATE_TP = TopicPartition(SHARE_GROUP_STATE_TOPIC_NAME, 0)
TOPIC_ID = uuid.UUID(int=12345678901234567890)
UNKNOWN_TOPIC_ID = uuid.UUID(int=7)
CONFIG = ShareCoordinatorConfig(state_topic_num_partitions=1, snapshot_update_records_per_snapshot=3,
                                cold_partition_snapshot_interval_ms=60_000,
                                state_topic_prune_interval_ms=30_000)


def image_with_topic(num_partitions: int = 3, share_version: int = 0) -> MetadataImage:
    topic = TopicImage("t", TOPIC_ID,
                       {i: PartitionRegistration((1,), (1,), 1, 0, 0) for i in range(num_partitions)})
    features = FeaturesImage({"share.version": share_version} if share_version else {})
    return MetadataImage(features=features, topics=TopicsImage({TOPIC_ID: topic}, {"t": topic}))


def request(api_key: ApiKey, body: dict, version: int | None = None) -> Record:
    """`body` as the broker would read it off the wire: encoded at `version` (the newest by default)."""
    api = APIS[api_key]
    version = api.max_version if version is None else version
    out = bytearray()
    api.request.write(out, body, version, api.is_flexible(version))
    return api.request.read(bytes(out), version, api.is_flexible(version))


def batch(first: int, last: int, state: int, count: int) -> dict:
    return dict(first_offset=first, last_offset=last, delivery_state=state, delivery_count=count)


def done(future: Future):
    assert future.done(), "the answer should be there"
    return future.result()


def one_partition_body(group: str, topic_id: uuid.UUID, **fields) -> dict:
    """A share-state request's body for one partition of one topic (`fields`: the partition's)."""
    return dict(group_id=group, topics=[dict(topic_id=topic_id, partitions=[fields])])


def only_partition(response: dict) -> dict:
    [topic] = response["results"]
    [partition] = topic["partitions"]
    return partition


class ShareCoordinator:
    def __init__(self, replica_manager, time, config: ShareCoordinatorConfig = CONFIG, load_now: bool = True,
                 leader_epoch: int = 0, image: MetadataImage | None = None, start: bool = True) -> None:
        self.replica_manager = replica_manager
        self.time = time
        self.timer = SystemTimer("share-coordinator", time=time)
        self.loader_executor = QueuedExecutor(immediate=load_now)
        self.serde = ShareCoordinatorRecordSerde()
        self.runtime = CoordinatorRuntime(
            log_prefix="test", time=time, timer=self.timer, processor=DirectEventProcessor(),
            partition_writer=CoordinatorPartitionWriter(replica_manager),
            loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, self.serde, time,
                                         executor=self.loader_executor),
            coordinator_shard_builder=ShareCoordinatorShard.builder(config), serde=self.serde,
            metrics=CoordinatorRuntimeMetrics(time), default_write_timeout_ms=config.write_timeout_ms)
        self.runtime.metadata_image = image if image is not None else image_with_topic()
        self.service = ShareCoordinatorService(config, self.runtime, time, replica_manager.delete_records)
        if start:
            self.service.startup()
            self.service.on_election(0, leader_epoch)

    def shard(self) -> ShareCoordinatorShard:
        return self.runtime.context(STATE_TP).coordinator.coordinator

    def advance(self, ms: int) -> None:
        self.time.sleep(ms)
        self.timer.advance_clock(0)

    def shutdown(self) -> None:
        self.service.shutdown()

    def records(self) -> list:
        """Every record of __share_group_state-0 from its log start, decoded: (offset, record)."""
        start = self.replica_manager.get_partition(STATE_TP).log.log_start_offset
        read = self.replica_manager.read_partition_log(STATE_TP, start, 1 << 20)
        records = [r for b in iter_batches(read.records) for r in b]
        return [(r.offset, self.serde.deserialize(r.key, r.value)) for r in records]

    # ------------------------------------------------------------------ the five RPCs, one partition each
    def ask(self, rpc, api_key: ApiKey, body: dict) -> dict:
        """`body` through the codec to one of the service's RPCs; the answer of its only partition."""
        return only_partition(done(rpc(request(api_key, body))))

    def initialize(self, partition: int = 0, state_epoch: int = 0, start_offset: int = 0, group: str = "g",
                   topic_id: uuid.UUID = TOPIC_ID) -> dict:
        body = one_partition_body(group, topic_id, partition=partition, state_epoch=state_epoch,
                                  start_offset=start_offset)
        return self.ask(self.service.initialize_state, ApiKey.INITIALIZE_SHARE_GROUP_STATE, body)

    def write(self, batches: list[dict], partition: int = 0, state_epoch: int = 0, leader_epoch: int = 0,
              start_offset: int = -1, delivery_complete_count: int = -1, group: str = "g",
              topic_id: uuid.UUID = TOPIC_ID) -> dict:
        body = one_partition_body(group, topic_id, partition=partition, state_epoch=state_epoch,
                                  leader_epoch=leader_epoch, start_offset=start_offset,
                                  delivery_complete_count=delivery_complete_count, state_batches=batches)
        return self.ask(self.service.write_state, ApiKey.WRITE_SHARE_GROUP_STATE, body)

    def read(self, partition: int = 0, leader_epoch: int = 0, group: str = "g",
             topic_id: uuid.UUID = TOPIC_ID) -> dict:
        body = one_partition_body(group, topic_id, partition=partition, leader_epoch=leader_epoch)
        return self.ask(self.service.read_state, ApiKey.READ_SHARE_GROUP_STATE, body)

    def summary(self, partition: int = 0, leader_epoch: int = 0, group: str = "g",
                topic_id: uuid.UUID = TOPIC_ID) -> dict:
        body = one_partition_body(group, topic_id, partition=partition, leader_epoch=leader_epoch)
        return self.ask(self.service.read_state_summary, ApiKey.READ_SHARE_GROUP_STATE_SUMMARY, body)

    def delete(self, partition: int = 0, group: str = "g", topic_id: uuid.UUID = TOPIC_ID) -> dict:
        body = one_partition_body(group, topic_id, partition=partition)
        return self.ask(self.service.delete_state, ApiKey.DELETE_SHARE_GROUP_STATE, body)
