"""VoterChanges: the KIP-853 part of KafkaRaftClient -- a voter set read from the log, and the leader's
AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (Kafka keeps these in KafkaRaftClient itself, with
its AddVoterHandler, RemoveVoterHandler and UpdateVoterHandler).

A collaborator of the client like FetchHandler, on the raft thread. It keeps the quorum's view of
the voters in step with the log (update_state: after every message and poll, the latest VotersRecord
decides who votes and whose fetches count toward the majority), writes the voter set into the log
when a kraft.version 1 leader is elected and the set so far came only from the bootstrap checkpoint
(so observers and new voters learn it by fetching), routes the three requests to their handlers, and
on each leader poll completes or expires the one change in flight; a leader that removed itself is
told to resign once its removal is committed. DescribeQuorum is answered here too: since version 2 it
names each voter's directory id and the endpoints of every voter.

It is handed what it uses, never the client (arrows point down; a callback is the only way up):

    partition_state         KRaftControlRecordStateMachine (Kafka's of that name): the voter sets and
                            kraft.version the log holds; update_state reads new records into it
    quorum                  QuorumState (Kafka's QuorumState): the current EpochState, and the voter
                            ids it is told here (KafkaRaftClient.voters reads them from it)
    fetches                 FetchHandler (KafkaRaftClient's handleFetchRequest and fetchPurgatory):
                            after an append, the high watermark may move and waiting fetches are answered
    cluster_id              the cluster's id, which a voter-change request must carry if it names one
    request_timeout_ms,     RaftConfig's, for the handlers
    fetch_timeout_ms
    respond                 the client's way to answer a request (Kafka: the response future
                            KafkaRaftClient completes into a message on its channel)
    flush_pending_appends   the client writes what the leader's BatchAccumulator holds to the log; a
                            VotersRecord takes its offset in that accumulator, after the records
                            already promised, so it never moves one (Kafka's appendVotersRecord)

Time comes in as `now` with each call. The rest goes up as answers rather than calls: poll_leader
returns True when the leader must resign (KafkaRaftClient resigns, as Kafka's pollLeader checks
isResignRequested), describe_quorum returns the body the client sends, and the AddVoterHandler and
RemoveVoterHandler built here return their answers for this class to send.
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.kraft_control_records import (
    KRAFT_VERSION,
    KRAFT_VOTERS,
    control_batch,
    control_record,
    kraft_version_value,
    voters_value,
)
from kafka.raft.add_voter_handler import AddVoterHandler
from kafka.raft.fetch_handler import FetchHandler
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.leader_state import LeaderState
from kafka.raft.quorum_state import QuorumState
from kafka.raft.raft_config import RaftConfig
from kafka.raft.raft_message import RaftRequest
from kafka.raft.raft_util import describe_quorum_response
from kafka.raft.remove_voter_handler import RemoveVoterHandler
from kafka.raft.voter_set import NO_DIRECTORY_ID, VoterSet

log = structlog.get_logger("kafka.raft.KafkaRaftClient")

VOTER_CHANGE_APIS = (ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER, ApiKey.UPDATE_RAFT_VOTER)


class VoterChanges:
    def __init__(self, partition_state: KRaftControlRecordStateMachine, quorum: QuorumState,
                 fetches: FetchHandler, cluster_id: str, config: RaftConfig,
                 respond: Callable[[RaftRequest, dict], None],
                 flush_pending_appends: Callable[[LeaderState, int], None]) -> None:
        self.partition_state = partition_state
        self.quorum = quorum
        self.fetches = fetches
        self.cluster_id = cluster_id
        self.respond = respond
        self.flush_pending_appends = flush_pending_appends
        self.add_voter_handler = AddVoterHandler(partition_state, self.append_voters_record,
                                                 config.request_timeout_ms, config.fetch_timeout_ms)
        self.remove_voter_handler = RemoveVoterHandler(partition_state, self.append_voters_record,
                                                       config.request_timeout_ms)
        self._voters: frozenset[int] | None = None
        self._leader_state: LeaderState | None = None  # the leadership whose change in flight we answer for

    # ------------------------------------------------------------------ the voter set from the log
    def update_state(self) -> None:
        """Read new control records; if the latest voter set changed, the QuorumState takes it (the client
        and its VoteHandler read the voters there) and a leader counts its majority from it."""
        self._maybe_abandon(self.quorum.state)
        self.partition_state.update_state()
        voters = self.partition_state.last_voter_set().voter_ids()
        if voters == self._voters:
            return
        if self._voters is not None:
            log.info("the voter set changed", voters=sorted(voters), previous=sorted(self._voters))
        self._voters = voters
        self.quorum.voters = voters
        state = self.quorum.state
        if isinstance(state, LeaderState):
            state.update_voters(voters)

    def append_voters_record(self, state: LeaderState, voters: VoterSet, now: int) -> int:
        """The leader appends `voters` as a VotersRecord (after anything already scheduled: offsets promised
        to the controller do not move) and counts its majority from them at once; returns its offset."""
        record = [control_record(KRAFT_VOTERS, voters_value(voters.to_voters_record()))]
        offset = state.accumulator.append_control_batch(
            lambda base_offset: control_batch(base_offset, now, state.epoch, record), now)
        self.flush_pending_appends(state, now)
        self.update_state()
        self.fetches.update_leader_high_watermark(state, now)
        self.fetches.complete_all(now)
        return offset

    def on_elected(self, state: LeaderState, now: int) -> None:
        """Kafka's appendStartOfEpochControlRecords: a kraft.version 1 voter set known only from the bootstrap
        checkpoint goes into the log, where observers (and voters to come) can fetch it."""
        partition = self.partition_state
        if partition.last_kraft_version() < 1 or partition.last_voter_set_offset() != -1:
            return
        records = [control_record(KRAFT_VERSION, kraft_version_value(partition.last_kraft_version())),
                   control_record(KRAFT_VOTERS, voters_value(partition.last_voter_set().to_voters_record()))]
        state.accumulator.append_control_batch(
            lambda base_offset: control_batch(base_offset, now, state.epoch, records), now)
        self.flush_pending_appends(state, now)
        self.update_state()

    # ------------------------------------------------------------------ requests
    def handle_request(self, request: RaftRequest, now: int) -> bool:
        """AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter; True if `request` was one of them."""
        if request.api_key not in VOTER_CHANGE_APIS:
            return False
        state = self.quorum.state
        cluster_id = request.body.get("cluster_id")
        if cluster_id not in (None, self.cluster_id):
            answer = dict(throttle_time_ms=0, error_code=Errors.INCONSISTENT_CLUSTER_ID, error_message=None)
        elif not isinstance(state, LeaderState) or state.resign_requested:
            answer = dict(throttle_time_ms=0, error_code=Errors.NOT_LEADER_OR_FOLLOWER, error_message=None)
        elif request.api_key == ApiKey.ADD_RAFT_VOTER:
            answer = self.add_voter_handler.handle_add_voter_request(state, request, now)
        elif request.api_key == ApiKey.REMOVE_RAFT_VOTER:
            answer = self.remove_voter_handler.handle_remove_voter_request(state, request, now)
        else:
            answer = self.handle_update_voter_request(state, request)
        if answer is not None:
            if request.api_key == ApiKey.UPDATE_RAFT_VOTER:
                answer.pop("error_message", None)
            self.respond(request, answer)
        return True

    def handle_update_voter_request(self, state: LeaderState, request: RaftRequest) -> dict:
        """UpdateRaftVoter (Kafka's UpdateVoterHandler): a voter tells the leader its new endpoints. This
        leader checks the voter and answers; it keeps the endpoints the VotersRecord already has."""
        body = request.body
        voters = self.partition_state.last_voter_set()
        node = voters.voter_node(body["voter_id"])
        if self.partition_state.last_kraft_version() < 1:
            error = Errors.UNSUPPORTED_VERSION
        elif node is None:
            error = Errors.VOTER_NOT_FOUND
        elif node.key.directory_id not in (body["voter_directory_id"], NO_DIRECTORY_ID):
            error = Errors.VOTER_NOT_FOUND
        else:
            error = Errors.NONE
        return dict(throttle_time_ms=0, error_code=error,
                    current_leader=dict(leader_id=state.local_id, leader_epoch=state.epoch, host="", port=0))

    # ------------------------------------------------------------------ the leader's poll
    def poll_leader(self, state: LeaderState, now: int) -> bool:
        """Complete or expire the change in flight; True if this leader must resign (it removed itself,
        and that is committed): the client resigns."""
        for answer in (self.add_voter_handler.high_watermark_updated(state),
                       self.remove_voter_handler.high_watermark_updated(state),
                       self.add_voter_handler.expire(state, now),
                       self.remove_voter_handler.expire(state, now)):
            if answer is not None:
                self.respond(*answer)
        return state.resign_requested

    def _maybe_abandon(self, state) -> None:
        """We lost the leadership a change was in flight under: answer NOT_LEADER_OR_FOLLOWER (the tool asks
        the new leader), rather than leave the request to time out."""
        old = self._leader_state
        self._leader_state = state if isinstance(state, LeaderState) else None
        if old is None or old is state:
            return
        for current in (old.add_voter_handler_state, old.remove_voter_handler_state):
            if current is not None and not getattr(current, "answered", False):
                self.respond(current.request, dict(throttle_time_ms=0, error_message=None,
                                                   error_code=Errors.NOT_LEADER_OR_FOLLOWER))
        old.add_voter_handler_state = old.remove_voter_handler_state = None

    # ------------------------------------------------------------------ DescribeQuorum
    def describe_quorum(self) -> dict:
        """The DescribeQuorum response body, for the client to send."""
        state = self.quorum.state
        if not isinstance(state, LeaderState):
            leader = self.quorum.leader_id  # the tool follows it there (with `nodes`, below)
            partition = dict(partition_index=0, error_code=Errors.NOT_LEADER_OR_FOLLOWER,
                             leader_id=-1 if leader is None else leader, leader_epoch=self.quorum.epoch)
        else:
            partition = dict(partition_index=0, error_code=Errors.NONE, **state.describe())
            voters = self.partition_state.last_voter_set()
            for replica in partition["current_voters"]:
                node = voters.voter_node(replica["replica_id"])
                replica["replica_directory_id"] = node.key.directory_id if node else NO_DIRECTORY_ID
        body = describe_quorum_response(partition)
        voters = self.partition_state.last_voter_set()
        body["nodes"] = [dict(node_id=i,
                              listeners=[dict(name=name, host=host, port=port) for name, (host, port)
                                         in sorted(voters.voter_node(i).listeners.items())])
                         for i in sorted(voters.voter_ids())]
        return body
