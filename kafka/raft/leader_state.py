"""LeaderState: what the leader of the quorum tracks (Kafka's org.apache.kafka.raft.LeaderState).

Followers pull (KIP-595): each Fetch says how far the follower's log reaches (its fetch offset), so
the leader learns every voter's log end offset without a separate acknowledgement. The high
watermark is the largest offset a majority of voters have reached -- with three voters, the middle
one. Raft's rule about old epochs applies: the leader only counts an offset as committed once the
majority has also reached its own epoch's first entry (the LeaderChangeMessage it appended on being
elected), so an entry of an earlier epoch is never committed by counting replicas alone.
Observers (brokers) are tracked too, for DescribeQuorum, but never count toward the majority.

KIP-853: the voter set can change under a leader (update_voters, from the latest VotersRecord in the
log, committed or not). A voter that leaves becomes an observer here and the majority is counted
from the new set, which may no longer hold the leader itself. At most one change is in flight
(is_operation_pending): the AddVoterHandler or RemoveVoterHandler that started it keeps its state here.

The leadership's BatchAccumulator lives here too, as in Kafka: the controller appends to it from its
own thread, and it is closed with this state when the leadership ends (close).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.protocol.control_records import leader_change_batch
from kafka.raft.batch_accumulator import BatchAccumulator
from kafka.raft.quorum_state_store import ElectionState


@dataclass
class ReplicaState:
    node_id: int
    end_offset: int = -1
    last_fetch_ms: int = -1
    last_caught_up_ms: int = -1
    acknowledged_leader: bool = False  # has answered BeginQuorumEpoch, or fetched from us
    high_watermark_sent: int = -1  # the high watermark our last Fetch response told it


class LeaderState:
    name = "Leader"

    def __init__(self, local_id: int, epoch: int, epoch_start_offset: int, voters: frozenset[int],
                 now_ms: int, accumulator: BatchAccumulator) -> None:
        self.local_id = local_id
        self.epoch = epoch
        self.epoch_start_offset = epoch_start_offset
        self.voters = voters
        self.elected_ms = now_ms
        self.high_watermark = -1
        self.voter_states = {v: ReplicaState(v) for v in voters}
        self.voter_states[local_id].acknowledged_leader = True
        self.observer_states: dict[int, ReplicaState] = {}
        self.local_state = self.voter_states[local_id]
        self.add_voter_handler_state = None  # the one voter change in flight (KIP-853), if any
        self.remove_voter_handler_state = None
        # Asked to resign: by the controller (KafkaRaftClient.resign, from its thread), or the leader removed
        # itself and that is committed (KIP-853). The raft thread resigns at its next poll.
        self.resign_requested = False
        self.accumulator = accumulator  # records waiting for the log, appended from the controller's thread

    @property
    def leader_id(self) -> int:
        return self.local_id

    def election_state(self, voters: frozenset[int]) -> ElectionState:
        return ElectionState(self.epoch, self.local_id, None, voters)

    def non_acknowledging_voters(self) -> list[int]:
        return sorted(v for v, s in self.voter_states.items() if not s.acknowledged_leader)

    def add_acknowledgement_from(self, voter_id: int) -> None:
        if voter_id in self.voter_states:
            self.voter_states[voter_id].acknowledged_leader = True

    def update_local_state(self, end_offset: int, now_ms: int) -> bool:
        state = self.local_state
        state.end_offset, state.last_fetch_ms, state.last_caught_up_ms = end_offset, now_ms, now_ms
        return self._maybe_update_high_watermark()

    def replica_state(self, replica_id: int) -> ReplicaState | None:
        return self.voter_states.get(replica_id) or self.observer_states.get(replica_id)

    def replica_knows_high_watermark(self, replica_id: int, high_watermark: int) -> bool:
        """Has `replica_id` been told this high watermark? If not, its Fetch must not wait.

        Kafka 4.1 (KIP-1166) has the follower put the high watermark it knows in its Fetch request
        (version 18); we serve Fetch up to version 12, so the leader remembers what it last sent.
        Before KIP-1166 a Fetch that itself moved the high watermark was parked like any other with
        nothing new to read, and that follower learned of the commit only with the next append or
        after fetch.max.wait: up to 500 ms before a new topic appeared on its broker."""
        state = self.replica_state(replica_id)
        return state is None or state.high_watermark_sent >= high_watermark

    def note_high_watermark_sent(self, replica_id: int, high_watermark: int) -> None:
        state = self.replica_state(replica_id)
        if state is not None:
            state.high_watermark_sent = high_watermark

    def update_replica_state(self, replica_id: int, end_offset: int, now_ms: int) -> bool:
        """A Fetch from `replica_id` at `end_offset`; True if that moved the high watermark."""
        if replica_id in self.voter_states:
            state = self.voter_states[replica_id]
            state.acknowledged_leader = True
        else:
            state = self.observer_states.setdefault(replica_id, ReplicaState(replica_id))
        state.end_offset, state.last_fetch_ms = end_offset, now_ms
        leader_end = self.local_state.end_offset
        if end_offset >= leader_end:
            state.last_caught_up_ms = now_ms
        return self._maybe_update_high_watermark()

    def has_majority_fetched_since(self, since_ms: int) -> bool:
        """Check-quorum: has a majority (this leader included) fetched since `since_ms`?"""
        fetched = sum(1 for s in self.voter_states.values()
                      if s.node_id == self.local_id or s.last_fetch_ms >= since_ms)
        return fetched >= len(self.voters) // 2 + 1

    def has_check_quorum_expired(self, now_ms: int, fetch_timeout_ms: int) -> bool:
        """Check-quorum (Kafka's timeUntilCheckQuorumExpires, CHECK_QUORUM_TIMEOUT_FACTOR 1.5): has
        this leadership lasted 1.5 fetch timeouts, and a majority not fetched in the last 1.5?"""
        timeout = fetch_timeout_ms * 3 // 2
        return now_ms - self.elected_ms > timeout and not self.has_majority_fetched_since(now_ms - timeout)

    def append_start_of_epoch_control_records(self, voters: list[int], granting: list[int],
                                              now_ms: int) -> None:
        """The first entry of every epoch, a LeaderChangeMessage naming the voters and those that
        elected us (Kafka's appendStartOfEpochControlRecords): committing it commits everything
        before it."""
        self.accumulator.append_control_batch(
            lambda base_offset: leader_change_batch(base_offset, now_ms, self.epoch, self.local_id, voters,
                                                    granting), now_ms)

    # ------------------------------------------------------------------ KIP-853: a changing voter set
    def update_voters(self, voters: frozenset[int]) -> None:
        """The latest voter set in the log changed: voters that left are observers now, new ones count."""
        if voters == self.voters:
            return
        for voter_id in set(self.voters) - set(voters):
            state = self.voter_states.pop(voter_id)
            if voter_id != self.local_id:
                self.observer_states[voter_id] = state
        for voter_id in set(voters) - set(self.voters):
            state = self.local_state if voter_id == self.local_id else \
                self.observer_states.pop(voter_id, None) or ReplicaState(voter_id)
            self.voter_states[voter_id] = state
        self.voters = voters

    def is_operation_pending(self, now_ms: int) -> bool:
        return self.add_voter_handler_state is not None or self.remove_voter_handler_state is not None

    def is_replica_caught_up(self, replica_id: int, now_ms: int, max_lag_ms: int) -> bool:
        """May this observer become a voter? It fetched lately and reached our log end lately."""
        state = self.observer_states.get(replica_id)
        if state is None or state.last_caught_up_ms < 0:
            return False
        since = now_ms - max_lag_ms
        return state.last_caught_up_ms >= since and state.last_fetch_ms >= since

    def request_resign(self) -> None:
        self.resign_requested = True

    def close(self) -> None:
        """The leadership is over: what waits in the accumulator is dropped, later appends fail."""
        self.accumulator.close()

    def _maybe_update_high_watermark(self) -> bool:
        ends = sorted((s.end_offset for s in self.voter_states.values()), reverse=True)
        if not ends:
            return False
        candidate = ends[len(self.voters) // 2]  # the largest offset a majority has reached
        if candidate > self.epoch_start_offset and candidate > self.high_watermark:
            self.high_watermark = candidate
            return True
        return False

    def describe(self) -> dict:
        def state(s: ReplicaState) -> dict:
            return dict(replica_id=s.node_id, log_end_offset=s.end_offset,
                        last_fetch_timestamp=s.last_fetch_ms,
                        last_caught_up_timestamp=s.last_caught_up_ms)
        return dict(leader_id=self.local_id, leader_epoch=self.epoch, high_watermark=self.high_watermark,
                    current_voters=[state(s) for _, s in sorted(self.voter_states.items())],
                    observers=[state(s) for _, s in sorted(self.observer_states.items())])
