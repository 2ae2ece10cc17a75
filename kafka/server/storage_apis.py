"""The storage part of KafkaApis: DeleteRecords, DescribeConfigs, IncrementalAlterConfigs.

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as GroupApis
does) so each file stays readable: KafkaServer builds the family with what it uses, and KafkaApis'
dispatch table includes ``StorageApis.handlers()``.
Each handler decodes, calls a manager (ReplicaManager for DeleteRecords, ConfigHelper and
AdminManager for configs) and answers with Kafka's error code per partition or per resource; a
config change is answered once the controller has (a Future per resource), not on the I/O thread.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AUTHORIZATION_MESSAGES, AuthHelper
from kafka.server.config_helper import ConfigError, ConfigHelper
from kafka.server.metadata_cache import MetadataCache
from kafka.server.replica_manager import ReplicaManager
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils import future_utils
from kafka.utils.topic_partition import TopicPartition

# ConfigResource.Type -> the ACL resource it is authorised on, and the error when it is not
# (Kafka's messages: AUTHORIZATION_MESSAGES)
_CONFIG_RESOURCES = {2: (Res.TOPIC, Errors.TOPIC_AUTHORIZATION_FAILED),
                     4: (Res.CLUSTER, Errors.CLUSTER_AUTHORIZATION_FAILED),
                     8: (Res.CLUSTER, Errors.CLUSTER_AUTHORIZATION_FAILED),
                     16: (Res.CLUSTER, Errors.CLUSTER_AUTHORIZATION_FAILED),  # CLIENT_METRICS
                     32: (Res.GROUP, Errors.GROUP_AUTHORIZATION_FAILED)}


class StorageApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 replica_manager: ReplicaManager,
                 metadata_cache: MetadataCache, config_helper: ConfigHelper) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.replica_manager = replica_manager  # DeleteRecords
        self.metadata_cache = metadata_cache
        self.config_helper = config_helper  # DescribeConfigs, AlterConfigs, IncrementalAlterConfigs

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.DELETE_RECORDS: self.handle_delete_records_request,
            ApiKey.DESCRIBE_CONFIGS: self.handle_describe_configs_request,
            ApiKey.INCREMENTAL_ALTER_CONFIGS: self.handle_incremental_alter_configs_request,
            ApiKey.ALTER_CONFIGS: self.handle_alter_configs_request,
        }

    # ------------------------------------------------------------------ DeleteRecords
    def handle_delete_records_request(self, request: Request) -> None:
        req = request.body
        topics = []
        deletable = self.auth.filter_by_authorized(request, Op.DELETE, Res.TOPIC,
                                                   (t.name for t in req.topics))
        for topic in req.topics:
            partitions = []
            for p in topic.partitions:
                if topic.name not in deletable:
                    error, low_watermark = Errors.TOPIC_AUTHORIZATION_FAILED, -1
                elif not self.metadata_cache.contains(topic.name):
                    error, low_watermark = Errors.UNKNOWN_TOPIC_OR_PARTITION, -1
                else:
                    error, low_watermark = self.replica_manager.delete_records(
                        TopicPartition(topic.name, p.partition_index), p.offset)
                partitions.append(dict(partition_index=p.partition_index, low_watermark=low_watermark,
                                       error_code=error))
            topics.append(dict(name=topic.name, partitions=partitions))
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, topics=topics))

    # ------------------------------------------------------------------ DescribeConfigs
    def handle_describe_configs_request(self, request: Request) -> None:
        req = request.body
        include_synonyms = request.header.api_version >= 1 and req.include_synonyms
        results = []
        for resource in req.resources:
            result = dict(error_code=Errors.NONE, error_message="", resource_type=resource.resource_type,
                          resource_name=resource.resource_name, configs=[])  # Kafka's "" for no error
            denied = self._config_denied(request, Op.DESCRIBE_CONFIGS, resource.resource_type,
                                         resource.resource_name)
            if denied is not None:
                result.update(error_code=denied, error_message=AUTHORIZATION_MESSAGES[denied])
                results.append(result)
                continue
            try:
                described = self.config_helper.describe_configs(resource.resource_type,
                                                                resource.resource_name,
                                                                resource.configuration_keys)
                include_documentation = request.header.api_version >= 3 and req.include_documentation
                result["configs"] = [d.to_response(request.header.api_version, include_synonyms,
                                                   include_documentation)
                                     for d in described]
            except ConfigError as error:
                result.update(error_code=error.error, error_message=str(error))
            results.append(result)
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, results=results))

    # ------------------------------------------------------------------ IncrementalAlterConfigs
    def handle_incremental_alter_configs_request(self, request: Request) -> None:
        req = request.body
        results = []
        for resource in req.resources:
            ops = [(c.name, c.config_operation, c.value) for c in resource.configs]
            results.append(self._altered(request, resource, lambda r=resource, ops=ops:
                                         self.config_helper.incremental_alter_configs(
                                             r.resource_type, r.resource_name, ops, req.validate_only)))
        self.request_helper.send_response_when_done(request, future_utils.all_of(results),
                                                    lambda responses: dict(throttle_time_ms=0,
                                                                           responses=responses))

    # ------------------------------------------------------------------ AlterConfigs (legacy)
    def handle_alter_configs_request(self, request: Request) -> None:
        """Kafka's semantics: the configs given replace the resource's whole set of overrides."""
        req = request.body
        results = [self._altered(request, resource, lambda r=resource: self.config_helper.alter_configs(
            r.resource_type, r.resource_name, {c.name: c.value for c in r.configs}, req.validate_only))
            for resource in req.resources]
        self.request_helper.send_response_when_done(request, future_utils.all_of(results),
                                                    lambda responses: dict(throttle_time_ms=0,
                                                                           responses=responses))

    def _config_denied(self, request: Request, operation, resource_type: int, name: str) -> Errors | None:
        """Kafka's rule: a broker's (or its loggers') configs need the operation on the cluster, a
        topic's on the topic, a group's on the group."""
        resource, error = _CONFIG_RESOURCES.get(resource_type, (None, None))
        if resource is None or self.auth.authorize(request, operation, resource,
                                                   CLUSTER_NAME if resource == Res.CLUSTER else name):
            return None
        return error

    def _altered(self, request: Request, resource, alter: Callable[[], Future[None]]) -> Future[dict]:
        """One resource's entry of an alter-configs response, once the controller has answered."""
        response = dict(error_code=Errors.NONE, error_message=None, resource_type=resource.resource_type,
                        resource_name=resource.resource_name)
        denied = self._config_denied(request, Op.ALTER_CONFIGS, resource.resource_type,
                                     resource.resource_name)
        if denied is not None:
            return future_utils.completed({**response, "error_code": denied,
                                           "error_message": AUTHORIZATION_MESSAGES[denied]})
        try:
            altered = alter()
        except ConfigError as error:  # refused before anything was forwarded
            altered = future_utils.failed(error)

        def entry(done: Future[None]) -> dict:
            error = done.exception()
            if isinstance(error, ConfigError):
                response.update(error_code=error.error, error_message=str(error))
            elif error is not None:
                raise error
            return response

        return future_utils.handle(altered, entry)
