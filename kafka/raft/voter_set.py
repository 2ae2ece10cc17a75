"""VoterSet: who votes in the metadata quorum, and where to reach them
(Kafka's org.apache.kafka.raft.VoterSet, ReplicaKey, Endpoints; KIP-853).

KIP-595's voters were a line of configuration, `controller.quorum.voters=1@host:port,...`, the same on
every node and never changing. KIP-853 moves the voter set into the metadata log (a VotersRecord) so
that controllers can be added and removed while the quorum runs. A voter is then named by a
ReplicaKey, its node id AND the directory id of its metadata log directory: a controller whose disk
was lost and reformatted gets a new directory id, and is not mistaken for the voter that may have
acknowledged records it no longer has.

A VoterSet is immutable: adding or removing a voter returns a new one. Changes go one voter at a
time (add_voter, remove_voter), which is what makes them safe without joint consensus: any majority
of the old set and any majority of the new one share a voter (has_overlapping_majority).
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field

from kafka.utils.uuid import uuid_to_string

NO_DIRECTORY_ID = uuid.UUID(int=0)  # Kafka's ReplicaKey.NO_DIRECTORY_ID (Uuid.ZERO_UUID): a static voter
SUPPORTED_KRAFT_VERSIONS = (0, 1)  # kraft.version 0 (static voters) and 1 (KIP-853)


def directory_id_from_string(text: str) -> uuid.UUID:
    """A directory id as Kafka prints it (22 characters of URL-safe base64) to a UUID."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != 16:
        raise ValueError(f"{text!r} is not a Kafka Uuid")
    return uuid.UUID(bytes=raw)


@dataclass(frozen=True, order=True)
class ReplicaKey:
    id: int
    directory_id: uuid.UUID = NO_DIRECTORY_ID

    def __str__(self) -> str:
        return f"ReplicaKey(id={self.id}, directoryId={uuid_to_string(self.directory_id)})"


@dataclass(frozen=True)
class VoterNode:
    key: ReplicaKey
    listeners: dict[str, tuple[str, int]] = field(default_factory=dict, compare=True, hash=False)
    supported_kraft_versions: tuple[int, int] = SUPPORTED_KRAFT_VERSIONS

    def to_record(self) -> dict:
        return dict(voter_id=self.key.id, voter_directory_id=self.key.directory_id,
                    endpoints=[dict(name=name, host=host, port=port)
                               for name, (host, port) in sorted(self.listeners.items())],
                    k_raft_version_feature=dict(min_supported_version=self.supported_kraft_versions[0],
                                                max_supported_version=self.supported_kraft_versions[1]))

    @classmethod
    def from_record(cls, voter) -> VoterNode:
        feature = voter.k_raft_version_feature
        return cls(ReplicaKey(voter.voter_id, voter.voter_directory_id),
                   {e.name: (e.host, e.port) for e in voter.endpoints},
                   (feature.min_supported_version, feature.max_supported_version))


class VoterSet:
    def __init__(self, voters: dict[int, VoterNode]) -> None:
        self.voters = dict(voters)

    # ------------------------------------------------------------------ building one
    @classmethod
    def from_static(cls, voters: dict[int, tuple[str, int]], listener_name: str = "CONTROLLER") -> VoterSet:
        """controller.quorum.voters: ids and addresses, no directory ids (kraft.version 0)."""
        return cls({i: VoterNode(ReplicaKey(i), {listener_name: address}, (0, 0))
                    for i, address in voters.items()})

    @classmethod
    def from_ids(cls, ids) -> VoterSet:
        return cls({i: VoterNode(ReplicaKey(i)) for i in ids})

    @classmethod
    def from_voters_record(cls, voters) -> VoterSet:
        return cls({v.voter_id: VoterNode.from_record(v) for v in voters})

    def to_voters_record(self) -> list[dict]:
        return [self.voters[i].to_record() for i in sorted(self.voters)]

    # ------------------------------------------------------------------ reading
    def voter_ids(self) -> frozenset[int]:
        return frozenset(self.voters)

    def voter_keys(self) -> list[ReplicaKey]:
        return sorted(v.key for v in self.voters.values())

    def voter_node(self, voter_id: int) -> VoterNode | None:
        return self.voters.get(voter_id)

    def is_voter(self, key: ReplicaKey) -> bool:
        """Is this replica (id and, when both sides know one, directory id) a voter?"""
        node = self.voters.get(key.id)
        if node is None:
            return False
        return NO_DIRECTORY_ID in (node.key.directory_id, key.directory_id) or node.key == key

    def is_only_voter(self, key: ReplicaKey) -> bool:
        return len(self.voters) == 1 and self.is_voter(key)

    def endpoint(self, voter_id: int, listener_name: str) -> tuple[str, int] | None:
        node = self.voters.get(voter_id)
        if node is None:
            return None
        return node.listeners.get(listener_name) or next(iter(node.listeners.values()), None)

    def endpoints(self, listener_name: str) -> dict[int, tuple[str, int]]:
        """Every voter's address on `listener_name` (the ones without a known endpoint left out)."""
        found = {i: self.endpoint(i, listener_name) for i in self.voters}
        return {i: address for i, address in found.items() if address is not None}

    # ------------------------------------------------------------------ one change at a time
    def add_voter(self, voter: VoterNode) -> VoterSet | None:
        """A new set with `voter` added; None if its id already votes (DUPLICATE_VOTER)."""
        if voter.key.id in self.voters:
            return None
        return VoterSet({**self.voters, voter.key.id: voter})

    def remove_voter(self, key: ReplicaKey) -> VoterSet | None:
        """A new set without `key`; None if it is not a voter, or is the last one (VOTER_NOT_FOUND)."""
        node = self.voters.get(key.id)
        if node is None or node.key != key or len(self.voters) <= 1:
            return None
        return VoterSet({i: v for i, v in self.voters.items() if i != key.id})

    def update_voter(self, voter: VoterNode) -> VoterSet | None:
        """A new set with the voter's endpoints and versions replaced; None if it does not vote."""
        node = self.voters.get(voter.key.id)
        if node is None or not self.is_voter(voter.key):
            return None
        return VoterSet({**self.voters, voter.key.id: voter})

    def has_overlapping_majority(self, other: VoterSet) -> bool:
        """Every majority of one set meets every majority of the other: they differ by one voter at most."""
        mine, theirs = set(self.voter_keys()), set(other.voter_keys())
        return len(mine - theirs) <= 1 and len(theirs - mine) <= 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VoterSet) and self.voters == other.voters

    def __hash__(self) -> int:
        return hash(frozenset(self.voters))

    def __repr__(self) -> str:
        return f"VoterSet({[str(k) for k in self.voter_keys()]})"
