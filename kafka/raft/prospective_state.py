"""ProspectiveState: a voter that would stand for election, asking first whether it could win (Kafka's
org.apache.kafka.raft.ProspectiveState, KIP-996 "Pre-Vote").

Without it, a voter cut off from the quorum stands for election again and again, each time in a
higher epoch; when its link heals, that epoch is the highest, and the leader, hearing of it, must
step down for an election it did not need. With it, a voter whose fetch or election timeout fires
becomes Prospective: it keeps its epoch and sends Vote with PreVote=true. The others answer as they
would a real vote, but change nothing, and refuse if they still hear from a leader:

    a majority grants            bump the epoch and become Candidate (the real election)
    a majority refuses, or the   go back: Follower of the leader it knew, else Unattached (or Voted,
    election timeout passes      if it had voted in this epoch); the epoch is unchanged

so a node that cannot reach a majority never moves the epoch. Prospective is a soft state: nothing
is written to quorum-state, which still holds the epoch, the leader or the vote it had.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.raft.epoch_election import EpochElection
from kafka.raft.quorum_state_store import ElectionState


@dataclass
class ProspectiveState:
    epoch: int
    local_id: int
    voters: frozenset[int]
    leader_id: int | None  # the leader it followed in this epoch, if any: where it goes back to
    voted_id: int | None  # whom it voted for in this epoch, if anyone: it will not vote for another
    election_deadline_ms: int
    epoch_election: EpochElection = field(init=False)
    name = "Prospective"

    def __post_init__(self) -> None:
        self.epoch_election = EpochElection(self.voters)
        self.epoch_election.record_vote(self.local_id, True)

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, self.leader_id, self.voted_id, voters)
