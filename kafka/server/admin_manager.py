"""AdminManager: the broker's side of creating, deleting and altering topics (in Kafka, KafkaApis with
ForwardingManager; the deciding is the controller's ReplicationControlManager and
ConfigurationControlManager).

Seed 004: a KRaft broker decides no metadata. KafkaApis' CreateTopics, DeleteTopics,
CreatePartitions and config changes, and the AutoTopicCreationManager's creations on Metadata and
FindCoordinator, all come here; each is forwarded to the active controller and answered once this
broker's MetadataCache shows the change, so a client that creates a topic and then produces to the
same broker finds it there. The controller checks names, counts and placement
(ReplicationControlManager); the broker checks only the configs, whose LogConfig it needs itself.

Nothing here waits. Each method returns a Future at once: the ForwardingManager's callback
completes the controller's part, a DelayedMetadataChange in the "topic" purgatory the broker's part,
and the handler that asked answers its client from the Future's callback, on whichever thread
completed it (see kafka/utils/future_utils.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import structlog

from kafka.controller.configuration_control_manager import ConfigError, apply_config_ops
from kafka.controller.request_bounds import (
    ReplicationError,
    validate_total_new_partitions,
    validate_total_number_of_partitions,
)
from kafka.log.log_config import LogConfig
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.schema import Record
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.server.client_metrics_configs import CLIENT_METRICS_RESOURCE
from kafka.server.delayed_metadata_change import METADATA_UPDATE_KEY, DelayedMetadataChange
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.metadata_cache import MetadataCache, TopicMetadata
from kafka.utils import future_utils
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.AdminManager")

class TopicError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True)
class CreatedTopic:
    metadata: TopicMetadata
    log_config: LogConfig


TOPIC_RESOURCE, BROKER_RESOURCE, GROUP_RESOURCE = 2, 4, 32  # ConfigResource.Type
SET, DELETE = 0, 1  # IncrementalAlterConfigs operations
CONTROLLER_TIMEOUT_MS = 30_000  # Kafka forwards with request.timeout.ms
METADATA_PROPAGATION_TIMEOUT_MS = 5_000


class AdminManager:
    def __init__(self, config, metadata_cache: MetadataCache, forwarding_manager: ForwardingManager,
                 default_log_config: LogConfig, time: Time) -> None:
        self.config = config
        self.metadata_cache = metadata_cache
        self.forwarding_manager = forwarding_manager
        self.default_log_config = default_log_config
        self.topic_purgatory: DelayedOperationPurgatory[DelayedMetadataChange] = DelayedOperationPurgatory(
            "topic", broker_id=config.node_id, time=time)

    def log_config_for(self, topic: TopicMetadata) -> LogConfig:
        return LogConfig.from_props(topic.configs, self.default_log_config)

    def topic_name_for_id(self, topic_id: uuid.UUID) -> str | None:
        return self.metadata_cache.topic_name_for_id(topic_id)

    def metadata_updated(self) -> None:
        """The BrokerMetadataPublisher has applied an update: the changes waiting to show may now."""
        self.topic_purgatory.check_and_complete(METADATA_UPDATE_KEY)

    def shutdown(self) -> None:
        self.topic_purgatory.shutdown()

    # ------------------------------------------------------------------ talking to the controller
    def _forward(self, api_key: ApiKey, body: dict, result_of: Callable[[Any], Any],
                 max_version: int | None = None,
                 timeout_ms: int = CONTROLLER_TIMEOUT_MS) -> Future:
        """Forward; the Future gets the controller's result for our one topic or resource (`result_of`
        picks it from the response), or fails with TopicError carrying Kafka's error code."""
        future: Future = Future()

        def on_response(response, error: Errors) -> None:
            if response is None or error != Errors.NONE:
                error = error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR
                future.set_exception(TopicError(error, f"the active controller did not answer: {error.name}"))
                return
            result = result_of(response)
            result_error = Errors.for_code(result.error_code)
            if result_error != Errors.NONE:
                future.set_exception(TopicError(result_error, result.get("error_message")
                                                or result_error.description))
            else:
                future.set_result(result)

        self.forwarding_manager.forward_request(api_key, body, timeout_ms, on_response, max_version)
        return future

    def _await_metadata(self, condition: Callable[[MetadataCache], bool], what: str,
                        value: Callable[[], Any]) -> Future:
        """The controller has committed the change; a Future of `value()` once this broker has applied
        it too (or after METADATA_PROPAGATION_TIMEOUT_MS without it: the change is made either way)."""
        future: Future = Future()
        operation = DelayedMetadataChange(METADATA_PROPAGATION_TIMEOUT_MS, self.metadata_cache, condition,
                                          what,
                                          lambda: future.set_result(value()))
        self.topic_purgatory.try_complete_else_watch(operation, [METADATA_UPDATE_KEY])
        return future

    # ------------------------------------------------------------------ bounds on a whole request
    def validate_create_topics_batch(self, topics) -> None:
        """Kafka's cap on the partitions one CreateTopics may create, over all its topics; checked here
        too because this broker forwards the request topic by topic, so no one controller call sees it
        whole."""
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
                     assignments: dict[int, list[int]] | None = None) -> Future[CreatedTopic]:
        """Create one topic: a Future of the CreatedTopic, or failed with TopicError (Kafka's error code
        and a message). With `assignments` (partition -> broker ids) the controller places nothing
        and checks them itself."""
        configs = dict(configs or {})
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            return future_utils.failed(TopicError(Errors.INVALID_CONFIG, str(e)))
        if assignments:
            partitions = replicas = -1
            wanted = [dict(partition_index=i, broker_ids=ids) for i, ids in assignments.items()]
        else:
            partitions = self.config.num_partitions if num_partitions == -1 else num_partitions
            replicas = replication_factor
            if replication_factor == -1:
                replicas = self.config.default_replication_factor
            wanted = []
        body = dict(topics=[dict(name=name, num_partitions=partitions, replication_factor=replicas,
                                 assignments=wanted,
                                 configs=[dict(name=k, value=v) for k, v in sorted(configs.items())])],
                    timeout_ms=timeout_ms, validate_only=validate_only)

        def created(result) -> Future[CreatedTopic]:
            metadata = TopicMetadata(name, result.topic_id, result.num_partitions, configs,
                                     name.startswith("__"))
            if validate_only:
                return future_utils.completed(CreatedTopic(metadata, log_config))
            log.info("created topic", topic=name, partitions=result.num_partitions,
                     replication_factor=result.replication_factor, configs=configs)
            return self._await_metadata(lambda cache: cache.contains(name), f"create topic {name}",
                                        lambda: CreatedTopic(self.metadata_cache.get_topic(name) or metadata,
                                                             log_config))

        forwarded = self._forward(ApiKey.CREATE_TOPICS, body, lambda response: response.topics[0],
                                  timeout_ms=timeout_ms)
        return future_utils.compose(forwarded, created)

    def create_topics(self, topics: list, timeout_ms: int = CONTROLLER_TIMEOUT_MS) -> Future[dict]:
        """Several topics in one CreateTopics (Kafka's AutoTopicCreationManager sends a streams group's
        internal topics so, and the controller commits them in one batch): {name: (error, message)} once
        the controller answered. ``topics``: (name, partitions, replication factor, configs), -1 for the
        broker's default."""
        config = self.config
        body = dict(topics=[dict(name=name, assignments=[],
                                 configs=[dict(name=k, value=v) for k, v in sorted(c.items())],
                                 num_partitions=config.num_partitions if p == -1 else p,
                                 replication_factor=config.default_replication_factor if r == -1 else r)
                            for name, p, r, c in topics], timeout_ms=timeout_ms, validate_only=False)
        return self._forward(ApiKey.CREATE_TOPICS, body, lambda response: Record(error_code=0, topics={
            t.name: (Errors.for_code(t.error_code), t.get("error_message")) for t in response.topics}),
            timeout_ms=timeout_ms)

    def delete_topic(self, name: str) -> Future[TopicMetadata]:
        if not self.config.delete_topic_enable:
            return future_utils.failed(TopicError(Errors.TOPIC_DELETION_DISABLED,
                                                  "delete.topic.enable is false"))
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            return future_utils.failed(TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                  "This server does not host this topic-partition."))

        def deleted(_) -> Future[TopicMetadata]:
            log.info("deleted topic", topic=name)
            return self._await_metadata(lambda cache: not cache.contains(name), f"delete topic {name}",
                                        lambda: topic)

        forwarded = self._forward(ApiKey.DELETE_TOPICS,
                                  dict(topic_names=[name], timeout_ms=CONTROLLER_TIMEOUT_MS),
                                  lambda response: response.responses[0], max_version=5)
        return future_utils.compose(forwarded, deleted)

    def alter_topic_configs(self, name: str, configs: dict[str, str],
                            validate_only: bool = False) -> Future[LogConfig]:
        """Replace a topic's config overrides as a whole (checked here, decided by the controller); the
        publisher then applies them to the live logs (LogManager.update_topic_config)."""
        try:
            log_config = LogConfig.from_props(configs, self.default_log_config)
        except ValueError as e:
            return future_utils.failed(TopicError(Errors.INVALID_CONFIG, str(e)))
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            return future_utils.failed(TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                                  f"The topic '{name}' does not exist."))
        ops = [dict(name=k, config_operation=SET, value=v) for k, v in sorted(configs.items())]
        ops += [dict(name=k, config_operation=DELETE, value=None)
                for k in sorted(set(topic.configs) - set(configs))]
        body = dict(resources=[dict(resource_type=TOPIC_RESOURCE, resource_name=name, configs=ops)],
                    validate_only=validate_only)

        def altered(_) -> Future[LogConfig]:
            if validate_only:
                return future_utils.completed(log_config)
            log.info("altered topic configs", topic=name, configs=configs)
            return self._await_metadata(lambda cache: (t := cache.get_topic(name)) is not None
                                        and t.configs == configs,
                                        f"alter configs of {name}", lambda: log_config)

        forwarded = self._forward(ApiKey.INCREMENTAL_ALTER_CONFIGS, body,
                                  lambda response: response.responses[0])
        return future_utils.compose(forwarded, altered)

    # ------------------------------------------------------------------ groups
    def alter_group_configs(self, name: str, ops: list[dict], validate_only: bool = False) -> Future[None]:
        """A group's config changes (IncrementalAlterConfigs operations: name, config_operation, value),
        forwarded as they came: the controller applies and checks them (GroupConfig.validate, through its
        ControllerConfigurationValidator). Answered once this broker's MetadataCache shows the group's new
        configs, so that a client that sets share.auto.offset.reset and then reads finds it here."""
        body = dict(resources=[dict(resource_type=GROUP_RESOURCE, resource_name=name, configs=ops)],
                    validate_only=validate_only)
        # what the controller will write, unless another change comes in between (then the timeout answers)
        try:
            applied = apply_config_ops(self.metadata_cache.group_config(name), ops, lists=False)
            expected = {k: v for k, v in applied.items() if v is not None}
        except ConfigError:  # an operation that does not exist: the controller refuses it
            expected = None

        def altered(_) -> Future[None]:
            if validate_only:
                return future_utils.completed(None)
            log.info("altered group configs", group_id=name, configs=expected)
            return self._await_metadata(lambda cache: cache.group_config(name) == expected,
                                        f"alter configs of group {name}", lambda: None)

        forwarded = self._forward(ApiKey.INCREMENTAL_ALTER_CONFIGS, body,
                                  lambda response: response.responses[0])
        return future_utils.compose(forwarded, altered)

    # ------------------------------------------------------------------ brokers
    def alter_broker_configs(self, name: str, ops: list[dict], expected: dict[str, str],
                             validate_only: bool = False) -> Future[None]:
        """Dynamic broker configs (KIP-226) of this broker ("<id>") or the cluster default (""), checked
        already (DynamicBrokerConfig.validate): the operations go to the controller as they came, and the
        answer waits until this broker runs with `expected`, its new set (docs/dynamic_configs.md)."""
        body = dict(resources=[dict(resource_type=BROKER_RESOURCE, resource_name=name, configs=ops)],
                    validate_only=validate_only)
        dynamic_config = self.config.dynamic_config

        def altered(_) -> Future[None]:
            if validate_only:
                return future_utils.completed(None)
            log.info("altered broker configs", broker=name or "<default>", configs=sorted(expected))
            return self._await_metadata(lambda _: dynamic_config.dynamic_configs(bool(name)) == expected,
                                        f"alter configs of broker {name or '<default>'}", lambda: None)

        forwarded = self._forward(ApiKey.INCREMENTAL_ALTER_CONFIGS, body,
                                  lambda response: response.responses[0])
        return future_utils.compose(forwarded, altered)

    def create_partitions(self, name: str, new_count: int, assignments: list[list[int]] | None = None,
                          validate_only: bool = False) -> Future[TopicMetadata]:
        """Grow a topic to ``new_count`` partitions (Kafka's createPartitions): never shrink it.
        Keys hash differently afterwards -- which is why Kafka only ever adds partitions on request."""
        topic = self.metadata_cache.get_topic(name)
        if topic is None:
            # Kafka answers it without a message
            return future_utils.failed(TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, ""))
        body = dict(topics=[dict(name=name, count=new_count,
                                 assignments=None if assignments is None
                                 else [dict(broker_ids=a) for a in assignments])],
                    timeout_ms=CONTROLLER_TIMEOUT_MS, validate_only=validate_only)

        def grown(_) -> Future[TopicMetadata]:
            if validate_only:
                return future_utils.completed(topic)
            log.info("created partitions", topic=name, partitions=new_count)
            return self._await_metadata(lambda cache: (cache.num_partitions(name) or 0) >= new_count,
                                        f"create partitions of {name}",
                                        lambda: self.metadata_cache.get_topic(name) or topic)

        forwarded = self._forward(ApiKey.CREATE_PARTITIONS, body, lambda response: response.results[0])
        return future_utils.compose(forwarded, grown)

    # ------------------------------------------------------------------ client metrics (KIP-714)
    def alter_client_metrics_configs(self, name: str, ops: list[dict], validate_only: bool,
                                     subscription_props: Callable[[str], dict[str, str]]) -> Future[None]:
        """A client-metrics subscription's changes, forwarded as they came: the controller checks them
        (ClientMetricsConfigs.validate, through its ControllerConfigurationValidator). Answered once this
        broker's ClientMetricsManager (`subscription_props`) holds the new configs."""
        body = dict(resources=[dict(resource_type=CLIENT_METRICS_RESOURCE, resource_name=name, configs=ops)],
                    validate_only=validate_only)
        try:
            applied = apply_config_ops(subscription_props(name), ops)
            expected = {k: v for k, v in applied.items() if v is not None}
        except ConfigError:
            expected = None

        def altered(_) -> Future[None]:
            if validate_only:
                return future_utils.completed(None)
            log.info("altered client metrics configs", subscription=name, configs=expected)
            return self._await_metadata(lambda _cache: subscription_props(name) == expected,
                                        f"alter configs of client metrics {name}", lambda: None)

        forwarded = self._forward(ApiKey.INCREMENTAL_ALTER_CONFIGS, body,
                                  lambda response: response.responses[0])
        return future_utils.compose(forwarded, altered)
