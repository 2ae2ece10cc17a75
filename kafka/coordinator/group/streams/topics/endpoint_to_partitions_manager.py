"""EndpointToPartitionsManager: which partitions each interactive-query endpoint of a streams application
serves (Kafka's org.apache.kafka.coordinator.group.streams.topics.EndpointToPartitionsManager).

A Kafka Streams instance with ``application.server`` set names an endpoint; to route a key lookup to the
instance holding it, each member learns, for every member with an endpoint, the source (and repartition
source) partitions of its active tasks and of its standby and warm-up tasks. A member gets the list when
the group's endpoint information epoch moved past the one its heartbeat carries.
"""

from __future__ import annotations

from kafka.coordinator.group.group import ApiError
from kafka.protocol.errors import Errors


def build_endpoint_to_partitions(group, updated, replaced_static, topics: dict) -> list[dict]:
    """One entry per member with an endpoint, the heartbeating member's last (Kafka's
    buildEndpointToPartitions)."""
    others = [m for member_id, m in group.members.items() if member_id != updated.member_id
              and (replaced_static is None or member_id != replaced_static.member_id)]
    out = []
    for member in (*others, updated):
        if member.user_endpoint is None:
            continue
        cache = group.unpersisted.endpoint_to_partitions
        if member.member_id not in cache:
            cache[member.member_id] = endpoint_to_partitions(member, group, topics)
        out.append(cache[member.member_id])
    return out


def endpoint_to_partitions(member, group, topics: dict) -> dict:
    configured = group.configured_topology
    if configured is None or configured.subtopologies is None:
        # Kafka's Optional.get() on a topology not configured: its heartbeat fails the same way
        raise ApiError(Errors.UNKNOWN_SERVER_ERROR, "No value present")
    host, port = member.user_endpoint
    return dict(user_endpoint=dict(host=host, port=port),
                active_partitions=topic_partitions(member.assigned_tasks.active_tasks, configured, topics),
                standby_partitions=topic_partitions(member.assigned_tasks.standby_and_warmup_tasks(),
                                                    configured,
                                                    topics))


def topic_partitions(tasks: dict, configured, topics: dict) -> list[dict]:
    out = []
    for subtopology_id, partitions in tasks.items():
        subtopology = configured.subtopologies[subtopology_id]
        for topic in sorted(subtopology.source_topics | set(subtopology.repartition_source_topics)):
            if topic not in topics:
                raise ApiError(Errors.UNKNOWN_SERVER_ERROR, f"Topic {topic} not found in metadata image")
            count = topics[topic][1]
            kept = sorted(p for p in partitions if p < count)
            if kept:
                out.append(dict(topic=topic, partitions=kept))
    return out


def endpoint_information(group, member, updated, replaced_static, joining: bool, changed_tasks: bool,
                         member_endpoint_epoch: int, topics_image, stored: bool) -> dict:
    """A heartbeat's answer about the endpoints: the group's endpoint information epoch moves when a member's
    endpoint changed, or the tasks of a member with one did; the list goes to a member whose epoch of it is
    behind. ``stored``: the group is in the shard already (a new one answers epoch 0)."""
    cache = group.unpersisted.endpoint_to_partitions
    endpoint_changed = member.user_endpoint != updated.user_endpoint
    if joining or changed_tasks or endpoint_changed or replaced_static is not None:
        cache.pop(updated.member_id, None)
        if replaced_static is not None:
            cache.pop(replaced_static.member_id, None)
    if endpoint_changed or (changed_tasks and updated.user_endpoint is not None):
        group.unpersisted.endpoint_information_epoch += 1
    answer = dict(endpoint_information_epoch=group.unpersisted.endpoint_information_epoch if stored else 0)
    if group.unpersisted.endpoint_information_epoch != member_endpoint_epoch:
        answer["partitions_by_user_endpoint"] = build_endpoint_to_partitions(
            group, updated, replaced_static, topics_image())
    return answer
