"""The streams groups' records in ``__consumer_offsets`` (Kafka's group-coordinator/src/main/resources/
common/message/StreamsGroup*Key.json and *Value.json, the classes Kafka generates from them), typed, with
their schemas and the translation to and from the fields the serde writes.

    17  StreamsGroupMetadataKey(group_id)          -> the group epoch, the metadata hash of its topics, the
                                                      topology epoch validated, the assignment configs used
    19  StreamsGroupMemberMetadataKey(group_id, member_id) -> a member's process, endpoint, tags, client
    20  StreamsGroupTargetAssignmentMetadataKey(group_id)  -> the assignment epoch and when it was computed
    21  StreamsGroupTargetAssignmentMemberKey(group_id, member_id) -> a member's target tasks
    22  StreamsGroupCurrentMemberAssignmentKey(group_id, member_id) -> its epoch, state and current tasks
    23  StreamsGroupTopologyKey(group_id)          -> the topology the first member sent

(18 is unused.) Keys are non-flexible version-0 strings after the key type, as the consumer groups' keys;
values are flexible version 0. A member's active tasks carry the epoch each was assigned at (a tagged
field, KIP-1251), which fences a zombie's offset commits.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.coordinator.group.streams.tasks_tuple import TasksTuple
from kafka.coordinator.group.streams.tasks_tuple_with_epochs import TasksTupleWithEpochs
from kafka.protocol.schema import Array, Field, Record, Schema
from kafka.protocol.types import Int8, Int16, Int32, Int64, String, UInt16

STREAMS_GROUP_METADATA = 17
STREAMS_GROUP_MEMBER_METADATA = 19
STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA = 20
STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER = 21
STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT = 22
STREAMS_GROUP_TOPOLOGY = 23
STREAMS_GROUP_VALUE_VERSION = 0


# ------------------------------------------------------------------ keys
@dataclass(frozen=True)
class StreamsGroupMetadataKey:
    group_id: str
    key_type = STREAMS_GROUP_METADATA


@dataclass(frozen=True)
class StreamsGroupMemberMetadataKey:
    group_id: str
    member_id: str
    key_type = STREAMS_GROUP_MEMBER_METADATA


@dataclass(frozen=True)
class StreamsGroupTargetAssignmentMetadataKey:
    group_id: str
    key_type = STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA


@dataclass(frozen=True)
class StreamsGroupTargetAssignmentMemberKey:
    group_id: str
    member_id: str
    key_type = STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER


@dataclass(frozen=True)
class StreamsGroupCurrentMemberAssignmentKey:
    group_id: str
    member_id: str
    key_type = STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT


@dataclass(frozen=True)
class StreamsGroupTopologyKey:
    group_id: str
    key_type = STREAMS_GROUP_TOPOLOGY


STREAMS_GROUP_KEYS = {cls.key_type: cls for cls in (
    StreamsGroupMetadataKey, StreamsGroupMemberMetadataKey, StreamsGroupTargetAssignmentMetadataKey,
    StreamsGroupTargetAssignmentMemberKey, StreamsGroupCurrentMemberAssignmentKey, StreamsGroupTopologyKey)}


# ------------------------------------------------------------------ values
@dataclass(frozen=True)
class StreamsGroupMetadataValue:
    epoch: int
    metadata_hash: int  # of every topic the topology names: a change reconfigures the topology
    validated_topology_epoch: int = -1  # the topology epoch whose topics were found in a valid configuration
    last_assignment_configs: tuple[tuple[str, str], ...] | None = None  # (num.standby.replicas, ...), sorted
    stored_description_topology_epoch: int = -1  # KIP-1331's plugin (none here): always -1
    failed_description_topology_epoch: int = -1


@dataclass(frozen=True)
class StreamsGroupMemberMetadataValue:
    instance_id: str | None
    rack_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    topology_epoch: int
    process_id: str
    user_endpoint: tuple[str, int] | None  # (host, port) for interactive queries
    client_tags: tuple[tuple[str, str], ...]  # sorted by key, as Kafka writes them


@dataclass(frozen=True)
class StreamsGroupTargetAssignmentMetadataValue:
    assignment_epoch: int
    assignment_timestamp: int = 0


@dataclass(frozen=True)
class StreamsGroupTargetAssignmentMemberValue:
    tasks: TasksTuple


@dataclass(frozen=True)
class StreamsGroupCurrentMemberAssignmentValue:
    member_epoch: int
    previous_member_epoch: int
    state: int  # StreamsGroupMember's MemberState byte
    assigned_tasks: TasksTupleWithEpochs
    tasks_pending_revocation: TasksTupleWithEpochs


@dataclass(frozen=True)
class TopicInfo:
    """An internal topic of a subtopology: its name, partitions (0: decided by the coordinator; always 0 for
    a changelog topic), replication factor (0: the broker's default) and configs."""

    name: str
    partitions: int = 0
    replication_factor: int = 0
    topic_configs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class CopartitionGroup:
    """Topics that must have as many partitions as each other: indexes into the subtopology's lists."""

    source_topics: tuple[int, ...] = ()
    source_topic_regex: tuple[int, ...] = ()
    repartition_source_topics: tuple[int, ...] = ()


@dataclass(frozen=True)
class Subtopology:
    subtopology_id: str
    source_topics: tuple[str, ...] = ()
    source_topic_regex: tuple[str, ...] = ()
    state_changelog_topics: tuple[TopicInfo, ...] = ()
    repartition_sink_topics: tuple[str, ...] = ()
    repartition_source_topics: tuple[TopicInfo, ...] = ()
    copartition_groups: tuple[CopartitionGroup, ...] = ()


@dataclass(frozen=True)
class StreamsGroupTopologyValue:
    epoch: int
    subtopologies: tuple[Subtopology, ...]


# ------------------------------------------------------------------ schemas
_KEY_VALUE = Schema("KeyValue", Field("key", String, "0+"), Field("value", String, "0+"))
_TASK_IDS = Schema("TaskIds", Field("subtopology_id", String, "0+"), Field("partitions", Array(Int32), "0+"))
_CURRENT_TASK_IDS = Schema(
    "TaskIds", Field("subtopology_id", String, "0+"), Field("partitions", Array(Int32), "0+"),
    Field("assignment_epochs", Array(Int32), "0+", nullable_versions="0+", default=None, tagged_versions="0+",
          tag=0))
_TOPIC_INFO = Schema("TopicInfo", Field("name", String, "0+"), Field("partitions", Int32, "0+"),
                     Field("replication_factor", Int16, "0+"),
                     Field("topic_configs", Array(_KEY_VALUE), "0+"))

VALUE_SCHEMAS = {
    STREAMS_GROUP_METADATA: Schema(
        "StreamsGroupMetadataValue",
        Field("epoch", Int32, "0+"),
        Field("metadata_hash", Int64, "0+"),
        Field("validated_topology_epoch", Int32, "0+", default=-1, tagged_versions="0+", tag=0),
        Field("last_assignment_configs", Array(_KEY_VALUE), "0+", nullable_versions="0+", default=None,
              tagged_versions="0+", tag=1),
        Field("stored_description_topology_epoch", Int32, "0+", default=-1, tagged_versions="0+", tag=2),
        Field("failed_description_topology_epoch", Int32, "0+", default=-1, tagged_versions="0+", tag=3)),
    STREAMS_GROUP_MEMBER_METADATA: Schema(
        "StreamsGroupMemberMetadataValue",
        Field("instance_id", String, "0+", nullable_versions="0+"),
        Field("rack_id", String, "0+", nullable_versions="0+"),
        Field("client_id", String, "0+"),
        Field("client_host", String, "0+"),
        Field("rebalance_timeout_ms", Int32, "0+", default=-1),
        Field("topology_epoch", Int32, "0+"),
        Field("process_id", String, "0+"),
        Field("user_endpoint", Schema("Endpoint", Field("host", String, "0+"), Field("port", UInt16, "0+")),
              "0+",
              nullable_versions="0+", default=None),
        Field("client_tags", Array(_KEY_VALUE), "0+")),
    STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA: Schema(
        "StreamsGroupTargetAssignmentMetadataValue",
        Field("assignment_epoch", Int32, "0+"),
        Field("assignment_timestamp", Int64, "0+", default=0, tagged_versions="0+", tag=0, ignorable=True)),
    STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER: Schema(
        "StreamsGroupTargetAssignmentMemberValue",
        Field("active_tasks", Array(_TASK_IDS), "0+"),
        Field("standby_tasks", Array(_TASK_IDS), "0+"),
        Field("warmup_tasks", Array(_TASK_IDS), "0+")),
    STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT: Schema(
        "StreamsGroupCurrentMemberAssignmentValue",
        Field("member_epoch", Int32, "0+"),
        Field("previous_member_epoch", Int32, "0+"),
        Field("state", Int8, "0+"),
        *(Field(name, Array(_CURRENT_TASK_IDS), "0+") for name in (
            "active_tasks", "standby_tasks", "warmup_tasks", "active_tasks_pending_revocation",
            "standby_tasks_pending_revocation", "warmup_tasks_pending_revocation"))),
    STREAMS_GROUP_TOPOLOGY: Schema(
        "StreamsGroupTopologyValue",
        Field("epoch", Int32, "0+"),
        Field("subtopologies", Array(Schema(
            "Subtopology",
            Field("subtopology_id", String, "0+"),
            Field("source_topics", Array(String), "0+"),
            Field("source_topic_regex", Array(String), "0+"),
            Field("state_changelog_topics", Array(_TOPIC_INFO), "0+"),
            Field("repartition_sink_topics", Array(String), "0+"),
            Field("repartition_source_topics", Array(_TOPIC_INFO), "0+"),
            Field("copartition_groups", Array(Schema(
                "CopartitionGroup", Field("source_topics", Array(Int16), "0+"),
                Field("source_topic_regex", Array(Int16), "0+"),
                Field("repartition_source_topics", Array(Int16), "0+"))), "0+"))), "0+")),
}


# ------------------------------------------------------------------ values <-> the fields the serde writes
def _pairs(pairs) -> list[dict]:
    return [dict(key=k, value=v) for k, v in pairs]


def _task_ids(tasks: dict) -> list[dict]:
    """Sorted by subtopology, each one's partitions sorted, so the same tasks are always the same bytes."""
    return [dict(subtopology_id=s, partitions=sorted(p)) for s, p in sorted(tasks.items())]


def _task_ids_with_epochs(tasks: dict) -> list[dict]:
    return [dict(subtopology_id=s, partitions=sorted(e), assignment_epochs=[e[p] for p in sorted(e)])
            for s, e in sorted(tasks.items())]


def _topic_info(info: TopicInfo) -> dict:
    return dict(name=info.name, partitions=info.partitions, replication_factor=info.replication_factor,
                topic_configs=_pairs(info.topic_configs))


def value_fields(key_type: int, value) -> dict:
    """A value as its schema's fields."""
    if key_type == STREAMS_GROUP_METADATA:
        configs = value.last_assignment_configs
        return dict(epoch=value.epoch, metadata_hash=value.metadata_hash,
                    validated_topology_epoch=value.validated_topology_epoch,
                    last_assignment_configs=None if configs is None else _pairs(configs),
                    stored_description_topology_epoch=value.stored_description_topology_epoch,
                    failed_description_topology_epoch=value.failed_description_topology_epoch)
    if key_type == STREAMS_GROUP_MEMBER_METADATA:
        endpoint = value.user_endpoint
        return dict(instance_id=value.instance_id, rack_id=value.rack_id, client_id=value.client_id,
                    client_host=value.client_host, rebalance_timeout_ms=value.rebalance_timeout_ms,
                    topology_epoch=value.topology_epoch, process_id=value.process_id,
                    user_endpoint=None if endpoint is None else dict(host=endpoint[0], port=endpoint[1]),
                    client_tags=_pairs(value.client_tags))
    if key_type == STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA:
        return dict(assignment_epoch=value.assignment_epoch, assignment_timestamp=value.assignment_timestamp)
    if key_type == STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER:
        tasks = value.tasks
        return dict(active_tasks=_task_ids(tasks.active_tasks), standby_tasks=_task_ids(tasks.standby_tasks),
                    warmup_tasks=_task_ids(tasks.warmup_tasks))
    if key_type == STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        assigned, pending = value.assigned_tasks, value.tasks_pending_revocation
        return dict(member_epoch=value.member_epoch, previous_member_epoch=value.previous_member_epoch,
                    state=value.state,
                    active_tasks=_task_ids_with_epochs(assigned.active_tasks_with_epochs),
                    standby_tasks=_task_ids(assigned.standby_tasks),
                    warmup_tasks=_task_ids(assigned.warmup_tasks),
                    active_tasks_pending_revocation=_task_ids_with_epochs(pending.active_tasks_with_epochs),
                    standby_tasks_pending_revocation=_task_ids(pending.standby_tasks),
                    warmup_tasks_pending_revocation=_task_ids(pending.warmup_tasks))
    return dict(epoch=value.epoch, subtopologies=[dict(
        subtopology_id=s.subtopology_id, source_topics=list(s.source_topics),
        source_topic_regex=list(s.source_topic_regex),
        state_changelog_topics=[_topic_info(t) for t in s.state_changelog_topics],
        repartition_sink_topics=list(s.repartition_sink_topics),
        repartition_source_topics=[_topic_info(t) for t in s.repartition_source_topics],
        copartition_groups=[dict(source_topics=list(c.source_topics),
                                 source_topic_regex=list(c.source_topic_regex),
                                 repartition_source_topics=list(c.repartition_source_topics))
                            for c in s.copartition_groups]) for s in value.subtopologies])


def _tasks(task_ids) -> dict[str, frozenset[int]]:
    return {t.subtopology_id: frozenset(t.partitions) for t in task_ids if t.partitions}


def _tasks_with_epochs(task_ids, member_epoch: int) -> dict[str, dict[int, int]]:
    """Kafka's parseActiveTasksWithEpochs: a record without epochs (or with the wrong number of them) gives
    every task the member's epoch."""
    out = {}
    for t in task_ids:
        epochs = t.assignment_epochs
        if epochs is not None and len(epochs) == len(t.partitions):
            out[t.subtopology_id] = dict(zip(t.partitions, epochs, strict=True))
        elif t.partitions:
            out[t.subtopology_id] = dict.fromkeys(t.partitions, member_epoch)
    return out


def topic_info_from(info) -> TopicInfo:
    """A TopicInfo as the heartbeat or the record carries it (either schema's Record)."""
    return TopicInfo(info.name, info.partitions, info.replication_factor,
                     tuple((c.key, c.value) for c in info.topic_configs or ()))


def subtopology_from(s) -> Subtopology:
    """A subtopology as the heartbeat or the record carries it."""
    return Subtopology(
        s.subtopology_id, tuple(s.source_topics), tuple(s.source_topic_regex),
        tuple(topic_info_from(t) for t in s.state_changelog_topics), tuple(s.repartition_sink_topics),
        tuple(topic_info_from(t) for t in s.repartition_source_topics),
        tuple(CopartitionGroup(tuple(c.source_topics), tuple(c.source_topic_regex),
                               tuple(c.repartition_source_topics))
              for c in s.copartition_groups))


def value_from(key_type: int, v: Record):
    """The typed value of a record read back."""
    if key_type == STREAMS_GROUP_METADATA:
        configs = v.last_assignment_configs
        return StreamsGroupMetadataValue(
            v.epoch, v.metadata_hash, v.validated_topology_epoch,
            None if configs is None else tuple((c.key, c.value) for c in configs),
            v.stored_description_topology_epoch, v.failed_description_topology_epoch)
    if key_type == STREAMS_GROUP_MEMBER_METADATA:
        endpoint = v.user_endpoint
        return StreamsGroupMemberMetadataValue(
            v.instance_id, v.rack_id, v.client_id, v.client_host, v.rebalance_timeout_ms, v.topology_epoch,
            v.process_id, None if endpoint is None else (endpoint.host, endpoint.port),
            tuple((t.key, t.value) for t in v.client_tags))
    if key_type == STREAMS_GROUP_TARGET_ASSIGNMENT_METADATA:
        return StreamsGroupTargetAssignmentMetadataValue(v.assignment_epoch, v.assignment_timestamp)
    if key_type == STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER:
        return StreamsGroupTargetAssignmentMemberValue(
            TasksTuple(_tasks(v.active_tasks), _tasks(v.standby_tasks), _tasks(v.warmup_tasks)))
    if key_type == STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT:
        epoch = v.member_epoch
        return StreamsGroupCurrentMemberAssignmentValue(
            epoch, v.previous_member_epoch, v.state,
            TasksTupleWithEpochs(_tasks_with_epochs(v.active_tasks, epoch), _tasks(v.standby_tasks),
                                 _tasks(v.warmup_tasks)),
            TasksTupleWithEpochs(_tasks_with_epochs(v.active_tasks_pending_revocation, epoch),
                                 _tasks(v.standby_tasks_pending_revocation),
                                 _tasks(v.warmup_tasks_pending_revocation)))
    return StreamsGroupTopologyValue(v.epoch, tuple(subtopology_from(s) for s in v.subtopologies))
