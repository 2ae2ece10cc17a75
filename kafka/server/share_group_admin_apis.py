"""The share-group admin part of KafkaApis (KIP-932): DescribeShareGroupOffsets, AlterShareGroupOffsets and
DeleteShareGroupOffsets (Kafka's KafkaApis.handleDescribeShareGroupOffsetsRequest,
handleAlterShareGroupOffsetsRequest and handleDeleteShareGroupOffsetsRequest). ListGroups with the
share type and DeleteGroups of a share group are GroupApis' handlers, the coordinator doing the rest.

Each handler authorises, asks the GroupCoordinatorService's ShareGroupOffsetsService, and answers from
the callback of the future it returns: the coordinator answers once the share coordinator has (through
the persister), so no I/O thread waits. Kafka's rules for who may do what:

    DescribeShareGroupOffsets   DESCRIBE on the group; topics without DESCRIBE are answered
                                TOPIC_AUTHORIZATION_FAILED (named) or left out (all of them asked)
    AlterShareGroupOffsets      READ on the group; READ on each topic, which must exist
    DeleteShareGroupOffsets     DELETE on the group; READ on each topic

All three are UNSUPPORTED_VERSION while share groups are off (the share.version feature below 1).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService, gather
from kafka.coordinator.group.share_group_offsets_manager import ZERO_UUID
from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AUTHORIZATION_MESSAGES, AuthHelper
from kafka.server.metadata_cache import MetadataCache
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.future_utils import completed

GROUP_DENIED, TOPIC_DENIED = Errors.GROUP_AUTHORIZATION_FAILED, Errors.TOPIC_AUTHORIZATION_FAILED


def message_of(error: Errors) -> str | None:
    """The message Kafka's broker puts beside an error it raises itself."""
    return AUTHORIZATION_MESSAGES.get(error, error.message) if error != Errors.NONE else None


class ShareGroupAdminApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 group_coordinator: GroupCoordinatorService, metadata_cache: MetadataCache,
                 share_groups_enabled: Callable[[], bool]) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.offsets = group_coordinator.share_group_offsets  # the coordinator's share-group admin half
        self.metadata_cache = metadata_cache  # which topics exist, and their ids
        self.share_groups_enabled = share_groups_enabled  # Kafka's isShareGroupProtocolEnabled

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: self.handle_describe_share_group_offsets_request,
                ApiKey.ALTER_SHARE_GROUP_OFFSETS: self.handle_alter_share_group_offsets_request,
                ApiKey.DELETE_SHARE_GROUP_OFFSETS: self.handle_delete_share_group_offsets_request}

    def respond(self, request: Request, body: dict) -> None:
        self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, **body))

    def refused(self, request: Request, error: Errors) -> None:
        """AlterShareGroupOffsets and DeleteShareGroupOffsets refused as a whole (getErrorResponse)."""
        self.respond(request, dict(error_code=error, error_message=message_of(error), responses=[]))

    # ------------------------------------------------------------------ DescribeShareGroupOffsets
    def handle_describe_share_group_offsets_request(self, request: Request) -> None:
        groups = [self.describe_group(request, group) for group in request.body.groups]
        gather(groups, list).add_done_callback(lambda f: self.respond(request, dict(groups=f.result())))

    def describe_group(self, request: Request, group) -> Future:
        """One group's answer: all its partitions with share state (topics null) or the ones named."""
        group_id = group.group_id
        if not self.share_groups_enabled():
            return completed(dict(group_id=group_id, topics=[], error_code=Errors.UNSUPPORTED_VERSION,
                                  error_message=None))
        if not self.auth.authorize(request, Op.DESCRIBE, Res.GROUP, group_id):
            return completed(dict(group_id=group_id, topics=[], error_code=GROUP_DENIED, error_message=None))
        if group.topics is None:
            return self.then(self.offsets.describe_share_group_offsets(group_id, None),
                             lambda described: self.describable_topics_only(request, described))
        if not group.topics:
            return completed(dict(group_id=group_id, topics=[], error_code=Errors.NONE, error_message=None))
        allowed = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                 (t.topic_name for t in group.topics))
        denied = [dict(topic_name=t.topic_name, topic_id=ZERO_UUID, partitions=[dict(
            partition_index=p, start_offset=-1, leader_epoch=0, lag=-1, error_code=TOPIC_DENIED,
            error_message=message_of(TOPIC_DENIED)) for p in t.partitions])
            for t in group.topics if t.topic_name not in allowed]
        described = self.offsets.describe_share_group_offsets(
            group_id, [(t.topic_name, list(t.partitions)) for t in group.topics if t.topic_name in allowed])
        return self.then(described, lambda d: d if d["error_code"] != Errors.NONE else {
            **d, "topics": d["topics"] + denied})

    def describable_topics_only(self, request: Request, described: dict) -> dict:
        allowed = self.auth.filter_by_authorized(request, Op.DESCRIBE, Res.TOPIC,
                                                 (t["topic_name"] for t in described["topics"]))
        return {**described, "topics": [t for t in described["topics"] if t["topic_name"] in allowed]}

    @staticmethod
    def then(future: Future, fn: Callable[[dict], dict]) -> Future:
        answer: Future = Future()
        future.add_done_callback(lambda f: answer.set_result(fn(f.result())))
        return answer

    # ------------------------------------------------------------------ AlterShareGroupOffsets
    def handle_alter_share_group_offsets_request(self, request: Request) -> None:
        req = request.body
        if not self.share_groups_enabled():
            return self.refused(request, Errors.UNSUPPORTED_VERSION)
        if not self.auth.authorize(request, Op.READ, Res.GROUP, req.group_id):
            return self.refused(request, GROUP_DENIED)
        readable = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC,
                                                  (t.topic_name for t in req.topics))
        refused: dict[str, tuple[Errors, list[int]]] = {}
        wanted: dict[str, dict[int, int]] = {}
        for topic in req.topics:  # Kafka's request keys its topics by name: a repeated one is one
            error = (TOPIC_DENIED if topic.topic_name not in readable else
                     Errors.UNKNOWN_TOPIC_OR_PARTITION if not self.metadata_cache.contains(topic.topic_name)
                     else None)
            if error is not None:
                refused[topic.topic_name] = (error, [p.partition_index for p in topic.partitions])
            else:
                wanted[topic.topic_name] = {p.partition_index: p.start_offset for p in topic.partitions}

        def respond(answer: dict) -> None:
            if answer["error_code"] != Errors.NONE:
                return self.respond(request, {**answer, "responses": []})
            self.respond(request, dict(error_code=Errors.NONE, error_message=None,
                                       responses=self.merged(refused, answer["responses"])))
        self.offsets.alter_share_group_offsets(req.group_id, wanted).add_done_callback(
            lambda f: respond(f.result()))

    def merged(self, refused: dict[str, tuple[Errors, list[int]]], responses: list[dict]) -> list[dict]:
        """Kafka's AlterShareGroupOffsetsResponse.Builder: the topics refused here first, then the
        coordinator's; each topic once, with its id from the metadata (zero for one that does not exist)."""
        topics: dict[str, dict] = {}

        def topic(name: str) -> dict:
            if name not in topics:
                known = self.metadata_cache.get_topic(name)
                topics[name] = dict(topic_name=name, topic_id=known.topic_id if known else ZERO_UUID,
                                    partitions=[])
            return topics[name]
        for name, (error, partitions) in refused.items():
            topic(name)["partitions"] += [dict(partition_index=p, error_code=error,
                                               error_message=message_of(error))
                                          for p in partitions]
        for response in responses:
            topic(response["topic_name"])["partitions"] += [dict(p) for p in response["partitions"]]
        return list(topics.values())

    # ------------------------------------------------------------------ DeleteShareGroupOffsets
    def handle_delete_share_group_offsets_request(self, request: Request) -> None:
        req = request.body
        if not self.share_groups_enabled():
            return self.refused(request, Errors.UNSUPPORTED_VERSION)
        if not self.auth.authorize(request, Op.DELETE, Res.GROUP, req.group_id):
            return self.refused(request, GROUP_DENIED)
        readable = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC,
                                                  (t.topic_name for t in req.topics))
        denied = [dict(topic_name=t.topic_name, topic_id=ZERO_UUID, error_code=TOPIC_DENIED,
                       error_message=message_of(TOPIC_DENIED)) for t in req.topics
                       if t.topic_name not in readable]

        def respond(answer: dict) -> None:
            if answer["error_code"] != Errors.NONE:
                return self.respond(request, {**answer, "responses": []})
            self.respond(request, dict(error_code=Errors.NONE, error_message=None,
                                       responses=denied + answer["responses"]))
        self.offsets.delete_share_group_offsets(
            req.group_id, [t.topic_name for t in req.topics if t.topic_name in readable]).add_done_callback(
            lambda f: respond(f.result()))
