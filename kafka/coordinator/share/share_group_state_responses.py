"""The answers of the five share-group state RPCs (the static helpers of Kafka's
InitializeShareGroupStateResponse, ReadShareGroupStateResponse, WriteShareGroupStateResponse,
DeleteShareGroupStateResponse and ReadShareGroupStateSummaryResponse).

Every response has one shape: ``results``, a list of topics, each with its ``partitions``, each with
its error and, for the two reads, the state. The share coordinator answers one partition at a time
and the service puts the partitions of a request back together (``combine``).
"""

from __future__ import annotations

import uuid

from kafka.protocol.errors import Errors


def partition_result(partition: int, error: Errors = Errors.NONE, message: str | None = None,
                     **state) -> dict:
    """One partition's answer; a failed read leaves the state at the schema's defaults, as Kafka's do."""
    return dict(partition=partition, error_code=error, error_message=message, **state)


def single(topic_id: uuid.UUID | None, result: dict) -> dict:
    """A response holding one partition of one topic."""
    return dict(results=[dict(topic_id=topic_id or uuid.UUID(int=0), partitions=[result])])


def error_response(topic_id: uuid.UUID | None, partition: int, error: Errors, message: str | None) -> dict:
    """Kafka's toErrorResponseData, for any of the five."""
    return single(topic_id, partition_result(partition, error, message))


def read_response(topic_id: uuid.UUID, partition: int, start_offset: int, state_epoch: int,
                  state_batches) -> dict:
    """ReadShareGroupStateResponse.toResponseData."""
    return single(topic_id, partition_result(partition, start_offset=start_offset, state_epoch=state_epoch,
                                             state_batches=[b.to_fields() for b in state_batches]))


def read_summary_response(topic_id: uuid.UUID, partition: int, start_offset: int,
                          delivery_complete_count: int,
                          leader_epoch: int, state_epoch: int) -> dict:
    """ReadShareGroupStateSummaryResponse.toResponseData."""
    return single(topic_id, partition_result(partition, start_offset=start_offset,
                                             delivery_complete_count=delivery_complete_count,
                                             leader_epoch=leader_epoch, state_epoch=state_epoch))


def global_error_response(request, error: Errors, message: str | None = None) -> dict:
    """Every partition of the request answered with `error` (Kafka's
    getErrorResponse/toGlobalErrorResponse)."""
    return dict(results=[dict(topic_id=topic.topic_id, partitions=[
        partition_result(p.partition, error, message if message is not None else error.message)
        for p in topic.partitions]) for topic in request.topics])


def combine(responses: list[dict]) -> dict:
    """The partitions' answers as one response, grouped by topic in the order topics first appear."""
    topics: dict[uuid.UUID, list[dict]] = {}
    for response in responses:
        for topic in response["results"]:
            topics.setdefault(topic["topic_id"], []).extend(topic["partitions"])
    return dict(results=[dict(topic_id=topic_id, partitions=partitions)
                         for topic_id, partitions in topics.items()])
