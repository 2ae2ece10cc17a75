"""The share-group part of KafkaApis: ShareGroupHeartbeat and ShareGroupDescribe (Kafka's
KafkaApis.handleShareGroupHeartbeat and handleShareGroupDescribe, KIP-932).

A share consumer joins, stays and leaves with ShareGroupHeartbeat; the group coordinator answers once
the heartbeat's records commit (from the callback of the future GroupCoordinatorService returns, on
whichever thread completes it: the request thread never waits). Kafka's checks come first, in its order:

    share.version below 1            UNSUPPORTED_VERSION (the APIs are advertised all the same)
    READ on the group                GROUP_AUTHORIZATION_FAILED
    member id empty or > 36 chars    INVALID_REQUEST (a share consumer names itself: KIP-1082)
    DESCRIBE on each subscribed topic  TOPIC_AUTHORIZATION_FAILED

ShareGroupDescribe reads the shards' committed state: a group the principal may not DESCRIBE is answered
GROUP_AUTHORIZATION_FAILED (those first, as Kafka adds them first), and with an authoriser a group whose
members were given a topic the principal may not DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.group.group_coordinator_requests import RequestContext
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.coordinator.group.share_group_manager import ShareGroupHeartbeatRequest, error_response
from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.request_handler_helper import RequestHandlerHelper

MAX_MEMBER_ID_LENGTH = 36  # Kafka's isMemberIdValid: a UUID's string
DESCRIBED_TOPIC_DENIED = "The group has described topic(s) that the client is not authorized to describe."


class ShareGroupApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService,
                 share_groups_enabled: Callable[[], bool] = lambda: True) -> None:
        """`share_groups_enabled()`: the share.version feature is finalized at 1 or more."""
        self.request_helper = request_helper
        self.auth = auth_helper
        self.coordinator = group_coordinator
        self.share_groups_enabled = share_groups_enabled

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.SHARE_GROUP_HEARTBEAT: self.handle_share_group_heartbeat_request,
                ApiKey.SHARE_GROUP_DESCRIBE: self.handle_share_group_describe_request}

    # ------------------------------------------------------------------ ShareGroupHeartbeat
    def handle_share_group_heartbeat_request(self, request: Request) -> None:
        req = request.body
        refusal = self._refuse_heartbeat(request)
        if refusal is not None:  # Kafka's getErrorResponse: the code alone, no message
            self._send(request, error_response(refusal, None))
            return
        heartbeat = ShareGroupHeartbeatRequest(
            req.group_id, req.member_id, req.member_epoch, req.rack_id,
            None if req.subscribed_topic_names is None else list(req.subscribed_topic_names))
        context = RequestContext(request.header.client_id or "", f"/{request.client_address}",
                                 request.header.api_version)
        self.coordinator.share_group_heartbeat(heartbeat, context).add_done_callback(
            lambda done: self._send(request, done.result()))

    def _refuse_heartbeat(self, request: Request) -> Errors | None:
        """Kafka's checks before the coordinator is asked."""
        req = request.body
        if not self.share_groups_enabled():
            return Errors.UNSUPPORTED_VERSION
        if not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            return Errors.GROUP_AUTHORIZATION_FAILED
        if not req.member_id or len(req.member_id) > MAX_MEMBER_ID_LENGTH:
            return Errors.INVALID_REQUEST
        topics = set(req.subscribed_topic_names or ())
        if topics and self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC, topics) != topics:
            return Errors.TOPIC_AUTHORIZATION_FAILED
        return None

    # ------------------------------------------------------------------ ShareGroupDescribe
    def handle_share_group_describe_request(self, request: Request) -> None:
        req = request.body
        if not self.share_groups_enabled():
            self._send(request, dict(groups=[_refused(g, Errors.UNSUPPORTED_VERSION) for g in req.group_ids]))
            return
        describable = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.GROUP, req.group_ids)
        refused = [_refused(g, Errors.GROUP_AUTHORIZATION_FAILED)
                   for g in req.group_ids if g not in describable]
        wanted = [g for g in req.group_ids if g in describable]

        def respond(described: list[dict]) -> None:
            described = self._hide_denied_topics(request, described)
            if req.include_authorized_operations:
                described = [{**g, "authorized_operations": self.auth.authorized_operations(
                    request, Res.GROUP, g["group_id"])} if g["error_code"] == Errors.NONE else g
                    for g in described]
            self._send(request, dict(groups=refused + described))

        if not wanted:
            respond([])
            return
        self.coordinator.share_group_describe(wanted).add_done_callback(lambda done: respond(done.result()))

    def _hide_denied_topics(self, request: Request, described: list[dict]) -> list[dict]:
        """With an authoriser, a group that assigns a topic the principal may not DESCRIBE says only that."""
        if self.auth.authorizer is None:
            return described
        topics = {t["topic_name"] for g in described for m in g.get("members", ())
                  for t in m["assignment"]["topic_partitions"]}
        allowed = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC, topics)
        return [g if all(t["topic_name"] in allowed for m in g.get("members", ())
                         for t in m["assignment"]["topic_partitions"])
                else {**_refused(g["group_id"], Errors.TOPIC_AUTHORIZATION_FAILED),
                      "error_message": DESCRIBED_TOPIC_DENIED}
                for g in described]

    def _send(self, request: Request, body: dict) -> None:
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, **body))


def _refused(group_id: str, error: Errors) -> dict:
    """A group ShareGroupDescribe does not describe: its id and the error, the rest at their defaults."""
    return dict(group_id=group_id, error_code=error, error_message=None, group_state="", group_epoch=0,
                assignment_epoch=0, assignor_name="", members=[])
