"""The KIP-848 part of KafkaApis: ConsumerGroupHeartbeat and ConsumerGroupDescribe (Kafka's
KafkaApis.handleConsumerGroupHeartbeat and handleConsumerGroupDescribe).

A heartbeat never waits for the rest of the group, which is the point of the new protocol; it waits
only for the records it wrote to commit, and is answered from the callback of the future the
GroupCoordinatorService returns (on whichever thread completes it: the request thread never
blocks). ConsumerGroupDescribe reads the shard's committed state. KafkaApis' table includes these
handlers beside GroupApis' classic ones.
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


class ConsumerGroupApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.coordinator = group_coordinator

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.CONSUMER_GROUP_HEARTBEAT: self.handle_consumer_group_heartbeat_request,
                ApiKey.CONSUMER_GROUP_DESCRIBE: self.handle_consumer_group_describe_request}

    def handle_consumer_group_heartbeat_request(self, request: Request) -> None:
        req = request.body
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
