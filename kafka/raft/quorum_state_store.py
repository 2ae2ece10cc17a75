"""ElectionState and QuorumStateStore: what a voter must remember across a restart (Kafka's
ElectionState, QuorumStateStore).

Raft's safety rests on two facts surviving a crash: the highest epoch a node has seen, and whom it
voted for in that epoch. A voter that forgot its vote could vote twice in one epoch and let two
leaders be elected. Every transition that changes either is written before the node acts on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class ElectionState:
    epoch: int
    leader_id: int | None = None
    voted_id: int | None = None
    voters: frozenset[int] = field(default_factory=frozenset)


class QuorumStateStore(Protocol):
    def read_election_state(self) -> ElectionState | None: ...

    def write_election_state(self, state: ElectionState) -> None: ...

    def clear(self) -> None: ...
