"""The states of a quorum member in one epoch (Kafka's UnattachedState, VotedState, CandidateState,
FollowerState, ResignedState; LeaderState has a file of its own).

KIP-595: every node is in exactly one of these, for one epoch:

    Unattached  knows the epoch but no leader, and has not voted in it
    Voted       has voted for a candidate in this epoch (and will not vote again in it)
    Prospective asks the others whether it could win, before it stands (KIP-996, a file of its own)
    Candidate   stands for election: voted for itself, asks the others (Vote)
    Leader      won a majority; appends and serves Fetch
    Follower    knows the leader of this epoch and fetches from it
    Resigned    a leader that is shutting down (EndQuorumEpoch sent)

Each state carries the deadline that ends it: an election timeout, randomized between the
configured timeout and twice that so two voters seldom stand at once, or a fetch timeout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.raft.epoch_election import EpochElection
from kafka.raft.quorum_state_store import ElectionState


@dataclass
class UnattachedState:
    epoch: int
    election_deadline_ms: int
    name = "Unattached"

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, None, None, voters)


@dataclass
class VotedState:
    epoch: int
    voted_id: int
    election_deadline_ms: int
    name = "Voted"

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, None, self.voted_id, voters)


@dataclass
class CandidateState:
    epoch: int
    local_id: int
    voters: frozenset[int]
    election_deadline_ms: int
    backoff_deadline_ms: int | None = None  # set once the election is lost: wait, then stand again
    epoch_election: EpochElection = field(init=False)  # the votes, counted as a prospective state counts them
    name = "Candidate"

    def __post_init__(self) -> None:
        self.epoch_election = EpochElection(self.voters)
        self.epoch_election.record_vote(self.local_id, True)

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, None, self.local_id, voters)


@dataclass
class FollowerState:
    epoch: int
    leader_id: int
    fetch_deadline_ms: int
    high_watermark: int = -1
    has_fetched_from_leader: bool = False  # answered since we began following: refuse pre-votes (KIP-996)
    name = "Follower"

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, self.leader_id, None, voters)


@dataclass
class ResignedState:
    epoch: int
    local_id: int
    preferred_successors: list[int]
    election_deadline_ms: int
    name = "Resigned"

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, self.local_id, None, voters)
