"""The KIP-848 part of KafkaApis: ConsumerGroupHeartbeat and ConsumerGroupDescribe (Kafka's
KafkaApis.handleConsumerGroupHeartbeat and handleConsumerGroupDescribe).

A heartbeat never waits for the rest of the group, which is the point of the new protocol; it waits
only for the records it wrote to commit, and is answered from that append's callback (on whichever
thread completes it: the request thread never blocks), as SyncGroup is answered from store_group's.
ConsumerGroupDescribe answers at once. GroupApis includes these handlers in its table, beside the
classic ones.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.coordinator.consumer_group import ConsumerGroup
from kafka.coordinator.consumer_group_manager import HeartbeatRequest
from kafka.coordinator.consumer_group_member import Assignment
from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors

CONSUMER_MEMBER_TYPE = 1  # ConsumerGroupDescribe v1's MemberType: 0 classic, 1 consumer


class ConsumerGroupApis:
    def __init__(self, apis, group_coordinator) -> None:
        self.apis = apis
        self.auth = apis.auth_helper
        self.manager = group_coordinator.consumer_groups
        self.manager.topics_image = self.topics_image

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.CONSUMER_GROUP_HEARTBEAT: self.handle_consumer_group_heartbeat_request,
                ApiKey.CONSUMER_GROUP_DESCRIBE: self.handle_consumer_group_describe_request}

    def topics_image(self) -> dict:
        """name -> (topic id, partitions): what the assignor and regex subscriptions read."""
        return {t.name: (t.topic_id, t.num_partitions) for t in self.apis.metadata_cache.all_topics()}

    def handle_consumer_group_heartbeat_request(self, request: Request) -> None:
        req = request.body
        if not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            self.apis.send_response(request, dict(throttle_time_ms=0, error_code=Errors.GROUP_AUTHORIZATION_FAILED,
                                                  member_epoch=-1, heartbeat_interval_ms=0))
            return
        owned: Assignment | None = None
        if req.topic_partitions is not None:
            owned = {t.topic_id: frozenset(t.partitions) for t in req.topic_partitions}
        heartbeat = HeartbeatRequest(
            req.group_id, req.member_id, req.member_epoch, req.instance_id, req.rack_id, req.rebalance_timeout_ms,
            None if req.subscribed_topic_names is None else list(req.subscribed_topic_names),
            req.get("subscribed_topic_regex"), req.server_assignor, owned)
        self.manager.consumer_group_heartbeat(
            heartbeat, request.header.client_id or "", f"/{request.client_address}",
            lambda response: self.apis.send_response(request, dict(throttle_time_ms=0, **response)))

    def handle_consumer_group_describe_request(self, request: Request) -> None:
        req = request.body
        groups = []
        for group_id in req.group_ids:
            if not self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, group_id):
                groups.append(described_error(group_id, Errors.GROUP_AUTHORIZATION_FAILED))
                continue
            error = self.apis.group_coordinator.group_manager.validate_group_status(group_id, allow_empty_id=True)
            group = self.manager.consumer_group(group_id) if error is None else None
            if error is None and group is None:
                error = Errors.GROUP_ID_NOT_FOUND
            if error is not None:
                message = f"Group {group_id} not found." if error == Errors.GROUP_ID_NOT_FOUND else error.message
                groups.append(described_error(group_id, error, message))
                continue
            with self.manager.lock:
                described = self.describe(group)
            if req.include_authorized_operations:
                described["authorized_operations"] = self.auth.authorized_operations(request, Res.GROUP, group_id)
            groups.append(described)
        self.apis.send_response(request, dict(throttle_time_ms=0, groups=groups))

    def describe(self, group: ConsumerGroup) -> dict:
        names = {t.topic_id: t.name for t in self.apis.metadata_cache.all_topics()}

        def assignment(a: Assignment) -> dict:
            return dict(topic_partitions=[dict(topic_id=t, topic_name=names.get(t, ""), partitions=sorted(p))
                                          for t, p in sorted(a.items(), key=lambda kv: names.get(kv[0], ""))])
        members = [dict(member_id=m.member_id, instance_id=m.instance_id, rack_id=m.rack_id,
                        member_epoch=m.member_epoch, client_id=m.client_id, client_host=m.client_host,
                        subscribed_topic_names=list(m.subscribed_topic_names),
                        subscribed_topic_regex=m.subscribed_topic_regex,
                        assignment=assignment(m.assigned_partitions),
                        target_assignment=assignment(group.target_assignment.get(m.member_id, {})),
                        member_type=CONSUMER_MEMBER_TYPE)
                   for m in group.members.values()]
        return dict(error_code=Errors.NONE, error_message=None, group_id=group.group_id, group_state=str(group.state),
                    group_epoch=group.group_epoch, assignment_epoch=group.assignment_epoch,
                    assignor_name=group.assignor_name or self.manager.default_assignor, members=members)


def described_error(group_id: str, error: Errors, message: str | None = None) -> dict:
    return dict(error_code=error, error_message=message, group_id=group_id, group_state="", group_epoch=-1,
                assignment_epoch=-1, assignor_name="", members=[])
