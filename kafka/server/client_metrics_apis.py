"""The client-metrics part of KafkaApis (KIP-714): GetTelemetrySubscriptions, PushTelemetry and
ListConfigResources (KIP-1142, ListClientMetricsResources as version 0).

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as StorageApis and
AdminApis do), and KafkaApis' dispatch table includes ``ClientMetricsApis.handlers()``. The two telemetry
requests are the ClientMetricsManager's to answer (any client may send them: no ACL); a request that
fails to be handled is answered INVALID_REQUEST, as Kafka's catch-all does. ListConfigResources needs
DESCRIBE_CONFIGS on the cluster and lists, for each resource type asked (none: every type the version
knows), what exists: groups with configs, client-metrics subscriptions, broker loggers, brokers, topics.

`start_client_metrics` builds the lot for a broker: the exporter of pushed metrics, the manager, its own
metrics and the pushed series on /metrics, the ClientMetricsConfigHandler on the metadata loader, the
manager as a listener of closed connections, and this family.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.client_metrics_config_handler import ClientMetricsConfigHandler
from kafka.server.client_metrics_configs import CLIENT_METRICS_RESOURCE
from kafka.server.client_metrics_manager import (
    ClientMetricsManager,
    RequestContext,
    get_error_response,
    push_error_response,
)
from kafka.server.client_telemetry_exporter import ClientTelemetryExporter
from kafka.server.metadata_cache import MetadataCache
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.time import Time
from kafka.utils.uuid import uuid_to_string

log = structlog.get_logger("kafka.server.KafkaApis")

TOPIC, BROKER, BROKER_LOGGER, GROUP = 2, 4, 8, 32  # ConfigResource.Type
# ListConfigResourcesRequest.supportedResourceTypes, by version
SUPPORTED_RESOURCE_TYPES = {0: (CLIENT_METRICS_RESOURCE,),
                            1: (TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS_RESOURCE, GROUP)}


def request_context(request: Request, client_information: tuple[str, str] | None = None) -> RequestContext:
    """What a subscription's `match` can see of the client: its header's client id, the software name
    and version it gave in ApiVersions, its address and port (from the connection id)."""
    name, version = client_information or (None, None)
    remote = request.connection_id.split("-")[1] if request.connection_id.count("-") >= 2 else ""
    port = remote.rsplit(":", 1)[1] if ":" in remote else None
    return RequestContext(request.connection_id, request.header.client_id, name, version,
                          request.client_address, port)


class ClientMetricsApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 client_metrics_manager: ClientMetricsManager, metadata_cache: MetadataCache,
                 group_ids: Callable[[], list[str]]) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.client_metrics_manager = client_metrics_manager
        self.metadata_cache = metadata_cache  # ListConfigResources: brokers and topics
        self.group_ids = group_ids  # ListConfigResources: the groups with configs (GroupConfigManager)

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.GET_TELEMETRY_SUBSCRIPTIONS: self.handle_get_telemetry_subscriptions_request,
            ApiKey.PUSH_TELEMETRY: self.handle_push_telemetry_request,
            ApiKey.LIST_CONFIG_RESOURCES: self.handle_list_config_resources_request,
        }

    # ------------------------------------------------------------------ GetTelemetrySubscriptions
    def handle_get_telemetry_subscriptions_request(self, request: Request) -> None:
        try:
            body = self.client_metrics_manager.process_get_telemetry_subscription_request(
                request.body.client_instance_id, request_context(request, _client_information(request)))
        except Exception as e:  # Kafka's catch-all: INVALID_REQUEST
            log.error("cannot answer GetTelemetrySubscriptions", error=repr(e))
            body = get_error_response(Errors.INVALID_REQUEST)
        self.request_helper.send_response_maybe_throttle(request, body)

    # ------------------------------------------------------------------ PushTelemetry
    def handle_push_telemetry_request(self, request: Request) -> None:
        try:
            body = self.client_metrics_manager.process_push_telemetry_request(
                request.body, request_context(request, _client_information(request)))
        except Exception as e:
            log.error("cannot answer PushTelemetry", error=repr(e))
            body = push_error_response(Errors.INVALID_REQUEST)
        self.request_helper.send_response_maybe_throttle(request, body)

    # ------------------------------------------------------------------ ListConfigResources
    def handle_list_config_resources_request(self, request: Request) -> None:
        version = request.header.api_version
        if not self.auth.authorize(request, Op.DESCRIBE_CONFIGS, Res.CLUSTER, CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request,
                                                             _list_error(Errors.CLUSTER_AUTHORIZATION_FAILED))
            return
        supported = SUPPORTED_RESOURCE_TYPES[min(version, 1)]
        wanted = list(request.body.get("resource_types", None) or supported)
        if any(t not in supported for t in wanted):
            self.request_helper.send_response_maybe_throttle(request, _list_error(Errors.UNSUPPORTED_VERSION))
            return
        resources: list[dict] = []
        if GROUP in wanted:
            resources += [dict(resource_name=g, resource_type=GROUP) for g in self.group_ids()]
        if CLIENT_METRICS_RESOURCE in wanted:
            resources += [dict(resource_name=name, resource_type=CLIENT_METRICS_RESOURCE)
                          for name in sorted(self.client_metrics_manager.list_client_metrics_resources())]
        brokers = [str(b.node_id) for b in self.metadata_cache.alive_brokers()
                   if b.end_point(request.listener) is not None]
        for resource_type in (BROKER_LOGGER, BROKER):
            if resource_type in wanted:
                resources += [dict(resource_name=b, resource_type=resource_type) for b in brokers]
        if TOPIC in wanted:
            resources += [dict(resource_name=t, resource_type=TOPIC)
                          for t in self.metadata_cache.topic_names()]
        self.request_helper.send_response_maybe_throttle(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, config_resources=resources))


def _list_error(error: Errors) -> dict:
    return dict(throttle_time_ms=0, error_code=error, config_resources=[])


def _client_information(request: Request) -> tuple[str, str] | None:
    """The (software name, version) the connection's ApiVersions gave, kept by the network layer."""
    return request.client_information


def start_client_metrics(request_helper: RequestHandlerHelper, auth_helper: AuthHelper, config, time: Time,
                         loader, broker_metrics, admin_manager, group_coordinator) -> ClientMetricsApis:
    """A broker's client metrics (KIP-714): pushes of at most telemetry.max.bytes decoded onto its /metrics
    (broker_metrics), the subscriptions fed from the metadata log, an alteration answered once they are."""
    exporter = ClientTelemetryExporter()
    manager = ClientMetricsManager(exporter, config.telemetry_max_bytes, time)
    stats = manager.stats

    def per_instance() -> list[tuple[str, dict[str, float]]]:
        manager.expire_instances()  # a scrape sweeps expired clients too: their series go with them
        return [(uuid_to_string(i), {"throttle-count": s.throttle_count,
                                     "plugin-export-count": s.plugin_export_count,
                          "plugin-export-time-avg": s.plugin_export_time_total_ms / s.plugin_export_count
                          if s.plugin_export_count else 0.0,
                          "plugin-export-time-max": s.plugin_export_time_max_ms,
                          "plugin-error-count": s.plugin_error_count})
                for i, s in list(stats.instances.items())]

    broker_metrics.register_client_metrics(
        manager.instance_count, lambda: stats.unknown_subscription_request_count, per_instance,
        lambda: [(s.name, s.labels, s.description, s.value) for s in exporter.samples()])
    loader.install_publishers([ClientMetricsConfigHandler(manager, admin_manager.metadata_updated)])
    # Kafka's ConnectionDisconnectListener: a closed connection's client instance goes at once
    request_helper.request_channel.connection_disconnect_listeners.append(manager.on_disconnect)
    group_ids = group_coordinator.group_config_manager.group_ids if group_coordinator is not None else list
    return ClientMetricsApis(request_helper, auth_helper, manager, admin_manager.metadata_cache, group_ids)
