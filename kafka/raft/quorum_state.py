"""QuorumState: this node's place in the quorum, and the only way to change it (Kafka's
org.apache.kafka.raft.QuorumState).

Every transition of KIP-595 goes through here, and each one is written to the QuorumStateStore
before the node acts on it (Raft's persistent state: the epoch, and whom we voted for in it):

    Unattached --(election timeout)--> Candidate --(majority of votes)--> Leader --(shutdown)--> Resigned
        |   ^                              |                                 |
        |   +------(a higher epoch)--------+---------------------------------+
        +--(grant a vote)--> Voted         +--(BeginQuorumEpoch / Fetch answer names a leader)--> Follower

KIP-996 puts Prospective before Candidate: a fetch or election timeout (Follower, Unattached, Voted,
Resigned, a Candidate that lost) makes a voter Prospective, in the same epoch; only a majority of
pre-votes makes it Candidate, in the next. Refused or timed out, it goes back to following the
leader it knew, or to Unattached (Voted if it had voted): the epoch moved only if someone can win.

Observers (nodes outside controller.quorum.voters: brokers) only ever are Unattached or Follower.
"""

from __future__ import annotations

import random as random_module

from kafka.raft.batch_accumulator import BatchAccumulator
from kafka.raft.epoch_state import CandidateState, FollowerState, ResignedState, UnattachedState, VotedState
from kafka.raft.leader_state import LeaderState
from kafka.raft.prospective_state import ProspectiveState
from kafka.raft.quorum_state_store import QuorumStateStore
from kafka.raft.raft_config import RaftConfig
from kafka.utils.time import Time


class QuorumState:
    def __init__(self, local_id: int, voters: frozenset[int], store: QuorumStateStore, time: Time,
                 random: random_module.Random, config: RaftConfig) -> None:
        self.local_id = local_id
        self.voters = voters
        self.store = store
        self.time = time
        self.random = random
        self.config = config
        self.state = UnattachedState(0, self.random_election_deadline())

    # ------------------------------------------------------------------ reading
    @property
    def epoch(self) -> int:
        return self.state.epoch

    @property
    def is_voter(self) -> bool:
        return self.local_id in self.voters

    @property
    def leader_id(self) -> int | None:
        if isinstance(self.state, LeaderState | FollowerState | ProspectiveState):
            return self.state.leader_id
        return None

    def is_leader(self) -> bool:
        return isinstance(self.state, LeaderState)

    def is_follower(self) -> bool:
        return isinstance(self.state, FollowerState)

    def state_name(self) -> str:
        if isinstance(self.state, ProspectiveState) and self.state.voted_id is not None:
            return "prospective-voted"  # Kafka's raft-metrics current-state
        return self.state.name.lower() if self.is_voter else "observer"

    def random_election_deadline(self) -> int:
        timeout = self.config.election_timeout_ms
        return self.time.milliseconds() + timeout + self.random.randrange(timeout + 1)

    # ------------------------------------------------------------------ start-up
    def initialize(self) -> None:
        """Resume from the quorum-state file: the epoch and our vote survive a restart; a leadership
        does not (a restarted leader resigns and stands again, as in Kafka)."""
        election = self.store.read_election_state()
        if election is None:
            self._transition(UnattachedState(0, self.random_election_deadline()))
        elif election.leader_id == self.local_id:
            self._transition(ResignedState(election.epoch, self.local_id, [],
                                           self.random_election_deadline()))
        elif election.leader_id is not None:
            self._transition(FollowerState(election.epoch, election.leader_id,
                                           self.time.milliseconds() + self.config.fetch_timeout_ms))
        elif election.voted_id is not None and self.is_voter:
            self._transition(VotedState(election.epoch, election.voted_id, self.random_election_deadline()))
        else:
            self._transition(UnattachedState(election.epoch, self.random_election_deadline()))

    # ------------------------------------------------------------------ transitions
    def _transition(self, state) -> None:
        self.store.write_election_state(state.election_state(self.voters))
        self._set_state(state)

    def _set_state(self, state) -> None:
        """The one place `state` changes. Other threads read it (schedule_append looks for a LeaderState and
        its accumulator), so it is swapped in one assignment; a leadership that ends is closed."""
        old, self.state = self.state, state
        if isinstance(old, LeaderState) and old is not state:
            old.close()

    def transition_to_unattached(self, epoch: int) -> None:
        self._transition(UnattachedState(epoch, self.random_election_deadline()))

    def transition_to_voted(self, epoch: int, candidate_id: int) -> None:
        if not self.is_voter:
            raise ValueError("an observer does not vote")
        self._transition(VotedState(epoch, candidate_id, self.random_election_deadline()))

    def transition_to_candidate(self) -> CandidateState:
        if not self.is_voter:
            raise ValueError("an observer cannot stand for election")
        state = CandidateState(self.epoch + 1, self.local_id, self.voters, self.random_election_deadline())
        self._transition(state)
        return state

    def transition_to_leader(self, epoch_start_offset: int) -> LeaderState:
        accumulator = BatchAccumulator(self.epoch, epoch_start_offset, self.config.append_linger_ms)
        state = LeaderState(self.local_id, self.epoch, epoch_start_offset, self.voters,
                            self.time.milliseconds(),
                            accumulator)
        self._transition(state)
        return state

    def transition_to_follower(self, epoch: int, leader_id: int) -> FollowerState:
        state = FollowerState(epoch, leader_id, self.time.milliseconds() + self.config.fetch_timeout_ms)
        self._transition(state)
        return state

    def transition_to_resigned(self, preferred_successors: list[int]) -> None:
        self._transition(ResignedState(self.epoch, self.local_id, preferred_successors,
                                       self.random_election_deadline()))

    # ------------------------------------------------------------------ KIP-996
    def transition_to_prospective(self) -> ProspectiveState:
        """Ask before standing: same epoch, same leader and vote, so nothing to write (a soft state)."""
        if not self.is_voter:
            raise ValueError("an observer cannot stand for election")
        state = self.state
        leader = state.leader_id if isinstance(state, FollowerState) else None
        # A candidate, or a leader that resigned, voted for itself in this epoch: it must not vote again.
        voted = state.voted_id if isinstance(state, VotedState) else \
            self.local_id if isinstance(state, CandidateState | ResignedState) else None
        self._set_state(ProspectiveState(self.epoch, self.local_id, self.voters, leader, voted,
                                         self.random_election_deadline()))
        return self.state

    def can_grant_vote(self, candidate_id: int, is_log_up_to_date: bool, is_pre_vote: bool) -> bool:
        """Would this node give `candidate_id` its vote in the current epoch (Kafka's
        EpochState.canGrantVote)? A vote goes to one candidate an epoch, and not while a leader is
        known. A pre-vote binds nothing: it goes to any voter whose log is up to date, except from a
        leader and from a follower that has heard from its leader since it began following it
        (KIP-996)."""
        state = self.state
        if isinstance(state, LeaderState):
            return False
        if isinstance(state, FollowerState):
            return is_pre_vote and not state.has_fetched_from_leader and is_log_up_to_date
        if is_pre_vote:
            return is_log_up_to_date
        if isinstance(state, VotedState | ProspectiveState) and state.voted_id is not None:
            return state.voted_id == candidate_id and is_log_up_to_date
        if isinstance(state, UnattachedState) or (isinstance(state, ProspectiveState)
                                                  and state.leader_id is None):
            return is_log_up_to_date
        return False  # a Candidate voted for itself, a Resigned leader led this epoch
