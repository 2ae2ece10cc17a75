"""AdminManager: creating and deleting topics (Kafka's kafka.server.ZkAdminManager; in KRaft mode the
controller's ReplicationControlManager plays this part).

It checks a request the way Kafka does (topic name, partition count, replication factor, topic
configs), records the topic in the ClusterMetadataStore and the MetadataCache, and makes this
broker the leader of the new partitions through the ReplicaManager. KafkaApis' CreateTopics,
DeleteTopics, and auto-creation on Metadata and Produce all come here.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import uuid
from dataclasses import dataclass

import structlog

from kafka.log.log_config import LogConfig
from kafka.protocol.errors import Errors
from kafka.server.cluster_metadata_store import ClusterMetadataStore
from kafka.server.metadata_cache import MetadataCache, TopicMetadata

log = structlog.get_logger("kafka.server.AdminManager")

MAX_TOPIC_NAME_LENGTH = 249
_LEGAL_TOPIC_CHARS = re.compile(r"^[a-zA-Z0-9._-]+$")


class TopicError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True)
class CreatedTopic:
    metadata: TopicMetadata
    log_config: LogConfig


def validate_topic_name(name: str) -> None:
    """Kafka's Topic.validate."""
    if not name:
        raise TopicError(Errors.INVALID_TOPIC_EXCEPTION, "topic name is empty")
    if name in (".", ".."):
        raise TopicError(Errors.INVALID_TOPIC_EXCEPTION, f"topic name cannot be {name!r}")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise TopicError(Errors.INVALID_TOPIC_EXCEPTION,
                         f"topic name is longer than {MAX_TOPIC_NAME_LENGTH} characters")
    if not _LEGAL_TOPIC_CHARS.match(name):
        raise TopicError(Errors.INVALID_TOPIC_EXCEPTION,
                         f"topic name {name!r} may contain only ASCII letters, digits, '.', '_' and '-'")


class AdminManager:
    def __init__(self, config, metadata_cache: MetadataCache, replica_manager,
                 store: ClusterMetadataStore, default_log_config: LogConfig) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.replica_manager = replica_manager
        self.store = store
        self.default_log_config = default_log_config
        self._lock = threading.Lock()  # one topic change at a time, like the controller's single thread

    def load_topics(self, topics: list[TopicMetadata]) -> None:
        """At start-up: become leader again for every topic the store remembers."""
        for topic in topics:
            self.metadata_cache.update_topic(topic)
            self.replica_manager.make_leaders(topic.name, topic.num_partitions, self.log_config_for(topic))

    def log_config_for(self, topic: TopicMetadata) -> LogConfig:
        return LogConfig.from_props(topic.configs, self.default_log_config)

    def create_topic(self, name: str, num_partitions: int = -1, replication_factor: int = -1,
                     configs: dict[str, str] | None = None, validate_only: bool = False) -> CreatedTopic:
        """Create one topic, or raise TopicError with Kafka's error code and a message."""
        validate_topic_name(name)
        partitions = self.config.num_partitions if num_partitions == -1 else num_partitions
        replicas = self.config.default_replication_factor if replication_factor == -1 else replication_factor
        if partitions <= 0:
            raise TopicError(Errors.INVALID_PARTITIONS, f"number of partitions must be positive, got {partitions}")
        if replicas <= 0:
            raise TopicError(Errors.INVALID_REPLICATION_FACTOR,
                             f"replication factor must be positive, got {replicas}")
        alive = len(self.metadata_cache.alive_brokers())
        if replicas > alive:
            raise TopicError(Errors.INVALID_REPLICATION_FACTOR,
                             f"replication factor {replicas} is larger than the {alive} available broker(s)")
        configs = dict(configs or {})
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            raise TopicError(Errors.INVALID_CONFIG, str(e)) from None
        with self._lock:
            if self.metadata_cache.contains(name):
                raise TopicError(Errors.TOPIC_ALREADY_EXISTS, f"topic '{name}' already exists")
            metadata = TopicMetadata(name, uuid.uuid4(), partitions, configs, name.startswith("__"))
            if not validate_only:
                existing = self.metadata_cache.all_topics()
                try:
                    self.store.save(self.metadata_cache.cluster_id, [*existing, metadata])
                    self.replica_manager.make_leaders(name, partitions, log_config)
                except OSError as e:  # a full disk: leave no half-made topic behind, answer with a code
                    self._undo_create(name, existing, e)
                    raise TopicError(Errors.KAFKA_STORAGE_ERROR, f"cannot create topic '{name}': {e}") from None
                self.metadata_cache.update_topic(metadata)
                log.info("created topic", topic=name, partitions=partitions, configs=configs)
        return CreatedTopic(metadata, log_config)

    def _undo_create(self, name: str, existing: list[TopicMetadata], error: OSError) -> None:
        log.error("cannot create topic: storage error", topic=name, error=str(error))
        try:
            self.replica_manager.delete_partitions(name)
            self.store.save(self.metadata_cache.cluster_id, existing)
        except OSError as e:
            log.error("could not undo the topic's creation; a restart will find what is on disk",
                      topic=name, error=str(e))

    def maybe_auto_create_topic(self, name: str) -> TopicMetadata | None:
        """auto.create.topics.enable: create a topic on first use with the broker defaults.

        Internal topics (`__consumer_offsets`) are never created this way: their owner creates them
        with the partitions and configs they need (compaction), on first real use."""
        if not self.config.auto_create_topics_enable or name.startswith("__"):
            return None
        try:
            return self.create_topic(name).metadata
        except TopicError as e:
            if e.error == Errors.TOPIC_ALREADY_EXISTS:  # another request created it first
                return self.metadata_cache.get_topic(name)
            raise

    def delete_topic(self, name: str) -> TopicMetadata:
        if not self.config.delete_topic_enable:
            raise TopicError(Errors.TOPIC_DELETION_DISABLED, "delete.topic.enable is false")
        with self._lock:
            topic = self.metadata_cache.get_topic(name)
            if topic is None:
                raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
            remaining = [t for t in self.metadata_cache.all_topics() if t.name != name]
            self._save(remaining)
            self.metadata_cache.remove_topic(name)
            self.replica_manager.delete_partitions(name)
            log.info("deleted topic", topic=name)
        return topic

    def alter_topic_configs(self, name: str, configs: dict[str, str], validate_only: bool = False) -> LogConfig:
        """Replace a topic's config overrides: checked whole, stored, then applied to its live logs
        (LogManager.update_topic_config), so retention and the cleaner act on them from their next run."""
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            raise TopicError(Errors.INVALID_CONFIG, str(e)) from None
        if validate_only:
            return log_config
        with self._lock:
            topic = self.metadata_cache.get_topic(name)
            if topic is None:
                raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
            updated = dataclasses.replace(topic, configs=dict(configs))
            self._save([updated if t.name == name else t for t in self.metadata_cache.all_topics()])
            self.metadata_cache.update_topic(updated)
            self.replica_manager.log_manager.update_topic_config(name, log_config)
            log.info("altered topic configs", topic=name, configs=configs)
        return log_config

    def create_partitions(self, name: str, new_count: int, assignments: list[list[int]] | None = None,
                          validate_only: bool = False) -> TopicMetadata:
        """Grow a topic to ``new_count`` partitions (Kafka's createPartitions): never shrink it.
        Keys hash differently afterwards -- which is why Kafka only ever adds partitions on request."""
        with self._lock:
            topic = self.metadata_cache.get_topic(name)
            if topic is None:
                raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
            if new_count <= topic.num_partitions:
                raise TopicError(Errors.INVALID_PARTITIONS, f"topic currently has {topic.num_partitions} "
                                 f"partitions, which is higher than or equal to the requested {new_count}")
            if assignments is not None:
                alive = {b.node_id for b in self.metadata_cache.alive_brokers()}
                if len(assignments) != new_count - topic.num_partitions:
                    raise TopicError(Errors.INVALID_REPLICA_ASSIGNMENT,
                                     f"{len(assignments)} assignments given for "
                                     f"{new_count - topic.num_partitions} new partitions")
                unknown = sorted({b for a in assignments for b in a} - alive)
                if unknown or any(not a for a in assignments):
                    raise TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, f"unknown or missing broker ids {unknown}")
            updated = dataclasses.replace(topic, num_partitions=new_count)
            if not validate_only:
                try:
                    self._save([updated if t.name == name else t for t in self.metadata_cache.all_topics()])
                    self.replica_manager.make_leaders(name, new_count, self.log_config_for(updated))
                except OSError as e:  # a full disk; the partitions already made stay, the count does not move
                    self._save(self.metadata_cache.all_topics(), quiet=True)
                    raise TopicError(Errors.KAFKA_STORAGE_ERROR, f"cannot create partitions of '{name}': {e}") from None
                self.metadata_cache.update_topic(updated)
                log.info("created partitions", topic=name, partitions=new_count)
        return updated

    def _save(self, topics: list[TopicMetadata], quiet: bool = False) -> None:
        """Write the topic list; a storage error becomes KAFKA_STORAGE_ERROR (or is only logged)."""
        try:
            self.store.save(self.metadata_cache.cluster_id, topics)
        except OSError as e:
            if quiet:
                log.error("cannot write the cluster metadata", error=str(e))
                return
            raise TopicError(Errors.KAFKA_STORAGE_ERROR, f"cannot write the cluster metadata: {e}") from None

    def topic_name_for_id(self, topic_id: uuid.UUID) -> str | None:
        return next((t.name for t in self.metadata_cache.all_topics() if t.topic_id == topic_id), None)
