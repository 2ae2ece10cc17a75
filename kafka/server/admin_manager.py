"""AdminManager: the broker's side of creating, deleting and altering topics (in Kafka, KafkaApis with
ForwardingManager and AutoTopicCreationManager; the deciding is the controller's
ReplicationControlManager and ConfigurationControlManager).

Seed 004: a KRaft broker decides no metadata. KafkaApis' CreateTopics, DeleteTopics,
CreatePartitions and config changes, auto-creation on Metadata and Produce, and the group
coordinator's creation of __consumer_offsets all come here; each is forwarded to the active
controller, and answered once this broker's MetadataCache shows the change, so a client that
creates a topic and then produces to the same broker finds it there. The controller checks names, counts and placement
(ReplicationControlManager); the broker checks only the configs, whose LogConfig it needs itself.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import structlog

from kafka.controller.replication_control_manager import (
    ReplicationError,
    validate_total_new_partitions,
    validate_total_number_of_partitions,
)
from kafka.log.log_config import LogConfig
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.forwarding_manager import ControllerUnavailableError, ForwardingManager
from kafka.server.metadata_cache import MetadataCache, TopicMetadata

log = structlog.get_logger("kafka.server.AdminManager")

class TopicError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True)
class CreatedTopic:
    metadata: TopicMetadata
    log_config: LogConfig


TOPIC_RESOURCE = 2  # ConfigResource.Type.TOPIC
SET, DELETE = 0, 1  # IncrementalAlterConfigs operations
CONTROLLER_TIMEOUT_MS = 30_000
# Creating a topic on first use (Metadata, Produce, FindCoordinator) holds an I/O thread: without a
# controller to answer (no quorum), give up soon and let the client retry, as Kafka's
# LEADER_NOT_AVAILABLE makes it, rather than let every such request freeze an I/O thread for 30 s.
AUTO_CREATE_TIMEOUT_MS = 3_000
METADATA_PROPAGATION_TIMEOUT_S = 5.0


class AdminManager:
    def __init__(self, config, metadata_cache: MetadataCache, forwarding_manager: ForwardingManager,
                 default_log_config: LogConfig) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.forwarding_manager = forwarding_manager
        self.default_log_config = default_log_config

    def log_config_for(self, topic: TopicMetadata) -> LogConfig:
        return LogConfig.from_props(topic.configs, self.default_log_config)

    def topic_name_for_id(self, topic_id: uuid.UUID) -> str | None:
        return self.metadata_cache.topic_name_for_id(topic_id)

    # ------------------------------------------------------------------ talking to the controller
    def _forward(self, api_key: ApiKey, body: dict, max_version: int | None = None,
                 timeout_ms: int = CONTROLLER_TIMEOUT_MS):
        try:
            return self.forwarding_manager.forward_and_wait(api_key, body, timeout_ms, max_version)
        except ControllerUnavailableError as e:
            raise TopicError(e.error, str(e)) from None

    def _await_metadata(self, condition, what: str) -> None:
        """The controller has committed the change; wait until this broker has applied it too."""
        if not self.metadata_cache.await_update(condition, METADATA_PROPAGATION_TIMEOUT_S):
            log.warning("change committed by the controller but not yet seen by this broker", change=what)

    @staticmethod
    def _raise_for(result) -> None:
        error = Errors.for_code(result.error_code)
        if error != Errors.NONE:
            raise TopicError(error, result.get("error_message") or error.description)

    # ------------------------------------------------------------------ bounds on a whole request
    def validate_create_topics_batch(self, topics) -> None:
        """Kafka's cap on the partitions one CreateTopics may create, over all its topics; checked here
        too because this broker forwards the request topic by topic, so no one controller call sees it whole."""
        try:
            validate_total_number_of_partitions(topics, self.config.num_partitions)
        except ReplicationError as e:
            raise TopicError(e.error, str(e)) from None

    def validate_create_partitions_batch(self, topics) -> None:
        try:
            validate_total_new_partitions(topics, self.metadata_cache.num_partitions)
        except ReplicationError as e:
            raise TopicError(e.error, str(e)) from None

    # ------------------------------------------------------------------ topics
    def create_topic(self, name: str, num_partitions: int = -1, replication_factor: int = -1,
                     configs: dict[str, str] | None = None, validate_only: bool = False,
                     timeout_ms: int = CONTROLLER_TIMEOUT_MS,
                     assignments: dict[int, list[int]] | None = None) -> CreatedTopic:
        """Create one topic, or raise TopicError with Kafka's error code and a message. With
        `assignments` (partition -> broker ids) the controller places nothing and checks them itself."""
        configs = dict(configs or {})
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            raise TopicError(Errors.INVALID_CONFIG, str(e)) from None
        if assignments:
            partitions = replicas = -1
            wanted = [dict(partition_index=i, broker_ids=ids) for i, ids in assignments.items()]
        else:
            partitions = self.config.num_partitions if num_partitions == -1 else num_partitions
            replicas = self.config.default_replication_factor if replication_factor == -1 else replication_factor
            wanted = []
        body = dict(topics=[dict(name=name, num_partitions=partitions, replication_factor=replicas, assignments=wanted,
                                 configs=[dict(name=k, value=v) for k, v in sorted(configs.items())])],
                    timeout_ms=timeout_ms, validate_only=validate_only)
        result = self._forward(ApiKey.CREATE_TOPICS, body, timeout_ms=timeout_ms).topics[0]
        self._raise_for(result)
        partitions = result.num_partitions
        replicas = result.replication_factor
        metadata = TopicMetadata(name, result.topic_id, partitions, configs, name.startswith("__"))
        if not validate_only:
            self._await_metadata(lambda cache: cache.contains(name), f"create topic {name}")
            metadata = self.metadata_cache.get_topic(name) or metadata
            log.info("created topic", topic=name, partitions=partitions, replication_factor=replicas,
                     configs=configs)
        return CreatedTopic(metadata, log_config)

    def maybe_auto_create_topic(self, name: str) -> TopicMetadata | None:
        """auto.create.topics.enable: create a topic on first use with the broker defaults.

        Internal topics (`__consumer_offsets`) are never created this way: their owner creates them
        with the partitions and configs they need (compaction), on first real use."""
        if not self.config.auto_create_topics_enable or name.startswith("__"):
            return None
        try:
            return self.create_topic(name, timeout_ms=AUTO_CREATE_TIMEOUT_MS).metadata
        except TopicError as e:
            if e.error == Errors.TOPIC_ALREADY_EXISTS:  # another request created it first
                self._await_metadata(lambda cache: cache.contains(name), f"create topic {name}")
                return self.metadata_cache.get_topic(name)
            if e.error in (Errors.REQUEST_TIMED_OUT, Errors.BROKER_NOT_AVAILABLE):
                raise TopicError(Errors.LEADER_NOT_AVAILABLE, f"no controller answered in time: {e}") from None
            raise

    def delete_topic(self, name: str) -> TopicMetadata:
        if not self.config.delete_topic_enable:
            raise TopicError(Errors.TOPIC_DELETION_DISABLED, "delete.topic.enable is false")
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
        result = self._forward(ApiKey.DELETE_TOPICS, dict(topic_names=[name], timeout_ms=CONTROLLER_TIMEOUT_MS),
                               max_version=5).responses[0]
        self._raise_for(result)
        self._await_metadata(lambda cache: not cache.contains(name), f"delete topic {name}")
        log.info("deleted topic", topic=name)
        return topic

    def alter_topic_configs(self, name: str, configs: dict[str, str], validate_only: bool = False) -> LogConfig:
        """Replace a topic's config overrides as a whole (checked here, decided by the controller); the
        publisher then applies them to the live logs (LogManager.update_topic_config)."""
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            raise TopicError(Errors.INVALID_CONFIG, str(e)) from None
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
        ops = [dict(name=k, config_operation=SET, value=v) for k, v in sorted(configs.items())]
        ops += [dict(name=k, config_operation=DELETE, value=None) for k in sorted(set(topic.configs) - set(configs))]
        body = dict(resources=[dict(resource_type=TOPIC_RESOURCE, resource_name=name, configs=ops)],
                    validate_only=validate_only)
        result = self._forward(ApiKey.INCREMENTAL_ALTER_CONFIGS, body).responses[0]
        self._raise_for(result)
        if not validate_only:
            self._await_metadata(lambda cache: (t := cache.get_topic(name)) is not None and t.configs == configs,
                                 f"alter configs of {name}")
            log.info("altered topic configs", topic=name, configs=configs)
        return log_config

    def create_partitions(self, name: str, new_count: int, assignments: list[list[int]] | None = None,
                          validate_only: bool = False) -> TopicMetadata:
        """Grow a topic to ``new_count`` partitions (Kafka's createPartitions): never shrink it.
        Keys hash differently afterwards -- which is why Kafka only ever adds partitions on request."""
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            raise TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{name}' does not exist")
        body = dict(topics=[dict(name=name, count=new_count,
                                 assignments=None if assignments is None else [dict(broker_ids=a) for a in assignments])],
                    timeout_ms=CONTROLLER_TIMEOUT_MS, validate_only=validate_only)
        result = self._forward(ApiKey.CREATE_PARTITIONS, body).results[0]
        self._raise_for(result)
        if validate_only:
            return topic
        self._await_metadata(lambda cache: (cache.num_partitions(name) or 0) >= new_count,
                             f"create partitions of {name}")
        log.info("created partitions", topic=name, partitions=new_count)
        return self.metadata_cache.get_topic(name) or topic
