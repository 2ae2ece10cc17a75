"""The streams-group part of KafkaApis: StreamsGroupHeartbeat, StreamsGroupDescribe and
StreamsGroupTopologyDescriptionUpdate (Kafka's KafkaApis.handleStreamsGroupHeartbeat,
handleStreamsGroupDescribe and handleStreamsGroupTopologyDescriptionUpdate, KIP-1071).

All three answer UNSUPPORTED_VERSION while the streams.version feature is finalized below 1 (Kafka's
isStreamsGroupProtocolEnabled); the APIs stay advertised, as Kafka's do. A heartbeat is checked in Kafka's
order before the group coordinator sees it:

    READ on the group                          GROUP_AUTHORIZATION_FAILED
    a topology naming an internal topic        STREAMS_INVALID_TOPOLOGY ("Use of Kafka internal topics ...")
    ... or a name no topic may have            STREAMS_INVALID_TOPOLOGY ("Topic names ... are not valid ...")
    DESCRIBE on every topic the topology names TOPIC_AUTHORIZATION_FAILED

The coordinator answers once the heartbeat's records commit, with the internal topics still missing; this
broker then creates them (the AutoTopicCreationManager), if the principal may CREATE them, and amends the
MISSING_INTERNAL_TOPICS status with why a creation failed. The member keeps heartbeating until they exist.

GroupApis builds this family beside its own and merges its handlers: both are the GroupCoordinator's door.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.group.group_coordinator_requests import RequestContext
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.coordinator.group.streams.streams_group_manager import error_response
from kafka.coordinator.group.streams.topics.topic_configuration_exception import Status
from kafka.network.request_channel import Request
from kafka.protocol import topic as topics
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.java_hash_map import java_hash_map_order
from kafka.utils.time import Time

# Kafka's Topic.INTERNAL_TOPICS: no streams application may read or write these
INTERNAL_TOPICS = ("__consumer_offsets", "__transaction_state", "__share_group_state")
DESCRIBED_TOPIC_DENIED = "The described group uses topics that the client is not authorized to describe."
STREAMS_VERSION = "streams.version"  # Kafka's StreamsVersion: 1 enables the streams group protocol
NOT_STORED = 1  # StreamsGroupDescribe v1's TopologyDescriptionStatus: no plugin keeps a description here


def streams_groups_enabled(metadata_cache) -> bool:
    """Kafka's isStreamsGroupProtocolEnabled: streams.version finalized at 1 or more (no cache: on)."""
    return metadata_cache is None or metadata_cache.finalized_features.get(STREAMS_VERSION, 0) >= 1


def is_valid_topic_name(name: str) -> bool:
    try:
        topics.validate(name)
        return True
    except topics.InvalidTopicError:
        return False


def required_topics(topology) -> list[str]:
    """Every topic the topology names, first seen first (Kafka's order: source, repartition sink,
    repartition source, changelog topics of each subtopology)."""
    names = [name for s in topology.subtopologies
             for name in (*s.source_topics, *s.repartition_sink_topics,
                          *(t.name for t in s.repartition_source_topics),
                          *(t.name for t in s.state_changelog_topics))]
    return list(dict.fromkeys(names))


class StreamsGroupApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService,
                 auto_topic_creation_manager: AutoTopicCreationManager,
                 streams_groups_enabled: Callable[[], bool], time: Time) -> None:
        """`streams_groups_enabled()`: the streams.version feature is finalized at 1 or more."""
        self.request_helper = request_helper
        self.auth = auth_helper
        self.coordinator = group_coordinator
        self.auto_topic_creation_manager = auto_topic_creation_manager
        self.streams_groups_enabled = streams_groups_enabled
        self.time = time

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.STREAMS_GROUP_HEARTBEAT: self.handle_streams_group_heartbeat_request,
                ApiKey.STREAMS_GROUP_DESCRIBE: self.handle_streams_group_describe_request,
                ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE: self.handle_description_update_request}

    # ------------------------------------------------------------------ StreamsGroupHeartbeat
    def handle_streams_group_heartbeat_request(self, request: Request) -> None:
        req = request.body
        refusal = self._refuse_heartbeat(request)
        if refusal is not None:
            self._send(request, refusal)
            return
        context = RequestContext(request.header.client_id or "", f"/{request.client_address}",
                                 request.header.api_version)
        self.coordinator.streams.streams_group_heartbeat(req, context).add_done_callback(
            lambda done: self._send(request, self._create_internal_topics(request, done.result())))

    def _refuse_heartbeat(self, request: Request) -> dict | None:
        req = request.body
        if not self.streams_groups_enabled():
            return error_response(Errors.UNSUPPORTED_VERSION, None)
        if not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            return error_response(Errors.GROUP_AUTHORIZATION_FAILED, None)
        if req.topology is None:
            return None
        names = required_topics(req.topology)
        if prohibited := [n for n in names if n in INTERNAL_TOPICS]:
            return error_response(Errors.STREAMS_INVALID_TOPOLOGY, f"Use of Kafka internal topics "
                                  f"{','.join(prohibited)} in a Kafka Streams topology is prohibited.")
        if invalid := [n for n in names if not is_valid_topic_name(n)]:
            return error_response(Errors.STREAMS_INVALID_TOPOLOGY,
                                  f"Topic names {','.join(invalid)} are not valid topic names.")
        if names and len(self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC, names)) < len(names):
            return error_response(Errors.TOPIC_AUTHORIZATION_FAILED, None)
        return None

    def _create_internal_topics(self, request: Request, result) -> dict:
        """Kafka's completion of handleStreamsGroupHeartbeat: the internal topics the coordinator found
        missing are created, if the principal may; the MISSING_INTERNAL_TOPICS status says what stands in
        the way."""
        response, to_create = dict(result.data), result.creatable_topics
        if not to_create:
            return response
        statuses = response["status"] = list(response.get("status") or ())
        missing = next((s for s in statuses if s["status_code"] == Status.MISSING_INTERNAL_TOPICS), None)
        if self.auth.authorize(request, Op.CREATE, Res.CLUSTER, CLUSTER_NAME, log_if_denied=False):
            unauthorized = []
        else:
            allowed = self.auth.filter_by_authorized(request, Op.CREATE, Res.TOPIC, list(to_create))
            unauthorized = [name for name in to_create if name not in allowed]
        if unauthorized:
            detail = f"Unauthorized to CREATE on topics {','.join(unauthorized)}."
            if missing is not None:
                missing["status_detail"] = f"{missing['status_detail']}; {detail}"
            else:
                statuses.append(dict(status_code=Status.MISSING_INTERNAL_TOPICS, status_detail=detail))
            return response
        group_config = self.coordinator.group_config(request.body.group_id)
        interval = getattr(group_config, "streams_heartbeat_interval_ms", None)
        timeout_ms = 2 * (interval or self.coordinator.config.streams_group_heartbeat_interval_ms)
        creator = self.auto_topic_creation_manager
        creator.create_streams_internal_topics(to_create, timeout_ms, self.time)
        errors = creator.streams_internal_topic_creation_errors(to_create, self.time.milliseconds())
        if errors and missing is not None:
            shown = ",".join(f"{name} ({errors[name]})" for name in java_hash_map_order(list(errors))[:3])
            if len(errors) > 3:
                shown = f"{shown} and {len(errors) - 3} more"
            missing["status_detail"] = f"{missing['status_detail'] or ''}; Creation failed: {shown}."
        return response

    # ------------------------------------------------------------------ StreamsGroupDescribe
    def handle_streams_group_describe_request(self, request: Request) -> None:
        req = request.body
        if not self.streams_groups_enabled():
            self._send(request, dict(groups=[dict(group_id=g, error_code=Errors.UNSUPPORTED_VERSION)
                                             for g in req.group_ids]))
            return
        describable = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.GROUP, req.group_ids)
        refused = [dict(group_id=g, error_code=Errors.GROUP_AUTHORIZATION_FAILED)
                   for g in req.group_ids if g not in describable]

        def respond(described: list[dict]) -> None:
            groups = [self._complete(request, g) for g in described]
            self._send(request, dict(groups=refused + self._hide_denied_topics(request, groups)))

        wanted = [g for g in req.group_ids if g in describable]
        if not wanted:
            respond([])
            return
        self.coordinator.streams.streams_group_describe(wanted).add_done_callback(
            lambda done: respond(done.result()))

    def _complete(self, request: Request, group: dict) -> dict:
        """A described group as this request asked for it: its authorized operations, and v1's topology
        description status (NOT_STORED: no plugin here)."""
        if group["error_code"] != Errors.NONE:
            return group
        group = dict(group)
        if request.body.include_authorized_operations:
            group["authorized_operations"] = self.auth.authorized_operations(request, Res.GROUP,
                                                                             group["group_id"])
        if request.body.get("include_topology_description"):
            group["topology_description_status"] = NOT_STORED
        return group

    def _hide_denied_topics(self, request: Request, groups: list[dict]) -> list[dict]:
        """With an authoriser, a group using a topic the principal may not DESCRIBE says only that."""
        if self.auth.authorizer is None:
            return groups

        def topics_of(group: dict) -> list[str]:
            topology = group.get("topology") or {}
            return [name for s in topology.get("subtopologies") or ()
                    for name in (*s["source_topics"], *s["repartition_sink_topics"],
                                 *(t["name"] for t in s["repartition_source_topics"]),
                                 *(t["name"] for t in s["state_changelog_topics"]))]
        allowed = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                 {t for g in groups for t in topics_of(g)})
        return [dict(group_id=g["group_id"], error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                     error_message=DESCRIBED_TOPIC_DENIED)
                if any(t not in allowed for t in topics_of(g)) else g for g in groups]

    # ------------------------------------------------------------------ StreamsGroupTopologyDescriptionUpdate
    def handle_description_update_request(self, request: Request) -> None:
        req = request.body
        if not self.streams_groups_enabled():
            self._send(request, dict(error_code=Errors.UNSUPPORTED_VERSION))
        elif not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            self._send(request, dict(error_code=Errors.GROUP_AUTHORIZATION_FAILED))
        else:
            self.coordinator.streams.streams_group_topology_description_update(req).add_done_callback(
                lambda done: self._send(request, done.result()))

    def _send(self, request: Request, body: dict) -> None:
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, **body))
