"""The FetchResponse a broker writes (Kafka's common.requests.FetchResponse.of, and
KafkaApis.getCurrentLeader for KIP-951).

The partitions go out in the order the fetch context gives them, grouped into topics only where the
same topic comes twice in a row (Kafka's toMessage keeps the order: it batches a partition with the
topic before it, never with an earlier one). Before v13 a topic is its name, from v13 its id.

KIP-951 (v16): a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries the leader
this broker knows of and its epoch (CurrentLeader), and the response lists those leaders' endpoints on
the listener the fetch came in on (NodeEndpoints), so a client can move without a Metadata request.
"""

from __future__ import annotations

from kafka.protocol.errors import Errors
from kafka.server.fetch_session import SessionPartition
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

FIRST_VERSION_WITH_NODE_ENDPOINTS = 16
LEADER_HINT_ERRORS = (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH)


def current_leader(replica_manager, metadata_cache, tp: TopicPartition,
                   listener: str) -> tuple[int, int, dict | None]:
    """Kafka's KafkaApis.getCurrentLeader: (leader id, leader epoch, its endpoint on `listener` or None),
    from the partition hosted here, else from the metadata; (-1, -1, None) when neither knows it."""
    partition = replica_manager.get_partition(tp)
    if partition is not None:
        leader_id, leader_epoch = partition.leader_id, partition.leader_epoch
    else:
        topic = metadata_cache.get_topic(tp.topic)
        state = topic.partition(tp.partition) if topic is not None else None
        leader_id, leader_epoch = (state.leader, state.leader_epoch) if state is not None else (-1, -1)
    broker = metadata_cache.get_broker(leader_id) if leader_id >= 0 else None
    end_point = broker.end_point(listener) if broker is not None and not broker.fenced else None
    node = (dict(node_id=leader_id, host=end_point.host, port=end_point.port, rack=broker.rack)
            if end_point is not None else None)
    return leader_id, leader_epoch, node


def add_leader_hints(version: int, partitions: list[tuple[SessionPartition, dict]], replica_manager,
                     metadata_cache, listener: str) -> list[dict]:
    """v16+: set CurrentLeader on each partition refused for a stale leader; the leaders' endpoints."""
    if version < FIRST_VERSION_WITH_NODE_ENDPOINTS:
        return []
    endpoints: dict[int, dict] = {}
    for tp, partition in partitions:
        if partition["error_code"] not in LEADER_HINT_ERRORS:
            continue
        topic_partition = tp.topic_partition if isinstance(tp, TopicIdPartition) else tp
        leader_id, leader_epoch, node = current_leader(replica_manager, metadata_cache, topic_partition,
                                                       listener)
        partition["current_leader"] = dict(leader_id=leader_id, leader_epoch=leader_epoch)
        if node is not None:
            endpoints[leader_id] = node
    return list(endpoints.values())


def topic_responses(partitions: list[tuple[SessionPartition, dict]]) -> list[dict]:
    """FetchResponse.toMessage's topics: consecutive partitions of one topic share its entry. Before
    v13 the entry names the topic, from v13 it carries its id (the codec writes the one the version has)."""
    topics: list[dict] = []
    previous = None
    for tp, partition in partitions:
        topic_id = tp.topic_id if isinstance(tp, TopicIdPartition) else None
        key = (tp.topic, topic_id)
        if key != previous:
            topics.append(dict(topic=tp.topic or "", partitions=[]))
            if topic_id is not None:
                topics[-1]["topic_id"] = topic_id
            previous = key
        topics[-1]["partitions"].append(partition)
    return topics
