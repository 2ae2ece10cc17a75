"""AddVoterHandler: the leader's side of AddRaftVoter
(Kafka's org.apache.kafka.raft.internals.AddVoterHandler, KIP-853).

A controller formatted with `kafka-storage format --no-initial-controllers` starts as an observer:
it fetches the metadata log like a broker and votes in nothing. `kafka-metadata-quorum add-controller`
then asks the leader to make it a voter. The leader answers at once with an error when it cannot:

    REQUEST_TIMED_OUT     another voter change is in flight, or the last VotersRecord is not yet
                          committed, or the leader has not committed anything in its epoch yet:
                          one change at a time, each committed before the next (KIP-853)
    UNSUPPORTED_VERSION   the quorum runs kraft.version 0: its voters are controller.quorum.voters
    DUPLICATE_VOTER       that id votes already
    REQUEST_TIMED_OUT     the new voter is not an observer that has caught up with the log lately:
                          a voter that is far behind would hold back the high watermark

Otherwise it appends a VotersRecord with the new voter (from then on the majority is counted from
the new set) and answers NONE once that record is committed -- or at once, when AddRaftVoter v1 says
AckWhenCommitted false (KIP-1186): the change is still in flight until committed, and the next one
waits for it as before; the answer only says the leader has written it. Kafka first asks the new voter for its
ApiVersions to learn the kraft.version range it supports; this leader takes the observer's Fetch as
proof that it runs this software and gives it the range (0, 1).

Its collaborators, each handed in by VoterChanges (the KIP-853 part of KafkaRaftClient), as Kafka
hands its AddVoterHandler the partition state, a request sender and the time:

    partition_state        the KRaftControlRecordStateMachine (Kafka's of that name): the latest
                           voter set and kraft.version in the log, read only
    append_voters_record   a callback to VoterChanges, its owner, and its only way to the log (Kafka's
                           LeaderState.appendVotersRecord): (leader state, voters, now) -> its offset
    request_timeout_ms,    RaftConfig's: how long a change may wait for its commit, and how lately
    fetch_timeout_ms       an observer must have caught up to be added

The time comes in as `now` with each call. Nothing here sends: like Kafka's handler, which returns a
future that KafkaRaftClient completes into a response, each method returns the answer -- a body to
send at once, or a (request, body) pair once the change is committed or has expired -- and
VoterChanges sends it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kafka.protocol.errors import Errors
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.leader_state import LeaderState
from kafka.raft.raft_message import RaftRequest
from kafka.raft.voter_set import ReplicaKey, VoterNode, VoterSet

AppendVotersRecord = Callable[[LeaderState, VoterSet, int], int]  # (leader state, voters, now) -> offset


@dataclass
class AddVoterHandlerState:
    request: RaftRequest
    voter_key: ReplicaKey
    last_offset: int  # the VotersRecord that adds the voter
    deadline_ms: int
    answered: bool = False  # AckWhenCommitted false: answered when written, nothing to send later


def add_voter_response(error: Errors, message: str | None = None) -> dict:
    return dict(throttle_time_ms=0, error_code=error, error_message=message)


class AddVoterHandler:
    def __init__(self, partition_state: KRaftControlRecordStateMachine,
                 append_voters_record: AppendVotersRecord,
                 request_timeout_ms: int, fetch_timeout_ms: int) -> None:
        self.partition_state = partition_state
        self.append_voters_record = append_voters_record
        self.request_timeout_ms = request_timeout_ms
        self.fetch_timeout_ms = fetch_timeout_ms

    def handle_add_voter_request(self, state: LeaderState, request: RaftRequest, now: int) -> dict | None:
        """Start adding the voter of `request`: a body to answer at once (an error, or NONE when v1 asks
        not to wait for the commit), or None (answered on commit)."""
        body = request.body
        key = ReplicaKey(body["voter_id"], body["voter_directory_id"])
        refusal = self._refusal(state, key, now)
        if refusal is not None:
            return add_voter_response(*refusal)
        voters = self.partition_state.last_voter_set()
        listeners = {listener["name"]: (listener["host"], listener["port"]) for listener in body["listeners"]}
        new_voters = voters.add_voter(VoterNode(key, listeners))
        last_offset = self.append_voters_record(state, new_voters, now)
        timeout = body.get("timeout_ms") or self.request_timeout_ms
        ack_when_written = not body.get("ack_when_committed", True)
        state.add_voter_handler_state = AddVoterHandlerState(request, key, last_offset, now + timeout,
                                                             answered=ack_when_written)
        return add_voter_response(Errors.NONE) if ack_when_written else None

    def _refusal(self, state: LeaderState, key: ReplicaKey, now: int) -> tuple[Errors, str] | None:
        partition = self.partition_state
        if state.is_operation_pending(now):
            return (Errors.REQUEST_TIMED_OUT,
                    "Request timed out waiting for leader to handle previous voter change request")
        if state.high_watermark < 0:
            return (Errors.REQUEST_TIMED_OUT,
                    "Request timed out waiting for leader to establish HWM and fence previous voter changes")
        if partition.last_kraft_version() < 1:
            return (Errors.UNSUPPORTED_VERSION,
                    f"Cluster doesn't support adding voter because the kraft.version feature is "
                    f"{partition.last_kraft_version()}")
        offset = partition.last_voter_set_offset()
        if offset is None or offset >= state.high_watermark:
            return (Errors.REQUEST_TIMED_OUT,
                    f"Request timed out waiting for voters to commit the latest voter "
                    f"change at {offset} with HWM {state.high_watermark}")
        voters = partition.last_voter_set()
        if key.id in voters.voter_ids():
            return (Errors.DUPLICATE_VOTER, f"The voter id for {key} is already part of the set of voters "
                                            f"{[str(k) for k in voters.voter_keys()]}.")
        if not state.is_replica_caught_up(key.id, now, self.fetch_timeout_ms):
            return (Errors.REQUEST_TIMED_OUT,
                    f"Aborted add voter operation for {key} since it is lagging behind")
        return None

    def high_watermark_updated(self, state: LeaderState) -> tuple[RaftRequest, dict] | None:
        """The answer to send if the VotersRecord that adds the voter is now committed."""
        current = state.add_voter_handler_state
        if current is not None and state.high_watermark > current.last_offset:
            state.add_voter_handler_state = None
            return None if current.answered else (current.request, add_voter_response(Errors.NONE))
        return None

    def expire(self, state: LeaderState, now: int) -> tuple[RaftRequest, dict] | None:
        """The answer to send if the change in flight waited past its deadline."""
        current = state.add_voter_handler_state
        if current is not None and now >= current.deadline_ms:
            state.add_voter_handler_state = None
            if current.answered:
                return None
            return current.request, add_voter_response(
                Errors.REQUEST_TIMED_OUT,
                f"Request timed out waiting for {current.voter_key} to be committed")
        return None
