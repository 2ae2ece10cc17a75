"""StreamsGroupService: the streams-group part of Kafka's GroupCoordinatorService (streamsGroupHeartbeat,
streamsGroupDescribe, streamsGroupTopologyDescriptionUpdate).

A heartbeat's shape is checked before it reaches a shard (``streams_group_heartbeat_checks.py``); then it
is a write on the shard of the group's ``__consumer_offsets`` partition, answered once its records commit.
StreamsGroupDescribe reads the shards' committed state, one read per shard. Both answer from the futures'
callbacks: no request thread waits. Errors are mapped as for every coordinator operation (Kafka's
CoordinatorOperationExceptionHelper): a write that failed below the coordinator says NOT_COORDINATOR or
COORDINATOR_NOT_AVAILABLE, so the member looks for its coordinator again.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.coordinator.common.runtime.coordinator_operation_exception_helper import handle_operation_exception
from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_heartbeat_checks import (
    throw_if_streams_group_heartbeat_request_is_invalid,
)
from kafka.coordinator.group.streams.streams_group_manager import StreamsGroupHeartbeatResult, error_response
from kafka.protocol.errors import Errors
from kafka.utils.future_utils import all_of, completed, handle

NO_PLUGIN = "The broker has no streams group topology description plugin configured."


def described_error(group_id: str, error: Errors, message: str | None = None) -> dict:
    """StreamsGroupDescribe's entry for a group it cannot describe (Kafka's getErrorDescribedGroupList)."""
    return dict(group_id=group_id, error_code=error, error_message=message)


class StreamsGroupService:
    def __init__(self, write: Callable[[str, str, Callable], Future],
                 read: Callable[[str, str, Callable], Future],
                 not_active: Callable[[], Errors | None], partition_for: Callable[[str], int]) -> None:
        """The GroupCoordinatorService's own: a write or read on a group's shard, whether it is active, and
        which partition a group id hashes to."""
        self.write, self.read, self.not_active, self.partition_for = write, read, not_active, partition_for

    def streams_group_heartbeat(self, request, context) -> Future[StreamsGroupHeartbeatResult]:
        if (error := self.not_active()) is not None:
            return completed(StreamsGroupHeartbeatResult(error_response(error, None)))
        try:
            throw_if_streams_group_heartbeat_request_is_invalid(request)
        except ApiError as e:
            return completed(StreamsGroupHeartbeatResult(error_response(e.error, e.message)))

        def answer(done: Future) -> StreamsGroupHeartbeatResult:
            if done.exception() is None:
                return done.result()
            error, message = handle_operation_exception("streams-group-heartbeat", request.group_id,
                                                         done.exception())
            return StreamsGroupHeartbeatResult(error_response(error, message))
        return handle(self.write("streams-group-heartbeat", request.group_id,
                                 lambda shard: shard.streams_group_heartbeat(context, request)), answer)

    def streams_group_describe(self, group_ids: list[str]) -> Future[list[dict]]:
        """Each group's entry: an empty id is INVALID_GROUP_ID (those first, as Kafka answers them), the
        others asked of their shards."""
        if (error := self.not_active()) is not None:
            return completed([described_error(g, error) for g in group_ids])
        futures, by_partition = [], {}
        for group_id in group_ids:
            if not group_id:
                futures.append(completed([described_error("", Errors.INVALID_GROUP_ID)]))
            else:
                by_partition.setdefault(self.partition_for(group_id), []).append(group_id)
        for ids in by_partition.values():
            def answer(done: Future, ids=ids) -> list[dict]:
                if done.exception() is None:
                    return done.result()
                error, _ = handle_operation_exception("streams-group-describe", ids, done.exception())
                return [described_error(g, error) for g in ids]
            futures.append(handle(self.read("streams-group-describe", ids[0],
                                            lambda shard, committed, ids=ids: shard.streams_group_describe(
                                                ids, committed)), answer))
        return handle(all_of(futures), lambda done: [g for described in done.result() for g in described])

    def streams_group_topology_description_update(self, request) -> Future[dict]:
        """KIP-1331's push of the topology description: only a broker with a plugin keeps one."""
        if (error := self.not_active()) is not None:
            return completed(dict(error_code=error, error_message=None))
        return completed(dict(error_code=Errors.UNSUPPORTED_VERSION, error_message=NO_PLUGIN))
