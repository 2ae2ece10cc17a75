"""The KIP-848 part of KafkaApis: ConsumerGroupHeartbeat and ConsumerGroupDescribe (Kafka's
KafkaApis.handleConsumerGroupHeartbeat and handleConsumerGroupDescribe).

A heartbeat never waits for the rest of the group, which is the point of the new protocol; it waits
only for the records it wrote to commit, and is answered from the callback of the future the
GroupCoordinatorService returns (on whichever thread completes it: the request thread never
blocks). ConsumerGroupDescribe reads the shard's committed state. KafkaApis' table includes these
handlers beside GroupApis' classic ones.

Both answer UNSUPPORTED_VERSION while the group.version feature is finalized below 1 (Kafka's
isConsumerGroupProtocolEnabled): `kafka-features downgrade --feature group.version=0` turns the
consumer group protocol off for the whole cluster, and the APIs stay advertised, as Kafka's do.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.coordinator.group.consumer_group_manager import HeartbeatRequest, described_error
from kafka.coordinator.group.group_coordinator_requests import RequestContext
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService, answered, gather
from kafka.coordinator.group.modern.consumer.consumer_group_member import Assignment
from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.request_handler_helper import RequestHandlerHelper

GROUP_VERSION = "group.version"  # Kafka's GroupVersion: 1 enables the consumer group protocol (KIP-848)


class ConsumerGroupApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService, metadata_cache=None) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.coordinator = group_coordinator
        self.metadata_cache = metadata_cache  # the finalized group.version (none given: the protocol is on)

    def consumer_group_protocol_enabled(self) -> bool:
        cache = self.metadata_cache
        return cache is None or cache.finalized_features.get(GROUP_VERSION, 0) >= 1

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.CONSUMER_GROUP_HEARTBEAT: self.handle_consumer_group_heartbeat_request,
                ApiKey.CONSUMER_GROUP_DESCRIBE: self.handle_consumer_group_describe_request}

    def handle_consumer_group_heartbeat_request(self, request: Request) -> None:
        req = request.body
        if not self.consumer_group_protocol_enabled():
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.UNSUPPORTED_VERSION, member_epoch=0,
                heartbeat_interval_ms=0))
            return
        if not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.GROUP_AUTHORIZATION_FAILED, member_epoch=0,
                heartbeat_interval_ms=0))
            return
        owned: Assignment | None = None
        if req.topic_partitions is not None:
            owned = {t.topic_id: frozenset(t.partitions) for t in req.topic_partitions}
        heartbeat = HeartbeatRequest(
            req.group_id, req.member_id, req.member_epoch, req.instance_id, req.rack_id,
            req.rebalance_timeout_ms,
            None if req.subscribed_topic_names is None else list(req.subscribed_topic_names),
            req.get("subscribed_topic_regex"), req.server_assignor, owned)
        context = RequestContext(request.header.client_id or "", f"/{request.client_address}",
                                 request.header.api_version)
        self.coordinator.consumer_group_heartbeat(heartbeat, context).add_done_callback(
            lambda f: self.request_helper.send_response_maybe_throttle(
                request, dict(throttle_time_ms=0, **f.result())))

    def handle_consumer_group_describe_request(self, request: Request) -> None:
        req = request.body
        if not self.consumer_group_protocol_enabled():
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, groups=[
                {**described_error(group_id, Errors.UNSUPPORTED_VERSION), "error_message": None,
                 "group_epoch": 0, "assignment_epoch": 0} for group_id in req.group_ids]))
            return

        def describe(group_id: str) -> Future:
            if not self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, group_id):
                return answered(described_error(group_id, Errors.GROUP_AUTHORIZATION_FAILED))
            answer: Future = Future()

            def respond(described: dict) -> None:
                if req.include_authorized_operations and described["error_code"] == Errors.NONE:
                    operations = self.auth.authorized_operations(request, Res.GROUP, group_id)
                    described = {**described, "authorized_operations": operations}
                answer.set_result(described)

            pending = self.coordinator.consumer_group_describe(group_id)
            pending.add_done_callback(lambda f: respond(f.result()))
            return answer

        gather([describe(group_id) for group_id in req.group_ids], list).add_done_callback(
            lambda f: self.request_helper.send_response_maybe_throttle(
                request, dict(throttle_time_ms=0, groups=f.result())))
