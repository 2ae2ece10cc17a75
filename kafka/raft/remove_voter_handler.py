"""RemoveVoterHandler: the leader's side of RemoveRaftVoter
(Kafka's org.apache.kafka.raft.internals.RemoveVoterHandler, KIP-853).

`kafka-metadata-quorum remove-controller --controller-id N --controller-directory-id D` asks the
leader to drop one voter. The refusals are AddVoterHandler's (one change at a time, kraft.version 1),
and VOTER_NOT_FOUND when no voter has that id and directory id -- or when it is the last voter: a
quorum of none could never elect anyone again.

The leader appends a VotersRecord without the voter and counts its majority from the new set at
once. When that record is committed it answers NONE; if the voter it removed was itself, it then
resigns (EndQuorumEpoch), and the remaining voters elect a leader among themselves. The removed
controller keeps running, as an observer, until it is stopped.

Its collaborators are AddVoterHandler's, handed in by VoterChanges: the KRaftControlRecordStateMachine
(`partition_state`, read only), `append_voters_record` (Kafka's LeaderState.appendVotersRecord) and
RaftConfig's request_timeout_ms, as Kafka's RemoveVoterHandler gets its partitionState, time and
requestTimeoutMs. It needs no node id of its own: the LeaderState it is given knows whose it is. The
time comes in as `now`. It sends nothing and resigns nothing: it returns the answer (as Kafka's
returns a future) and, when the leader removed itself, marks the LeaderState resign_requested, which
KafkaRaftClient's leader poll acts on, as Kafka's pollLeader does.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from kafka.protocol.errors import Errors
from kafka.raft.add_voter_handler import AppendVotersRecord
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.leader_state import LeaderState
from kafka.raft.raft_message import RaftRequest
from kafka.raft.voter_set import ReplicaKey

log = structlog.get_logger("kafka.raft.RemoveVoterHandler")


@dataclass
class RemoveVoterHandlerState:
    request: RaftRequest
    voter_key: ReplicaKey
    last_offset: int
    deadline_ms: int


def remove_voter_response(error: Errors, message: str | None = None) -> dict:
    return dict(throttle_time_ms=0, error_code=error, error_message=message)


class RemoveVoterHandler:
    def __init__(self, partition_state: KRaftControlRecordStateMachine,
                 append_voters_record: AppendVotersRecord,
                 request_timeout_ms: int) -> None:
        self.partition_state = partition_state
        self.append_voters_record = append_voters_record
        self.request_timeout_ms = request_timeout_ms

    def handle_remove_voter_request(self, state: LeaderState, request: RaftRequest, now: int) -> dict | None:
        body = request.body
        key = ReplicaKey(body["voter_id"], body["voter_directory_id"])
        partition = self.partition_state
        if state.is_operation_pending(now):
            return remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to handle previous voter change request")
        if state.high_watermark < 0:
            return remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                "Request timed out waiting for leader to establish HWM and fence previous voter changes")
        if partition.last_kraft_version() < 1:
            return remove_voter_response(
                Errors.UNSUPPORTED_VERSION,
                f"Cluster doesn't support removing voter because the kraft.version "
                                            f"feature is {partition.last_kraft_version()}")
        offset = partition.last_voter_set_offset()
        if offset is None or offset >= state.high_watermark:
            return remove_voter_response(
                Errors.REQUEST_TIMED_OUT,
                f"Request timed out waiting for voters to commit the latest voter change "
                                          f"at {offset} with HWM {state.high_watermark}")
        voters = partition.last_voter_set()
        new_voters = voters.remove_voter(key)
        if new_voters is None:
            return remove_voter_response(
                Errors.VOTER_NOT_FOUND, f"Cannot remove voter {key} from the set of voters "
                                        f"{[str(k) for k in voters.voter_keys()]}")
        last_offset = self.append_voters_record(state, new_voters, now)
        state.remove_voter_handler_state = RemoveVoterHandlerState(request, key, last_offset,
                                                                   now + self.request_timeout_ms)
        return None

    def high_watermark_updated(self, state: LeaderState) -> tuple[RaftRequest, dict] | None:
        """The answer to send if the VotersRecord without the voter is now committed; a leader that
        removed itself is then marked to resign."""
        current = state.remove_voter_handler_state
        if current is None or state.high_watermark <= current.last_offset:
            return None
        state.remove_voter_handler_state = None
        if state.local_id not in self.partition_state.last_voter_set().voter_ids():
            log.info("leader is not in the committed voter set: resigning", epoch=state.epoch)
            state.request_resign()
        return current.request, remove_voter_response(Errors.NONE)

    def expire(self, state: LeaderState, now: int) -> tuple[RaftRequest, dict] | None:
        """The answer to send if the change in flight waited past its deadline."""
        current = state.remove_voter_handler_state
        if current is not None and now >= current.deadline_ms:
            state.remove_voter_handler_state = None
            return current.request, remove_voter_response(
                Errors.REQUEST_TIMED_OUT, f"Request timed out waiting for the removal of {current.voter_key} "
                                          "to be committed")
        return None
