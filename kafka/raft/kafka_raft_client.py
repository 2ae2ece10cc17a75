"""KafkaRaftClient: the Raft state machine of the metadata quorum
(Kafka's org.apache.kafka.raft.KafkaRaftClient, KIP-595).

Seed 004: "KRaft ... the metadata is stored in a topic (`__cluster_metadata`) replicated by the
controllers with Raft". This file is that Raft, written the way etcd-io/raft is: no sockets, no
threads, no sleeps. Messages and time go in, messages come out:

    handle_inbound(message)   a request from a peer, the answer to one of ours, or word that one of
                              ours got no answer (a RaftTransportFailure)
    poll()                    fire what is due at time.milliseconds(): elections, fetches, linger
    drain_outbound()          the messages to send now

so that tests/raft/ can run thousands of seeded clusters with lost, late and reordered messages, and
KafkaRaftClientDriver can run one real node with real sockets.

Where it parts from etcd: etcd's core hands back a Ready (entries to persist, committed entries to
apply, messages to send) and does no I/O itself; the caller writes the disk and applies before it
steps the core again. This core, like Kafka's, does the rest inside its own calls: handle_inbound
and poll append to the log and flush it (log.flush) before they return, write quorum-state, and call
the listeners (handle_commit, handle_leader_change) from poll. Only sending is left to the caller,
through drain_outbound. A listener must therefore be quick: the QuorumController queues the work on
its own thread and returns. Only the driver's thread steps the core; other threads call
schedule_append, log_end_offset (the leader's BatchAccumulator) and resign, and read `published`
(PublishedQuorumState).

What KIP-595 changes from textbook Raft, and this file shows:
  * followers PULL: they send Fetch to the leader like any Kafka consumer; a Fetch carries the
    follower's log end and last epoch, which is both its acknowledgement and the leader's cue to
    say "your log diverges from mine at epoch E, offset O" (truncate, then fetch again);
  * the high watermark (the commit index) is the offset a majority of voters have fetched up to,
    and travels back to followers in every Fetch response;
  * a new leader announces itself with BeginQuorumEpoch, and a leader that shuts down resigns
    with EndQuorumEpoch, so nobody waits for a timeout in either case;
  * observers (brokers) fetch the log like voters but never vote or count toward a majority.

This file is the election protocol and the follower. Its collaborators, each on the raft thread
and each handed only the state it uses (answers and events come back through callbacks or return
values): FetchHandler (the leader's side of Fetch, with its FetchPurgatory), VoteHandler (a voter's
answer to a Vote or a pre-vote, KIP-996), QuorumEpochHandler (a voter's answer to BeginQuorumEpoch
and EndQuorumEpoch), BatchAccumulator (the leader's next batch, in its LeaderState), ListenerContext
(what each listener has been told), RaftSnapshots (KIP-630), DefaultRequestSender and its
RequestManager (requests out, and the one awaited from each peer) and VoterChanges (KIP-853: the
voter set the log's VotersRecords hold, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter and
DescribeQuorum).
"""

from __future__ import annotations

import random as random_module

import structlog

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.raft.batch import LeaderAndEpoch, NotLeaderError
from kafka.raft.default_request_sender import DefaultRequestSender
from kafka.raft.epoch_state import (
    CandidateState,
    FollowerState,
    ResignedState,
    UnattachedState,
    VotedState,
)
from kafka.raft.fetch_handler import FetchHandler
from kafka.raft.kafka_raft_metrics import KafkaRaftMetrics
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.leader_state import LeaderState
from kafka.raft.listener_context import ListenerContext
from kafka.raft.prospective_state import ProspectiveState
from kafka.raft.published_quorum_state import PublishedQuorumState
from kafka.raft.quorum_epoch_handler import QuorumEpochHandler
from kafka.raft.quorum_state import QuorumState
from kafka.raft.quorum_state_store import QuorumStateStore
from kafka.raft.raft_config import RaftConfig
from kafka.raft.raft_message import RaftRequest, RaftResponse, RaftTransportFailure
from kafka.raft.raft_snapshots import RaftSnapshots
from kafka.raft.raft_util import (
    begin_quorum_epoch_request,
    end_quorum_epoch_request,
    fetch_request,
    inconsistent_cluster_id_response,
    only_partition,
    vote_request,
)
from kafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from kafka.raft.request_manager import RequestManager
from kafka.raft.vote_handler import VoteHandler
from kafka.raft.voter_changes import VoterChanges
from kafka.raft.voter_set import VoterSet
from kafka.utils.time import Time

log = structlog.get_logger("kafka.raft.KafkaRaftClient")

RETRY_BACKOFF_BASE_MS = 100


class KafkaRaftClient:
    def __init__(self, node_id: int, voters: set[int] | VoterSet, log: ReplicatedLog,
                 quorum_state_store: QuorumStateStore, time: Time, random: random_module.Random,
                 config: RaftConfig, cluster_id: str, listeners=()) -> None:
        self.node_id = node_id
        self.log = log
        static_voters = voters if isinstance(voters, VoterSet) else VoterSet.from_ids(voters)
        # The latest VotersRecord's voter set, else the static voters.
        self.partition_state = KRaftControlRecordStateMachine(static_voters, log)
        self.time = time
        self.random = random
        self.config = config
        self.cluster_id = cluster_id
        voter_ids = self.partition_state.last_voter_set().voter_ids()
        self.quorum = QuorumState(node_id, voter_ids, quorum_state_store, time, random, config)
        self._outbound: list[RaftRequest | RaftResponse] = []
        # The one request awaited from each peer, and the peers to leave alone for a while.
        self.requests = RequestManager(config.retry_backoff_ms,
                                       config.request_timeout_ms + config.fetch_max_wait_ms)
        self.sender = DefaultRequestSender(node_id, self.requests, time, lambda m: self._outbound.append(m))
        self._listeners = [ListenerContext(listener) for listener in listeners]
        self._shutting_down = False
        self._election_retries = 0  # elections lost in a row: the backoff doubles with each
        self.inconsistent_cluster_id_count = 0
        self.snapshots = RaftSnapshots(node_id, cluster_id, log, self.quorum, time, config,
                                       self.partition_state)
        self.metrics = KafkaRaftMetrics()
        # Answering requests: Fetch (as the leader), Vote, BeginQuorumEpoch and EndQuorumEpoch (a voter).
        self.fetches = FetchHandler(log, self.quorum, config, self.metrics, self._respond)
        self.votes = VoteHandler(log, self.quorum, lambda: self.voters, self._respond,
                                 self._after_leadership_lost)
        self.quorum_epochs = QuorumEpochHandler(node_id, self.quorum, lambda: self.voters, config, time,
                                                random, self._respond, self._become_follower)
        self.voter_changes = VoterChanges(self.partition_state, self.quorum, self.fetches, cluster_id, config,
                                          self._respond, self._flush_pending_appends)  # KIP-853
        # controller.quorum.bootstrap.servers (-2, -3, ...): fetched from until the voters are known.
        self.bootstrap_ids: list[int] = []
        # Swapped whole at the end of every poll, for the other threads to read.
        self.published = PublishedQuorumState(cluster_id)

    # ================================================================== the public face
    def register(self, listener) -> None:
        self._listeners.append(ListenerContext(listener))

    def initialize(self) -> None:
        self.voter_changes.update_state()
        self.quorum.initialize()
        if self.quorum.is_voter and self.voters == {self.node_id} and not self.quorum.is_leader():
            self._become_candidate()  # a quorum of one elects itself at once
        self._publish_state()

    @property
    def voters(self) -> frozenset[int]:
        return self.quorum.voters  # the latest VotersRecord's, else the static voters (VoterChanges sets it)

    def leader_and_epoch(self) -> LeaderAndEpoch:
        return LeaderAndEpoch(self.quorum.leader_id, self.quorum.epoch)

    def log_end_offset(self) -> int:
        """The offset the next scheduled record will get (any thread: the leader's accumulator, else
        `published`)."""
        state = self.quorum.state  # one read of the reference the raft thread swaps
        if isinstance(state, LeaderState):
            return state.accumulator.next_offset()
        return self.published.log_end_offset

    def high_watermark(self) -> int | None:
        hw = self.log.high_watermark()
        return hw if hw >= 0 else None

    def drain_outbound(self) -> list[RaftRequest | RaftResponse]:
        out, self._outbound = self._outbound, []
        return out

    def schedule_append(self, epoch: int, records: list[bytes]) -> int:
        """Queue records for the next batch of the log; returns the offset the last one will get.
        Only the leader of `epoch` may append (Kafka's scheduleAppend). Any thread: into the
        BatchAccumulator."""
        state = self.quorum.state  # one read of the reference the raft thread swaps
        if not isinstance(state, LeaderState) or state.epoch != epoch or self._shutting_down:
            raise NotLeaderError(f"node {self.node_id} is not the leader of epoch {epoch}")
        return state.accumulator.append(epoch, records, self.time.milliseconds())

    def schedule_snapshot(self, snapshot_id: OffsetAndEpoch, records: list[bytes]) -> None:
        """Write a snapshot of the committed log below snapshot_id.offset at the next poll (KIP-630)."""
        self.snapshots.schedule_snapshot(snapshot_id, records)

    def shutdown(self, timeout_ms: int) -> None:
        """A leader resigns: it tells the voters (EndQuorumEpoch), best-placed successors first."""
        self._shutting_down = True
        state = self.quorum.state
        for context in self._listeners:
            context.begin_shutdown()
        if isinstance(state, LeaderState):
            self._resign(state)

    def resign(self, epoch: int) -> None:
        """The leader of `epoch` steps down (Kafka's RaftClient.resign), the controller having
        renounced after a fault. Any thread: it asks, the next poll resigns (requestResign); nothing
        if we no longer lead `epoch`."""
        state = self.quorum.state  # one read of the reference the raft thread swaps
        if isinstance(state, LeaderState) and state.epoch == epoch and not self._shutting_down:
            log.info("resigning at the controller's request", epoch=epoch)
            state.request_resign()

    def _resign(self, state: LeaderState) -> None:
        others = [v for v in self.voters if v != self.node_id]
        successors = sorted(others, key=lambda v: -state.voter_states[v].end_offset)
        self.quorum.transition_to_resigned(successors)
        for voter in others:
            body = end_quorum_epoch_request(self.cluster_id, self.node_id, self.quorum.epoch, successors)
            self.sender.send(voter, ApiKey.END_QUORUM_EPOCH, body)
        self._after_leadership_lost()

    def _publish_state(self) -> None:  # for the other threads: built whole, swapped in with one assignment
        self.published = PublishedQuorumState.of(self.cluster_id, self.quorum, self.log,
                                                 self.partition_state.last_voter_set(), self.metrics,
                                                 self.partition_state.last_kraft_version())

    # ================================================================== poll: the timers
    def poll(self) -> int:
        """Run what is due now; returns how many ms until poll wants to run again."""
        now = self.time.milliseconds()
        self.requests.expire_requests(now)
        self.snapshots.maybe_write_snapshot()
        self.voter_changes.update_state()
        state = self.quorum.state
        poll_state = {LeaderState: self._poll_leader, CandidateState: self._poll_candidate,
                      ProspectiveState: self._poll_prospective, FollowerState: self._poll_follower,
                      ResignedState: self._poll_resigned}.get(type(state), self._poll_unattached_or_voted)
        wait = poll_state(state, now)
        self._fire_listeners()
        self._publish_state()
        return max(0, min(wait, self.config.request_timeout_ms))

    def _poll_leader(self, state: LeaderState, now: int) -> int:
        if state.resign_requested:  # the controller asked (resign), as Kafka's pollLeader checks first
            self._resign(state)
            return 0
        if state.accumulator.needs_drain(now):
            self._flush_pending_appends(state, now)
        for voter in state.non_acknowledging_voters():
            self.sender.maybe_send(voter, ApiKey.BEGIN_QUORUM_EPOCH, lambda: begin_quorum_epoch_request(
                self.cluster_id, self.node_id, state.epoch), now)
        if self.voter_changes.poll_leader(state, now):  # it removed itself, and that is committed (KIP-853)
            self._resign(state)
            return 0
        # Check-quorum: a leader cut off from a majority steps down rather than lead alone forever.
        if len(self.voters) > 1 and state.has_check_quorum_expired(now, self.config.fetch_timeout_ms):
            log.info("resigning: a majority has not fetched lately", epoch=state.epoch)
            self.quorum.transition_to_unattached(state.epoch)
            self._after_leadership_lost()
            return 0
        self.fetches.complete_expired(now)
        deadlines = [d for d in (self.fetches.next_deadline_ms(), state.accumulator.drain_deadline_ms())
                     if d is not None]
        return min(deadlines, default=now + self.config.fetch_max_wait_ms) - now

    def _poll_candidate(self, state: CandidateState, now: int) -> int:
        if state.backoff_deadline_ms is not None:
            if now >= state.backoff_deadline_ms:
                self._become_prospective()
                return 0
            return state.backoff_deadline_ms - now
        if now >= state.election_deadline_ms:  # no decision in time: lose, back off, stand again
            self._lose_election(state, now)
            return 0
        return self._maybe_send_vote_requests(state, now)

    def _poll_prospective(self, state: ProspectiveState, now: int) -> int:
        if now >= state.election_deadline_ms:  # no majority in time: back to what we were (KIP-996)
            self._lose_pre_vote(state)
            return 0
        return self._maybe_send_vote_requests(state, now)

    def _maybe_send_vote_requests(self, state: CandidateState | ProspectiveState, now: int) -> int:
        for voter in state.epoch_election.unrecorded_voters():
            self.sender.maybe_send(voter, ApiKey.VOTE, lambda: self._vote_request_body(state), now)
        return min(state.election_deadline_ms - now, self.config.retry_backoff_ms * 5)

    def _poll_follower(self, state: FollowerState, now: int) -> int:
        if now >= state.fetch_deadline_ms:
            if self.quorum.is_voter:
                log.info("no fetch answered in time; asking the voters for a pre-vote",
                         leader=state.leader_id, epoch=state.epoch)
                self._become_prospective()
            else:
                self.quorum.transition_to_unattached(state.epoch)
            return 0
        if self.snapshots.is_fetching():
            self.sender.maybe_send(state.leader_id, ApiKey.FETCH_SNAPSHOT,
                                   self.snapshots.fetch_snapshot_request_body, now)
        else:
            self.sender.maybe_send(state.leader_id, ApiKey.FETCH, self._fetch_request_body, now)
        return min(state.fetch_deadline_ms - now, self.config.retry_backoff_ms * 5)

    def _poll_resigned(self, state: ResignedState, now: int) -> int:
        if now >= state.election_deadline_ms and not self._shutting_down:
            if self.quorum.is_voter:
                self._become_prospective()
            else:
                self.quorum.transition_to_unattached(state.epoch)
            return 0
        return state.election_deadline_ms - now

    def _poll_unattached_or_voted(self, state: UnattachedState | VotedState, now: int) -> int:
        if not self.quorum.is_voter:
            # An observer finds the leader by fetching from any voter: the answer names it.
            voter = self.random.choice(sorted(self.voters) or self.bootstrap_ids)
            if not self.requests.has_any_inflight_request():
                self.sender.maybe_send(voter, ApiKey.FETCH, self._fetch_request_body, now)
            return self.config.retry_backoff_ms * 5
        if now >= state.election_deadline_ms:
            self._become_prospective()
            return 0
        return state.election_deadline_ms - now

    # ================================================================== elections
    def _become_prospective(self) -> None:  # KIP-996: ask whether we could win before moving the epoch
        self.metrics.on_election_started(self.time.milliseconds())
        self.requests.reset_all()
        state = self.quorum.transition_to_prospective()
        log.info("asking for pre-votes", epoch=state.epoch, log_end=self.log.end_offset())
        if state.epoch_election.is_vote_granted():  # a quorum of one
            self._become_candidate()

    def _lose_pre_vote(self, state: ProspectiveState) -> None:
        """Refused, or no majority in time: follow the leader we knew, else wait; the epoch stays."""
        log.info("pre-vote lost", epoch=state.epoch, granted=sorted(state.epoch_election.granting))
        if state.leader_id is not None:
            self._become_follower(state.epoch, state.leader_id)
        elif state.voted_id is not None:
            self.quorum.transition_to_voted(state.epoch, state.voted_id)
        else:
            self.quorum.transition_to_unattached(state.epoch)

    def _become_candidate(self) -> None:
        self.metrics.on_election_started(self.time.milliseconds())
        self.requests.reset_all()
        state = self.quorum.transition_to_candidate()
        log.info("standing for election", epoch=state.epoch, last_epoch=self.log.last_fetched_epoch(),
                 log_end=self.log.end_offset())
        self._maybe_become_leader(state)

    def _lose_election(self, state: CandidateState, now: int) -> None:
        """Back off before standing again: Kafka's binary exponential backoff, 0 or 100 ms after a first
        loss and doubling with each loss in a row, capped by controller.quorum.election.backoff.max.ms."""
        self._election_retries += 1
        slots = 2 << min(20, self._election_retries - 1)
        backoff = min(RETRY_BACKOFF_BASE_MS * self.random.randrange(slots),
                      self.config.election_backoff_max_ms)
        state.backoff_deadline_ms = now + backoff

    def _maybe_become_leader(self, state: CandidateState) -> None:
        if not state.epoch_election.is_vote_granted():
            return
        now = self.time.milliseconds()
        epoch_start = self.log.end_offset()
        leader = self.quorum.transition_to_leader(epoch_start)  # its BatchAccumulator starts at epoch_start
        self.log.initialize_leader_epoch(leader.epoch)
        leader.append_start_of_epoch_control_records(sorted(self.voters),
                                                     sorted(state.epoch_election.granting), now)
        self.voter_changes.on_elected(leader, now)
        self._flush_pending_appends(leader, now)
        self.requests.reset_all()
        self.fetches.update_leader_high_watermark(leader, now)
        self._election_retries = 0
        self.metrics.on_election_ended(now)
        log.info("elected leader", epoch=leader.epoch, votes=sorted(state.epoch_election.granting),
                 epoch_start_offset=epoch_start)

    def _transition_for_higher_epoch(self, epoch: int, leader_id: int | None) -> None:
        """Someone knows a newer epoch: follow its leader if known, else wait unattached."""
        if leader_id is not None and leader_id >= 0 and leader_id != self.node_id:
            self._become_follower(epoch, leader_id)
        else:
            self.quorum.transition_to_unattached(epoch)
            self._after_leadership_lost()

    def _after_leadership_lost(self) -> None:
        """Whatever a former leader held is answered or dropped: waiting fetches get
        NOT_LEADER_OR_FOLLOWER (the followers then look for the new leader), records not yet appended
        are gone (their writer, the controller, learns of the new leader and fails them; its closed
        accumulator refuses more)."""
        self.fetches.complete_all(self.time.milliseconds())

    def _become_follower(self, epoch: int, leader_id: int) -> None:
        self.requests.reset_all()
        self.snapshots.abandon_snapshot_fetch()
        self.quorum.transition_to_follower(epoch, leader_id)
        self._election_retries = 0
        self._after_leadership_lost()
        self.metrics.on_election_ended(self.time.milliseconds())

    def _maybe_follow(self, epoch: int, leader_id: int) -> None:
        """A message from the leader of `epoch` (or naming it): follow it unless we already do."""
        if leader_id is None or leader_id < 0 or leader_id == self.node_id:
            return
        if isinstance(self.quorum.state, ProspectiveState) and self.quorum.state.leader_id is not None:
            return  # it knows this leader and could not reach it: its pre-vote decides (KIP-996)
        if epoch > self.quorum.epoch or (epoch == self.quorum.epoch and not self.quorum.is_follower()
                                         and not self.quorum.is_leader()):
            self._become_follower(epoch, leader_id)

    # ================================================================== inbound messages
    def handle_inbound(self, message: RaftRequest | RaftResponse | RaftTransportFailure) -> None:
        if isinstance(message, RaftRequest):
            self._handle_request(message)
        else:
            self._handle_response(message)

    def _handle_request(self, request: RaftRequest) -> None:
        if self.voter_changes.handle_request(request, self.time.milliseconds()):
            return
        handler = {ApiKey.VOTE: self.votes.handle_vote_request,
                   ApiKey.BEGIN_QUORUM_EPOCH: self.quorum_epochs.handle_begin_quorum_epoch_request,
                   ApiKey.END_QUORUM_EPOCH: self.quorum_epochs.handle_end_quorum_epoch_request,
                   ApiKey.DESCRIBE_QUORUM: lambda r: self._respond(r, self.voter_changes.describe_quorum()),
                   ApiKey.FETCH: lambda r: self.fetches.handle_fetch_request(r, self.time.milliseconds()),
                   ApiKey.FETCH_SNAPSHOT: lambda r: self._respond(
                       r, self.snapshots.fetch_snapshot_response_body(r.body))}.get(request.api_key)
        if handler is not None and not self._refused_for_cluster_id(request):
            handler(request)

    def _handle_response(self, message: RaftResponse | RaftTransportFailure) -> None:
        if not self.requests.is_response_expected(message.source_id, message.correlation_id):
            return  # a late answer to a request we gave up on
        if isinstance(message, RaftTransportFailure):  # the node is down, or did not answer in time
            self.requests.on_response_result(message.source_id, message.correlation_id, False,
                                             self.time.milliseconds())
            return
        body = message.body
        error = body.get("error_code", 0)
        # A refusal of the whole request (INCONSISTENT_VOTER_SET...) backs off like a lost one.
        self.requests.on_response_result(message.source_id, message.correlation_id, error == Errors.NONE,
                                         self.time.milliseconds())
        if error == Errors.INCONSISTENT_CLUSTER_ID:
            self._on_inconsistent_cluster_id(message.source_id)
        if error != Errors.NONE:
            return
        handler = {ApiKey.VOTE: self._handle_vote_response,
                   ApiKey.BEGIN_QUORUM_EPOCH: self._handle_epoch_response,
                   ApiKey.END_QUORUM_EPOCH: self._handle_epoch_response,
                   ApiKey.FETCH: self._handle_fetch_response,
                   ApiKey.FETCH_SNAPSHOT: self.snapshots.handle_fetch_snapshot_response}.get(message.api_key)
        if handler is not None:
            handler(message.source_id, body)

    def _respond(self, request: RaftRequest, body: dict) -> None:
        self._outbound.append(RaftResponse(request.correlation_id, self.node_id, request.source_id,
                                           request.api_key, body, self.time.milliseconds()))

    def _refused_for_cluster_id(self, request: RaftRequest) -> bool:
        """A Vote, BeginQuorumEpoch, Fetch or FetchSnapshot from a node formatted with another cluster
        id is answered INCONSISTENT_CLUSTER_ID and goes no further; True if this one was."""
        cluster_id = request.body.get("cluster_id")
        unchecked = request.api_key in (ApiKey.END_QUORUM_EPOCH, ApiKey.DESCRIBE_QUORUM)
        if unchecked or cluster_id in (None, self.cluster_id):
            return False
        self._respond(request, inconsistent_cluster_id_response(request.api_key))
        return True

    # ------------------------------------------------------------------ Vote
    def _vote_request_body(self, state: CandidateState | ProspectiveState) -> dict:
        return vote_request(self.cluster_id, state.epoch, self.node_id, self.log.last_fetched_epoch(),
                            self.log.end_offset(), pre_vote=isinstance(state, ProspectiveState))

    def _handle_vote_response(self, source: int, body) -> None:
        p = only_partition(body)
        if self._handle_epoch_in_response(p):
            return
        state = self.quorum.state
        if isinstance(state, ProspectiveState) and p["leader_epoch"] == state.epoch and p.get("pre_vote"):
            state.epoch_election.record_vote(source, bool(p.get("vote_granted")))
            if state.epoch_election.is_vote_granted():
                self._become_candidate()
            elif state.epoch_election.is_vote_rejected():
                self._lose_pre_vote(state)
        elif isinstance(state, CandidateState) and p["leader_epoch"] == state.epoch and not p.get("pre_vote"):
            state.epoch_election.record_vote(source, bool(p.get("vote_granted")))
            if p.get("vote_granted"):
                self._maybe_become_leader(state)
            elif state.epoch_election.is_vote_rejected() and state.backoff_deadline_ms is None:
                    self._lose_election(state, self.time.milliseconds())

    def _handle_epoch_in_response(self, p) -> bool:
        """A response from a newer epoch moves us on; True if it did (the response is then stale)."""
        epoch, leader = p["leader_epoch"], p["leader_id"]
        if epoch > self.quorum.epoch:
            self._transition_for_higher_epoch(epoch, leader if leader >= 0 else None)
            return True
        if epoch == self.quorum.epoch and leader >= 0 and leader != self.node_id:
            self._maybe_follow(epoch, leader)
        return False

    # ------------------------------------------------------------------ BeginQuorumEpoch / EndQuorumEpoch
    def _handle_epoch_response(self, source: int, body) -> None:
        """A voter's answer to our BeginQuorumEpoch or EndQuorumEpoch (its side: QuorumEpochHandler)."""
        p = only_partition(body)
        if self._handle_epoch_in_response(p):
            return
        state = self.quorum.state
        acknowledged = p["error_code"] == Errors.NONE
        if isinstance(state, LeaderState) and acknowledged and p["leader_epoch"] == state.epoch:
            state.add_acknowledgement_from(source)

    # ------------------------------------------------------------------ appends (the leader)
    def _flush_pending_appends(self, state: LeaderState, now: int) -> None:
        batches = state.accumulator.drain(now)  # taken out under its lock; written here with none held
        if not batches:
            return
        for batch in batches:
            info = self.log.append_as_leader(batch.data, state.epoch)
            if info.first_offset != batch.base_offset:  # an offset promised to the controller moved: a bug
                raise RuntimeError(f"a batch promised offset {batch.base_offset} was appended at "
                                   f"{info.first_offset}")
        self.log.flush(False)  # on disk before it can count toward a majority
        self.metrics.on_append(info.last_offset, now)
        self.fetches.update_leader_high_watermark(state, now)
        self.fetches.complete_all(now)

    # ------------------------------------------------------------------ Fetch (the follower's side)
    def _fetch_request_body(self) -> dict:
        return fetch_request(self.cluster_id, self.node_id, self.config, self.quorum.epoch,
                             self.log.end_offset(), self.log.last_fetched_epoch())

    def _on_inconsistent_cluster_id(self, source: int) -> None:
        """A peer refused us: its directories were formatted with another cluster id. Nothing we can do
        but say so (once a while) and keep away from it; the operator must reformat one of us."""
        self.inconsistent_cluster_id_count += 1
        times = self.inconsistent_cluster_id_count
        if times in (1, 10) or times % 100 == 0:
            log.error("a voter belongs to another cluster (INCONSISTENT_CLUSTER_ID): were all nodes "
                      "formatted with the same kafka-storage format -t <cluster id>?",
                      cluster_id=self.cluster_id, peer=source, times=times)
        self.requests.backoff(source, self.time.milliseconds(), self.config.fetch_timeout_ms)

    def _handle_fetch_response(self, source: int, body) -> None:
        p = body["responses"][0]["partitions"][0]
        leader = p.get("current_leader") or {}
        leader_id, leader_epoch = leader.get("leader_id", -1), leader.get("leader_epoch", -1)
        now = self.time.milliseconds()
        if p["error_code"] != Errors.NONE:
            if leader_epoch > self.quorum.epoch:
                self._transition_for_higher_epoch(leader_epoch, leader_id if leader_id >= 0 else None)
            elif leader_epoch == self.quorum.epoch and leader_id >= 0:
                self._maybe_follow(leader_epoch, leader_id)
            else:
                self.requests.backoff(source, now)
            return
        current_epoch = self.quorum.epoch
        if leader_epoch > current_epoch or (leader_epoch == current_epoch and not self.quorum.is_follower()):
            self._maybe_follow(leader_epoch, leader_id)
        state = self.quorum.state
        if not isinstance(state, FollowerState) or state.leader_id != source or state.epoch != leader_epoch:
            return
        state.fetch_deadline_ms, state.has_fetched_from_leader = now + self.config.fetch_timeout_ms, True
        snapshot = p.get("snapshot_id")
        if snapshot is not None and snapshot.get("end_offset", -1) >= 0:
            self.snapshots.begin_fetching_snapshot(OffsetAndEpoch(snapshot["end_offset"], snapshot["epoch"]))
            return
        diverging = p.get("diverging_epoch")
        if diverging is not None and diverging.get("epoch", -1) >= 0:
            # Our tail was written by a leader the quorum moved past: cut it, then fetch again from there.
            epoch, leader_end = diverging["epoch"], diverging["end_offset"]
            end = self.diverging_truncation_offset(epoch, leader_end)
            log.info("truncating a diverging tail", to_offset=end, diverging_epoch=epoch,
                     leader_end_offset=leader_end, log_end_offset=self.log.end_offset())
            self.log.truncate_to(end)
            self.partition_state.truncate_new_entries(end)
            return
        records = p.get("records")
        if records and next(iter_batches(records)).base_offset != self.log.end_offset():
            return  # an answer to a fetch from another position (a stale one): fetch again
        if records:
            self.log.append_as_follower(bytes(records), leader_epoch)
            self.log.flush(False)  # our next Fetch says we have them: they must survive a crash
        hw = min(p["high_watermark"], self.log.end_offset())
        if hw > self.log.high_watermark():
            self.log.update_high_watermark(hw)

    def diverging_truncation_offset(self, epoch: int, leader_end_offset: int) -> int:
        """Where a follower cuts its log when the leader answers "diverging: epoch `epoch` ends at
        `leader_end_offset` in my log" (KIP-595; Kafka's truncateToEndOffset). Cut where the leader's
        copy of that epoch ends, or where ours does if that is sooner; if we never had that epoch,
        where our largest epoch below it ends. Never above our log end, never below our high
        watermark: what is committed stays."""
        # BEGIN LAB 08 SOLUTION: our end_offset_for_epoch, capped by the leader's (same epoch), in [HW, LEO]
        local = self.log.end_offset_for_epoch(epoch)
        end = min(local.offset, leader_end_offset) if local.epoch == epoch else local.offset
        return max(min(end, self.log.end_offset()), self.log.high_watermark())
        # END LAB 08 SOLUTION

    # ================================================================== listeners
    def _fire_listeners(self) -> None:
        """Give each listener the committed batches it has not seen (everything below the HW, once),
        then the leader if it has not heard of it."""
        hw = self.log.high_watermark()
        for context in self._listeners:
            context.update_progress(self.log, self.snapshots, hw, self.config.fetch_max_bytes)
            state = self.quorum.state
            context.maybe_fire_leader_change(self.leader_and_epoch(), state.epoch_start_offset
                                             if isinstance(state, LeaderState) else None)
