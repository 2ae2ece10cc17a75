"""EpochElection: the votes a nominee has collected in one epoch (Kafka's
org.apache.kafka.raft.internals.EpochElection, KIP-996).

A nominee (a prospective voter asking for pre-votes, or a candidate asking for votes) counts who
granted and who rejected, among the voters of its epoch only. It wins with a majority of the voters
granting; it has lost as soon as so many rejected that a majority can no longer be reached, and
need not wait for the rest.
"""

from __future__ import annotations


class EpochElection:
    def __init__(self, voters: frozenset[int]) -> None:
        self.voters = voters
        self.granting: set[int] = set()
        self.rejecting: set[int] = set()

    @property
    def majority(self) -> int:
        return len(self.voters) // 2 + 1

    def record_vote(self, voter_id: int, granted: bool) -> None:
        if voter_id not in self.voters:
            return
        (self.granting if granted else self.rejecting).add(voter_id)
        (self.rejecting if granted else self.granting).discard(voter_id)

    def is_vote_granted(self) -> bool:
        return len(self.granting) >= self.majority

    def is_vote_rejected(self) -> bool:
        return len(self.voters) - len(self.rejecting) < self.majority

    def unrecorded_voters(self) -> set[int]:
        return set(self.voters) - self.granting - self.rejecting
