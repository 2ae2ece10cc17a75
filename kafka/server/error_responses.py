"""The answer to a request whose handler failed unexpectedly (Kafka's AbstractRequest.getErrorResponse,
which KafkaApis.handleError sends for any exception a handler throws).

A handler that raises -- a bug, or an error nothing mapped to a code -- must not cost the client its
connection: every other request in flight on it would be lost, and the client could not tell what
went wrong. Kafka answers instead, with the request's own error response: every partition, topic,
resource or group the request named gets the error code (UNKNOWN_SERVER_ERROR for an unexpected
exception), and so does the top-level ``error_code`` where the response has one. ``error_response``
builds that body from the decoded request; None means no answer can be built, and then (only then)
the connection is closed.

A record set in an error answer is empty, never null, as Kafka's FetchResponse.partitionResponse sets
MemoryRecords.EMPTY: a null one goes out as size -1, which librdkafka reads as a parse failure of the
whole response and fetches again at once, a storm of requests against a broker that is already failing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.array_of import Array
from kafka.protocol.errors import Errors
from kafka.protocol.schema import Schema


def _partitions(request, topics_field: str, topic_name: str, partitions_field: str, index_name: str,
                error: Errors, out_topic: str = "name", out_partitions: str = "partitions",
                out_index: str = "partition_index", **extra: Any) -> list[dict]:
    def partition_errors(topic) -> list[dict]:
        return [{out_index: getattr(p, index_name), "error_code": error, **extra}
                for p in getattr(topic, partitions_field)]

    return [{out_topic: getattr(t, topic_name), out_partitions: partition_errors(t)}
            for t in getattr(request, topics_field) or []]


def _produce(request, version: int, error: Errors) -> dict:
    return {"responses": _partitions(request, "topic_data", "name", "partition_data", "index", error,
                                     out_partitions="partition_responses", out_index="index", base_offset=-1)}


def _fetch(request, version: int, error: Errors) -> dict:
    responses = _partitions(request, "topics", "topic", "partitions", "partition", error, out_topic="topic",
                            high_watermark=-1, last_stable_offset=-1, log_start_offset=-1, records=b"")
    for response, topic in zip(responses, request.topics or [], strict=True):
        response["topic_id"] = topic.topic_id  # v13+ names topics by id (KIP-516)
    return {"error_code": error, "responses": responses}


def _list_offsets(request, version: int, error: Errors) -> dict:
    return {"topics": _partitions(request, "topics", "name", "partitions", "partition_index", error)}


def _offset_commit(request, version: int, error: Errors) -> dict:
    return {"topics": _partitions(request, "topics", "name", "partitions", "partition_index", error)}


def _delete_records(request, version: int, error: Errors) -> dict:
    return {"topics": _partitions(request, "topics", "name", "partitions", "partition_index", error,
                                  low_watermark=-1)}


def _metadata(request, version: int, error: Errors) -> dict:
    topics = request.topics or []
    return {"brokers": [], "error_code": error,  # the top-level code from v13
            "topics": [{"name": t.name, "error_code": error, "partitions": []} for t in topics]}


def _describe_topic_partitions(request, version: int, error: Errors) -> dict:
    return {"topics": [{"name": t.name, "error_code": error, "is_internal": False, "partitions": []}
                       for t in request.topics]}


def _create_topics(request, version: int, error: Errors) -> dict:
    return {"topics": [{"name": t.name, "error_code": error, "error_message": error.message}
                       for t in request.topics]}


def _delete_topics(request, version: int, error: Errors) -> dict:
    names = [t.name for t in request.topics] if version >= 6 else list(request.topic_names)
    return {"responses": [{"name": n, "error_code": error} for n in names]}


def _create_partitions(request, version: int, error: Errors) -> dict:
    return {"results": [{"name": t.name, "error_code": error, "error_message": error.message}
                        for t in request.topics]}


def _describe_configs(request, version: int, error: Errors) -> dict:
    return {"results": [{"error_code": error, "error_message": error.message,
                         "resource_type": r.resource_type,
                         "resource_name": r.resource_name, "configs": []} for r in request.resources]}


def _alter_configs(request, version: int, error: Errors) -> dict:
    return {"responses": [{"error_code": error, "error_message": error.message,
                           "resource_type": r.resource_type,
                           "resource_name": r.resource_name} for r in request.resources]}


def _describe_groups(request, version: int, error: Errors) -> dict:
    return {"groups": [{"group_id": g, "error_code": error} for g in request.groups]}


def _delete_groups(request, version: int, error: Errors) -> dict:
    return {"results": [{"group_id": g, "error_code": error} for g in request.groups_names]}


def _find_coordinator(request, version: int, error: Errors) -> dict:
    if version >= 4:
        return {"coordinators": [{"key": k, "node_id": -1, "host": "", "port": -1, "error_code": error,
                                  "error_message": error.message} for k in request.coordinator_keys]}
    return {"error_code": error, "error_message": error.message, "node_id": -1, "host": "", "port": -1}


def _create_acls(request, version: int, error: Errors) -> dict:
    return {"results": [{"error_code": error, "error_message": error.message} for _ in request.creations]}


def _delete_acls(request, version: int, error: Errors) -> dict:
    return {"filter_results": [{"error_code": error, "error_message": error.message, "matching_acls": []}
                               for _ in request.filters]}


def _share_group_heartbeat(request, version: int, error: Errors) -> dict:
    return {"error_code": error, "error_message": None, "member_id": None, "member_epoch": 0,
            "heartbeat_interval_ms": 0, "assignment": None}


def _share_group_describe(request, version: int, error: Errors) -> dict:
    return {"groups": [{"group_id": g, "error_code": error, "error_message": None, "group_state": "",
                        "group_epoch": 0, "assignment_epoch": 0, "assignor_name": "", "members": []}
                       for g in request.group_ids]}


def _streams_group_describe(request, version: int, error: Errors) -> dict:
    return {"groups": [{"group_id": g, "error_code": error, "error_message": None, "group_state": "",
                        "group_epoch": 0, "assignment_epoch": 0, "topology": None, "members": []}
                       for g in request.group_ids]}


def _share_group_state(request, version: int, error: Errors) -> dict:
    """The five *ShareGroupState RPCs: every partition of every topic (Kafka's getErrorResponse)."""
    return {"results": [{"topic_id": t.topic_id, "partitions": [
        {"partition": p.partition, "error_code": error, "error_message": error.message}
        for p in t.partitions]} for t in request.topics]}


_BUILDERS: dict[int, Callable[[Any, int, Errors], dict]] = {
    ApiKey.PRODUCE: _produce,
    ApiKey.FETCH: _fetch,
    ApiKey.LIST_OFFSETS: _list_offsets,
    ApiKey.METADATA: _metadata,
    ApiKey.DESCRIBE_TOPIC_PARTITIONS: _describe_topic_partitions,
    ApiKey.OFFSET_COMMIT: _offset_commit,
    ApiKey.TXN_OFFSET_COMMIT: _offset_commit,
    ApiKey.FIND_COORDINATOR: _find_coordinator,
    ApiKey.DESCRIBE_GROUPS: _describe_groups,
    ApiKey.CREATE_TOPICS: _create_topics,
    ApiKey.DELETE_TOPICS: _delete_topics,
    ApiKey.DELETE_RECORDS: _delete_records,
    ApiKey.DESCRIBE_CONFIGS: _describe_configs,
    ApiKey.ALTER_CONFIGS: _alter_configs,
    ApiKey.CREATE_PARTITIONS: _create_partitions,
    ApiKey.DELETE_GROUPS: _delete_groups,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: _alter_configs,
    ApiKey.CREATE_ACLS: _create_acls,
    ApiKey.DELETE_ACLS: _delete_acls,
    ApiKey.SHARE_GROUP_HEARTBEAT: _share_group_heartbeat,
    ApiKey.SHARE_GROUP_DESCRIBE: _share_group_describe,
    ApiKey.STREAMS_GROUP_DESCRIBE: _streams_group_describe,
    **{key: _share_group_state for key in (ApiKey.INITIALIZE_SHARE_GROUP_STATE, ApiKey.READ_SHARE_GROUP_STATE,
                                           ApiKey.WRITE_SHARE_GROUP_STATE, ApiKey.DELETE_SHARE_GROUP_STATE,
                                           ApiKey.READ_SHARE_GROUP_STATE_SUMMARY)},
}


def error_response(api_key: int, version: int, request_body, error: Errors = Errors.UNKNOWN_SERVER_ERROR,
                   ) -> dict | None:
    """The response body that answers every part of ``request_body`` with ``error``; None if this
    API has neither a builder here nor a top-level error code to carry it."""
    api = APIS.get(api_key)
    if api is None:
        return None
    builder = _BUILDERS.get(api_key)
    if builder is not None and request_body is not None:
        try:
            body = builder(request_body, version, error)
        except (AttributeError, TypeError):
            return None
    elif "error_code" in api.response.by_name and api.response["error_code"].present(version):
        body = {"error_code": error}
    else:
        return None
    return _only_present({"throttle_time_ms": 0, **body}, api.response, version)


def _only_present(value: dict, schema: Schema, version: int) -> dict:
    """Drop what this version of the response does not have (error_message before v1, ...), and give
    every record set this version has empty records where the builder left it out or null."""
    out = {}
    for name, v in value.items():
        field = schema.by_name.get(name)
        if field is None or not field.present(version):
            continue
        if isinstance(field.type, Array) and isinstance(field.type.element, Schema) and v:
            v = [_only_present(e, field.type.element, version) for e in v]
        out[name] = v
    for field in schema.fields:  # a record set's default is null (-1) where it is nullable
        if getattr(field.type, "family", None) == "records" and field.present(version):
            if out.get(field.name) is None:
                out[field.name] = b""
    return out
