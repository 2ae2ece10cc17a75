"""BrokerMetadataPublisher: each committed metadata change, applied to this broker (Kafka's
kafka.server.metadata.BrokerMetadataPublisher).

Seed 004: brokers "passively" follow the metadata log. The MetadataLoader replays committed records
into an immutable MetadataImage and hands every new image to its publishers; this one makes the
broker match it:

    MetadataCache       topics, partitions (leader, epoch, replicas, ISR), live brokers: what
                        Metadata, Produce, Fetch and FindCoordinator read
    ReplicaManager      become leader or follower of each partition this broker is a replica of
                        (logs created on the way), stop hosting and delete removed ones
    LogManager          topic config changes reach the live logs
    GroupCoordinator    load the __consumer_offsets partitions it now leads, drop those it stopped leading;
                        a group's changed configs (GROUP ConfigRecords) to its GroupConfigManager, as
                        Kafka's DynamicConfigPublisher hands them to GroupConfigHandler
    TransactionCoordinator  the same for __transaction_state, at the partition's leader epoch (the
                        coordinator epoch its markers carry)
    ShareCoordinator    the same for __share_group_state; started on the first image (its partition
                        count is the topic's, if it exists); every image, for deleted topics and the
                        share.version feature its periodic jobs follow
    SharePartitionManager  share.version going to 0 drops every share session and share partition

A partition whose leader, leader epoch or partition epoch changed is handed to the ReplicaManager
again: a new leader epoch means a new leadership (or a new leader to fetch from, truncating first);
a new partition epoch alone means the controller committed an ISR change (maybe one this broker
asked for with AlterPartition). A partition whose replica set no longer includes this broker (a
reassignment moved it away) stops being hosted here and its log is deleted.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import structlog

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.log.errors import LogDirError
from kafka.log.log_config import LogConfig
from kafka.network.end_point import EndPoint
from kafka.server.metadata_cache import Broker, PartitionState, TopicMetadata
from kafka.server.remote.remote_log_components import maybe_update_remote_log_components
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.metadata.BrokerMetadataPublisher")

TOPIC_RESOURCE, GROUP_RESOURCE = 2, 32  # ConfigRecord.resource_type
METADATA_VERSION = "metadata.version"
SHARE_VERSION = "share.version"


class BrokerMetadataPublisher:
    def __init__(self, config, metadata_cache, replica_manager, log_manager, group_coordinator,
                 default_log_config: LogConfig, transaction_coordinator=None, share_coordinator=None,
                 share_partition_manager=None) -> None:
        self.config = config
        self.node_id = config.node_id
        self.metadata_cache = metadata_cache
        self.replica_manager = replica_manager
        self.log_manager = log_manager
        self.group_coordinator = group_coordinator
        self.transaction_coordinator = transaction_coordinator
        self.share_coordinator = share_coordinator  # KIP-932: __share_group_state's shards
        self.share_partition_manager = share_partition_manager
        self._share_version = 0  # the finalized share.version applied last
        self.default_log_config = default_log_config
        self._image = None  # the image applied last
        self._update_listeners: list[Callable[[], None]] = []

    @staticmethod
    def supported_features() -> list[dict]:
        """What this broker registers as able to run (BrokerRegistrationRequest.features): metadata.version
        and share.version (Kafka's BrokerFeatures.createDefaultFeatureMap)."""
        from kafka.controller.feature_control_manager import supported_feature_ranges
        return supported_feature_ranges()

    def name(self) -> str:
        return "BrokerMetadataPublisher"

    # ------------------------------------------------------------------ one new image
    def on_metadata_update(self, delta, image, manifest=None) -> None:
        # Most commits touch neither topics nor brokers (the controller's NoOpRecord every
        # metadata.max.idle.interval.ms, a producer id block): then the cache keeps its topics and
        # brokers and only learns the new offset, as Kafka's publisher skips a delta's empty parts.
        # A delta that does not start from the image applied last (the first one, a snapshot
        # load) may have changed anything.
        from_last = getattr(delta, "image", None) is self._image and self._image is not None
        topics_changed = not from_last or self._topics_changed(delta)
        brokers_changed = not from_last or getattr(delta, "cluster_delta", None) is not None
        changed_groups = self._changed_group_configs(delta, image, from_last)
        # before the cache shows them: an alteration is answered once the cache does (AdminManager)
        self._update_group_configs(changed_groups, image)
        old_topics = {t.name: t for t in self.metadata_cache.all_topics()} if topics_changed else {}
        topics = self._topics(image) if topics_changed else None
        self.metadata_cache.finalized_features = dict(image.features.finalized_versions)
        self.metadata_cache.set_snapshot(topics, self._brokers(image) if brokers_changed else None,
                                         self._offset(image),
                                         self._group_configs(image) if changed_groups else None)
        if self._image is None:
            self._initialize_managers()
        if topics_changed:
            self._apply_topic_changes(old_topics, topics)
        # the shards keep the image for its topics, the service reads share.version: a NoOpRecord changes
        # neither
        if self.share_coordinator is not None and (topics_changed or getattr(delta, "features_delta", None)):
            self.share_coordinator.on_metadata_update(delta, image)
        self._maybe_toggle_share_version(image)
        self._image = image
        for listener in self._update_listeners:
            listener()

    def _initialize_managers(self) -> None:
        """The first image (Kafka's initializeManagers): the share coordinator starts, with as many
        partitions as __share_group_state has if it exists, else
        share.coordinator.state.topic.num.partitions."""
        if self.share_coordinator is not None:
            topic = self.metadata_cache.get_topic(SHARE_GROUP_STATE_TOPIC_NAME)
            self.share_coordinator.startup(lambda: topic.num_partitions if topic is not None
                                           else self.config.share_coordinator_state_topic_num_partitions)

    def _maybe_toggle_share_version(self, image) -> None:
        level = image.features.finalized_versions.get(SHARE_VERSION, 0)
        if level == self._share_version:
            return
        self._share_version = level
        log.info("share.version changed", level=level)
        if self.share_partition_manager is not None:
            self.share_partition_manager.on_share_version_toggle(level >= 1)

    def add_update_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener` on this thread once each update is applied, to the cache and to the
        partitions: admin changes waiting for this broker to show them are tried again there
        (AdminManager.metadata_updated)."""
        self._update_listeners.append(listener)

    def _topics_changed(self, delta) -> bool:
        configs = getattr(delta, "configs_delta", None) or ()
        return getattr(delta, "topics_delta", None) is not None or \
            any(t == TOPIC_RESOURCE for t, _ in configs)

    # ------------------------------------------------------------------ group configs
    def _changed_group_configs(self, delta, image, from_last: bool) -> set[str]:
        """The groups whose configs this update changed: all there are (and were) when it does not follow
        the image applied last."""
        if not from_last:
            known = self.group_coordinator.group_config_manager.group_ids() if self.group_coordinator else []
            return {name for t, name in image.configs.resources if t == GROUP_RESOURCE} | set(known)
        return {name for t, name in getattr(delta, "configs_delta", None) or () if t == GROUP_RESOURCE}

    @staticmethod
    def _group_configs(image) -> dict[str, dict[str, str]]:
        return {name: dict(props) for (t, name), props in image.configs.resources.items()
                if t == GROUP_RESOURCE}

    def _update_group_configs(self, groups: set[str], image) -> None:
        """Kafka's DynamicConfigPublisher for GROUP resources: each changed group's configs, all of them (none
        left: it forgets the group). A value the controller accepted cannot be bad; if one is, the group
        keeps its old configs and the error is logged, as Kafka's fault handler does."""
        for group_id in sorted(groups) if self.group_coordinator is not None else ():
            props = image.configs.config_props(GROUP_RESOURCE, group_id)
            try:
                self.group_coordinator.update_group_config(group_id, props)
            except ValueError as e:
                log.error("cannot apply a group's configs", group_id=group_id, configs=props, error=str(e))

    def _apply_topic_changes(self, old: dict[str, TopicMetadata], new: dict[str, TopicMetadata]) -> None:
        for name, topic in old.items():
            if name not in new or new[name].topic_id != topic.topic_id:
                self._delete_topic(name)
        elected, resigned = [], []
        offline: dict[TopicPartition, str] = {}
        for name, topic in new.items():
            log_config = LogConfig.from_props(topic.configs, self.default_log_config)
            previous = old.get(name)
            if previous is not None and previous.configs != topic.configs:
                self.log_manager.update_topic_config(name, log_config)
                old_config = LogConfig.from_props(previous.configs, self.default_log_config)
                maybe_update_remote_log_components(self.replica_manager, topic, old_config, log_config)
            elif previous is None and topic.configs:  # a restarted broker loaded its logs before this
                self.log_manager.update_topic_config(name, log_config)
            moved_away = []
            for state in topic.partitions:
                tp = TopicPartition(name, state.partition)
                if self.replica_manager.is_offline(tp):
                    continue  # already reported; Kafka retries an offline partition only after a restart
                if self.node_id not in state.replicas:
                    if self.replica_manager.get_partition(tp) is not None:
                        moved_away.append(tp)
                    continue
                try:
                    change = self._apply_partition(tp, state, log_config)
                except (OSError, LogDirError) as e:  # a full or failed log dir, EMFILE: offline here
                    offline[tp] = str(e)
                    continue
                if change == "elected":
                    elected.append(tp)
                elif change == "resigned":
                    resigned.append(tp)
            if moved_away:
                log.info("no longer a replica: deleting", partitions=[str(tp) for tp in moved_away])
                resigned += [tp for tp in moved_away if self.replica_manager.get_partition(tp).is_leader]
                self.replica_manager.stop_replicas(moved_away, delete=True)
        if offline:  # one line for the lot: 7,000 partitions that cannot be hosted are one event
            first, error = next(iter(offline.items()))
            log.error("cannot host partitions: their logs cannot be created; they answer KAFKA_STORAGE_ERROR "
                      "until the broker restarts", partitions=len(offline), first=str(first), error=error,
                      offline_partitions=len(self.replica_manager.offline_partitions()))
        self._update_coordinator(elected, resigned)
        if elected or resigned:
            log.info("leadership changed", became_leader=[str(tp) for tp in elected],
                     became_follower=[str(tp) for tp in resigned])

    def _apply_partition(self, tp: TopicPartition, state: PartitionState,
                         log_config: LogConfig) -> str | None:
        """Become leader or follower of one partition as the image says; 'elected', 'resigned' or None."""
        partition = self.replica_manager.get_partition(tp)
        was_leader = partition is not None and partition.is_leader
        unchanged = (partition is not None and partition.leader_id == state.leader
                     and partition.leader_epoch == state.leader_epoch
                     and partition.partition_epoch == state.partition_epoch)
        if unchanged:
            return None
        if state.leader == self.node_id:
            self.replica_manager.make_leader(tp, state, log_config)
            return None if was_leader else "elected"
        self.replica_manager.make_follower(tp, state, log_config)
        return "resigned" if was_leader else None

    def _delete_topic(self, name: str) -> None:
        self.replica_manager.delete_partitions(name)
        if name == GROUP_METADATA_TOPIC_NAME:
            for partition in range(self.config.offsets_topic_num_partitions):
                self.group_coordinator.on_resignation(partition, None)
        if name == TRANSACTION_STATE_TOPIC_NAME and self._has_transaction_coordinator():
            for partition in range(self.config.transaction_state_log_num_partitions):
                self.transaction_coordinator.on_resignation(partition)
        if name == SHARE_GROUP_STATE_TOPIC_NAME and self.share_coordinator is not None:
            for partition in range(self.share_coordinator.num_partitions):
                self.share_coordinator.on_resignation(partition, None)
        log.info("deleted topic's partitions", topic=name)

    def _update_coordinator(self, elected: list[TopicPartition], resigned: list[TopicPartition]) -> None:
        """Kafka's onElection / onResignation of the group, transaction and share coordinators."""
        for tp in resigned:
            if tp.topic == GROUP_METADATA_TOPIC_NAME:
                partition = self.replica_manager.get_partition(tp)
                self.group_coordinator.on_resignation(tp.partition, partition.leader_epoch if partition
                                                      else None)
        for tp in elected:
            partition = self.replica_manager.get_partition(tp)
            if tp.topic == GROUP_METADATA_TOPIC_NAME and partition is not None:
                self.group_coordinator.on_election(tp.partition, partition.leader_epoch)
        if self._has_transaction_coordinator():
            for tp in resigned:
                if tp.topic == TRANSACTION_STATE_TOPIC_NAME:
                    self.transaction_coordinator.on_resignation(tp.partition)
            for tp in elected:
                partition = self.replica_manager.get_partition(tp)
                if tp.topic == TRANSACTION_STATE_TOPIC_NAME and partition is not None:
                    self.transaction_coordinator.on_election(tp.partition, partition.leader_epoch)
        if self.share_coordinator is not None:
            for tp in resigned:
                if tp.topic == SHARE_GROUP_STATE_TOPIC_NAME:
                    partition = self.replica_manager.get_partition(tp)
                    self.share_coordinator.on_resignation(tp.partition,
                                                          partition.leader_epoch if partition else None)
            for tp in elected:
                partition = self.replica_manager.get_partition(tp)
                if tp.topic == SHARE_GROUP_STATE_TOPIC_NAME and partition is not None:
                    self.share_coordinator.on_election(tp.partition, partition.leader_epoch)

    def _has_transaction_coordinator(self) -> bool:
        coordinator = self.transaction_coordinator
        return coordinator is not None and coordinator.txn_manager is not None

    # ------------------------------------------------------------------ image -> cache
    def _offset(self, image) -> int:
        return image.provenance.last_contained_offset

    def _topics(self, image) -> dict[str, TopicMetadata]:
        topics = {}
        for topic in image.topics.topics_by_name.values():
            configs = dict(image.configs.config_props(TOPIC_RESOURCE, topic.name))
            partitions = tuple(
                PartitionState(index, p.leader, p.leader_epoch, tuple(p.replicas), tuple(p.isr),
                               p.partition_epoch, tuple(p.elr), tuple(p.last_known_elr))
                for index, p in sorted(topic.partitions.items()))
            topic_id = topic.id if isinstance(topic.id, uuid.UUID) else uuid.UUID(str(topic.id))
            topics[topic.name] = TopicMetadata(topic.name, topic_id, len(partitions), configs,
                                               topic.name.startswith("__"), partitions)
        return topics

    def _brokers(self, image) -> dict[int, Broker]:
        brokers = {}
        for broker_id, registration in image.cluster.brokers.items():
            end_points = tuple(EndPoint(name, e.host, e.port) for name, e in registration.listeners.items())
            brokers[broker_id] = Broker(broker_id, end_points, registration.rack,
                                        fenced=registration.fenced)
        return brokers

    def close(self) -> None:
        pass
