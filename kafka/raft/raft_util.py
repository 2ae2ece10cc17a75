"""RaftUtil: the bodies of the raft RPCs, each about the one partition of __cluster_metadata
(Kafka's org.apache.kafka.raft.RaftUtil: singletonVoteRequest, singletonFetchRequest, ...).

KafkaRaftClient decides what to say; these functions only give it the wire shape, so the client
reads as the state machine it is. Bodies are the dicts the protocol package encodes.
"""

from __future__ import annotations

import uuid

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.raft.raft_config import RaftConfig
from kafka.raft.replicated_log import OffsetAndEpoch

METADATA_TOPIC = "__cluster_metadata"
METADATA_TOPIC_ID = uuid.UUID(int=1)  # Kafka's Topic.CLUSTER_METADATA_TOPIC_ID, what Fetch v13+ names
NO_LEADER = -1


def only_partition(body, key: str = "topics", partitions: str = "partitions"):
    """The one partition a raft request or response is about."""
    return body[key][0][partitions][0]


def vote_request(cluster_id: str, replica_epoch: int, replica_id: int, last_epoch: int,
                 last_offset: int, pre_vote: bool = False) -> dict:
    return dict(cluster_id=cluster_id, topics=[dict(topic_name=METADATA_TOPIC, partitions=[dict(
        partition_index=0, replica_epoch=replica_epoch, replica_id=replica_id,
        last_offset_epoch=last_epoch, last_offset=last_offset, pre_vote=pre_vote)])])


def begin_quorum_epoch_request(cluster_id: str, leader_id: int, leader_epoch: int) -> dict:
    return dict(cluster_id=cluster_id, topics=[dict(topic_name=METADATA_TOPIC, partitions=[dict(
        partition_index=0, leader_id=leader_id, leader_epoch=leader_epoch)])])


def end_quorum_epoch_request(cluster_id: str, leader_id: int, leader_epoch: int,
                             successors: list[int]) -> dict:
    return dict(cluster_id=cluster_id, topics=[dict(topic_name=METADATA_TOPIC, partitions=[dict(
        partition_index=0, leader_id=leader_id, leader_epoch=leader_epoch,
        preferred_successors=successors)])])


def partition_response(error: Errors, leader_id: int | None, leader_epoch: int, **extra) -> dict:
    """The answer to Vote, BeginQuorumEpoch or EndQuorumEpoch: an error and who leads which epoch."""
    return dict(error_code=Errors.NONE, topics=[dict(topic_name=METADATA_TOPIC, partitions=[dict(
        partition_index=0, error_code=error, leader_id=NO_LEADER if leader_id is None else leader_id,
        leader_epoch=leader_epoch, **extra)])])


def fetch_request(cluster_id: str, replica_id: int, config: RaftConfig, current_leader_epoch: int,
                  fetch_offset: int, last_fetched_epoch: int) -> dict:
    """Both ReplicaId (before v15) and ReplicaState (v15+): the network channel writes the one the version
    agreed has (fetch_request_for_version)."""
    return dict(cluster_id=cluster_id, replica_id=replica_id,
                replica_state=dict(replica_id=replica_id, replica_epoch=-1),
                max_wait_ms=config.fetch_max_wait_ms, min_bytes=0, max_bytes=config.fetch_max_bytes,
                isolation_level=0, session_id=0, session_epoch=-1, forgotten_topics_data=[], rack_id="",
                topics=[dict(topic=METADATA_TOPIC, topic_id=METADATA_TOPIC_ID, partitions=[dict(
                    partition=0, current_leader_epoch=current_leader_epoch, fetch_offset=fetch_offset,
                    last_fetched_epoch=last_fetched_epoch, log_start_offset=-1,
                    partition_max_bytes=config.fetch_max_bytes)])])


def fetch_response(error: Errors, leader_id: int | None, leader_epoch: int, high_watermark: int,
                   log_start_offset: int, records: bytes = b"", diverging: OffsetAndEpoch | None = None,
                   snapshot: OffsetAndEpoch | None = None) -> dict:
    partition = dict(partition_index=0, error_code=error, high_watermark=high_watermark,
                     last_stable_offset=-1, log_start_offset=log_start_offset,
                     current_leader=dict(leader_id=NO_LEADER if leader_id is None else leader_id,
                                         leader_epoch=leader_epoch),
                     aborted_transactions=None, preferred_read_replica=-1, records=records)
    if diverging is not None:
        partition["diverging_epoch"] = dict(epoch=diverging.epoch, end_offset=diverging.offset)
    if snapshot is not None:
        partition["snapshot_id"] = dict(end_offset=snapshot.offset, epoch=snapshot.epoch)
    return dict(throttle_time_ms=0, error_code=Errors.NONE, session_id=0,
                responses=[dict(topic=METADATA_TOPIC, topic_id=METADATA_TOPIC_ID, partitions=[partition])])


def describe_quorum_response(partition: dict) -> dict:
    return dict(error_code=Errors.NONE, topics=[dict(topic_name=METADATA_TOPIC, partitions=[partition])])


def inconsistent_cluster_id_response(api_key: ApiKey) -> dict:
    """The whole-request refusal of a node formatted with another cluster id."""
    if api_key == ApiKey.FETCH:
        return dict(throttle_time_ms=0, error_code=Errors.INCONSISTENT_CLUSTER_ID, session_id=0, responses=[])
    return dict(error_code=Errors.INCONSISTENT_CLUSTER_ID, topics=[])
