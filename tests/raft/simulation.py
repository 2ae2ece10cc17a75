"""A seeded, deterministic cluster of raft cores (Kafka's RaftEventSimulationTest).

No sockets, threads or sleeps: one MockTime, an in-memory network that delays, drops and reorders
messages, partitions that cut a node off, and restarts that rebuild a node from its log and its
quorum-state. `Simulation(seed).run(...)` either finishes or raises an AssertionError whose message
starts with the seed; RAFT_SIM_SEED=<seed> replays exactly that run.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

from kafka.raft.batch import NotLeaderError
from kafka.raft.kafka_raft_client import KafkaRaftClient
from kafka.raft.leader_state import LeaderState
from kafka.raft.raft_config import RaftConfig
from kafka.raft.replicated_log import OffsetAndEpoch
from kafka.utils.time import MockTime
from tests.raft.mock_log import MockLog

CLUSTER_ID = "simulated-cluster-id0"
CONFIG = RaftConfig(election_timeout_ms=100, fetch_timeout_ms=200, election_backoff_max_ms=50,
                    request_timeout_ms=100, retry_backoff_ms=10, append_linger_ms=5, fetch_max_wait_ms=50)


class MemoryQuorumStateStore:
    def __init__(self) -> None:
        self.state = None

    def read_election_state(self):
        return self.state

    def write_election_state(self, state) -> None:
        self.state = state

    def clear(self) -> None:
        self.state = None


@dataclass
class RecordingListener:
    """Checks what a listener is told: committed batches, in order, each once."""
    node_id: int
    committed: list[tuple[int, bytes]] = field(default_factory=list)
    leaders: list = field(default_factory=list)

    def handle_commit(self, batch) -> None:
        for i, value in enumerate(batch.records):
            offset = batch.base_offset + i
            assert not self.committed or offset > self.committed[-1][0], \
                f"node {self.node_id} was told offset {offset} after {self.committed[-1][0]}"
            self.committed.append((offset, value))

    def handle_load_snapshot(self, reader) -> None:
        """The simulation's snapshots hold b"offset:value" for every committed record below them."""
        entries = []
        for batch in reader:
            for value in batch.records:
                offset, _, data = value.partition(b":")
                entries.append((int(offset), data))
        self.committed = entries

    def handle_leader_change(self, leader) -> None:
        self.leaders.append(leader)

    def begin_shutdown(self) -> None:
        pass


class Node:
    def __init__(self, node_id: int, voters: set[int], time: MockTime, seed: int) -> None:
        self.node_id = node_id
        self.voters = voters
        self.time = time
        self.log = MockLog()
        self.store = MemoryQuorumStateStore()
        self.checked_hw = 0
        self.random = random.Random(seed * 1000 + node_id)
        self.start()

    def start(self) -> None:
        self.listener = RecordingListener(self.node_id)
        self.client = KafkaRaftClient(self.node_id, self.voters, self.log, self.store, self.time, self.random,
                                      CONFIG, CLUSTER_ID, [self.listener])
        self.client.initialize()
        self.next_poll_ms = self.time.milliseconds()
        self.checked_told = 0

    def restart(self) -> None:
        """A crash: everything in memory is gone; the log (flushed) and quorum-state stay."""
        self.log.hw = 0  # the high watermark is not durable
        self.checked_hw = 0
        self.start()


class Simulation:
    node_class = Node  # tests/controller/controller_simulation.py runs a QuorumController on each

    def __init__(self, seed: int, voters: int = 3, observers: int = 1, drop: float = 0.05) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.time = MockTime()
        voter_ids = set(range(1, voters + 1))
        self.nodes = {i: self.node_class(i, voter_ids, self.time, seed)
                      for i in range(1, voters + observers + 1)}
        self.voter_ids = voter_ids
        self.drop = drop
        self.network: list[tuple[int, int, object]] = []
        self.sequence = 0
        self.isolated: set[int] = set()
        self.isolated_epochs: dict[int, int] = {}  # node -> its epoch when it was cut off
        self.leaders_by_epoch: dict[int, int] = {}
        self.committed: dict[int, bytes] = {}  # offset -> value of every record ever committed
        self.proposed = 0

    # ------------------------------------------------------------------ the network
    def send(self, message) -> None:
        src, dst = message.source_id, message.destination_id
        if src in self.isolated or dst in self.isolated or self.rng.random() < self.drop:
            return
        deliver_at = self.time.milliseconds() + self.rng.randint(1, 20)
        self.sequence += 1
        heapq.heappush(self.network, (deliver_at, self.sequence, message))

    def deliver_due(self) -> None:
        now = self.time.milliseconds()
        while self.network and self.network[0][0] <= now:
            _, _, message = heapq.heappop(self.network)
            node = self.nodes.get(message.destination_id)
            if node is None or message.destination_id in self.isolated or message.source_id in self.isolated:
                continue
            node.client.handle_inbound(message)
            node.next_poll_ms = now

    # ------------------------------------------------------------------ one step
    def step(self) -> None:
        now = self.time.milliseconds()
        for node in self.nodes.values():
            if node.next_poll_ms <= now:
                wait = node.client.poll()
                node.next_poll_ms = now + max(1, wait)
                self.after_poll(node)
                for message in node.client.drain_outbound():
                    self.send(message)
        events = [n.next_poll_ms for n in self.nodes.values()]
        if self.network:
            events.append(self.network[0][0])
        self.time.sleep(max(1, min(events) - now))
        self.deliver_due()
        self.check_invariants()

    def after_poll(self, node: Node) -> None:
        """What else runs on a node once its raft client has polled (nothing here)."""

    def run_for(self, ms: int, propose_every: int = 0, chaos: bool = False) -> None:
        end = self.time.milliseconds() + ms
        next_propose = self.time.milliseconds()
        while self.time.milliseconds() < end:
            if propose_every and self.time.milliseconds() >= next_propose:
                self.propose()
                next_propose = self.time.milliseconds() + propose_every
            if chaos:
                self.maybe_chaos()
            self.step()

    # ------------------------------------------------------------------ what happens to the cluster
    def leader(self) -> Node | None:
        leaders = [n for n in self.nodes.values() if isinstance(n.client.quorum.state, LeaderState)
                   and n.node_id not in self.isolated]
        return max(leaders, key=lambda n: n.client.quorum.epoch) if leaders else None

    def propose(self) -> None:
        leader = self.leader()
        if leader is None:
            return
        self.proposed += 1
        try:
            leader.client.schedule_append(leader.client.quorum.epoch,
                                          [b"v%d-%d" % (self.seed, self.proposed)])
        except NotLeaderError:
            pass
        leader.next_poll_ms = self.time.milliseconds()

    def maybe_chaos(self) -> None:
        roll = self.rng.random()
        if roll < 0.002 and len(self.isolated) < (len(self.voter_ids) - 1) // 2:
            self.isolate(self.rng.choice(sorted(self.nodes)))
        elif roll < 0.004 and self.isolated:
            self.reconnect(self.rng.choice(sorted(self.isolated)))
        elif roll < 0.008:
            self.snapshot(self.nodes[self.rng.choice(sorted(self.nodes))])
        elif roll < 0.009:
            node = self.nodes[self.rng.choice(sorted(self.nodes))]
            # A crash closes its connections: answers on their way to the old process never arrive.
            self.network = [m for m in self.network if m[2].destination_id != node.node_id]
            heapq.heapify(self.network)
            node.restart()

    def snapshot(self, node: Node) -> None:
        """The node snapshots what its listener has been told (KIP-630): the log before it can go."""
        position = node.client._listeners[0].next_offset
        batch = next((b for b in node.log.batches if b[0] <= position - 1 <= b[1]), None)
        if batch is None or position <= node.log.start_offset():
            return
        records = [b"%d:%s" % (offset, value) for offset, value in node.listener.committed]
        node.client.schedule_snapshot(OffsetAndEpoch(position, batch[2]), records)
        node.next_poll_ms = self.time.milliseconds()

    def isolate(self, node_id: int) -> None:
        self.isolated.add(node_id)
        self.isolated_epochs.setdefault(node_id, self.nodes[node_id].client.quorum.epoch)

    def reconnect(self, node_id: int) -> None:
        self.isolated.discard(node_id)
        self.isolated_epochs.pop(node_id, None)

    def heal(self) -> None:
        self.isolated.clear()
        self.isolated_epochs.clear()
        self.drop = 0.0

    # ------------------------------------------------------------------ the invariants
    def fail(self, message: str) -> None:
        raise AssertionError(f"seed {self.seed}: {message} (replay: RAFT_SIM_SEED={self.seed})")

    def check_invariants(self) -> None:
        for node in self.nodes.values():
            state = node.client.quorum.state
            cut_off_in = self.isolated_epochs.get(node.node_id)
            if cut_off_in is not None and state.epoch > cut_off_in:
                # A pre-vote (KIP-996) needs a majority: alone, a node can never move the epoch.
                self.fail(f"node {node.node_id} moved from epoch {cut_off_in} to {state.epoch} while cut off")
            if isinstance(state, LeaderState):
                known = self.leaders_by_epoch.setdefault(state.epoch, node.node_id)
                if known != node.node_id:
                    self.fail(f"two leaders in epoch {state.epoch}: {known} and {node.node_id}")
            # Everything below this node's HW must be what was ever committed there. Entries below the
            # HW can never change (MockLog refuses to truncate them), so each offset is checked once.
            hw = node.log.high_watermark()
            for offset in range(max(node.checked_hw, node.log.start_offset()), hw):
                value = node.log.values[offset]
                seen = self.committed.setdefault(offset, value)
                if seen != value:
                    self.fail(f"node {node.node_id} has {value!r} at committed offset {offset}, "
                              f"another node committed {seen!r}")
            node.checked_hw = max(node.checked_hw, hw)
            told = node.listener.committed
            if len(told) < node.checked_told:  # a snapshot replaced what the listener was told
                node.checked_told = 0
            for offset, value in told[node.checked_told:]:
                if self.committed.get(offset) != value:
                    self.fail(f"node {node.node_id}'s listener saw {value!r} at {offset}, committed is "
                              f"{self.committed.get(offset)!r}")
            node.checked_told = len(told)

    def check_progress(self) -> None:
        """With the network healed, a leader is elected and a new record commits on every node."""
        self.heal()
        self.run_for(3000)
        leader = self.leader()
        if leader is None:
            self.fail("no leader 3 s after the network healed")
        before = self.proposed
        self.propose()
        self.run_for(2000)
        value = b"v%d-%d" % (self.seed, before + 1)
        for node in self.nodes.values():
            if value not in [v for _, v in node.listener.committed]:
                self.fail(f"node {node.node_id} never committed {value!r} after healing")
