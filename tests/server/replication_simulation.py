"""A seeded, deterministic simulation of one partition's replication over three brokers.

What it mirrors: Kafka's own ReplicaManagerTest and PartitionTest (a leader, its followers' fetches,
the HW and the ISR, one scripted failover at a time) run the way KRaft's RaftEventSimulationTest runs
a quorum: thousands of random schedules, each replayable from its seed, with the invariants checked
after every step (tests/raft/simulation.py does the same for our Raft core). Seed 004 (replication:
"the leader waits until all the followers are done replicating before sending back the Produce
Response", the watermark "is used to decide when to send the Produce Response", "the followers pull
from the leader") is the passage it checks: followers pull, the HW is what the ISR has, and acks=all
is answered only below it.

The brokers are real parts in a simulated world (tests/server/simulated_broker.py: a Partition over a
UnifiedLog, ReplicaFetcherThreads and DelayedProduce; the network, the metadata as a broker applies
it, crashes and restarts), and the controller is simulated (tests/server/simulated_controller.py:
fencing, elections, AlterPartition with Kafka's checks, the metadata log); each module says what in it
is real. This one is the schedule of steps and the invariants (ReplicationSimulation):
  * the clock: one MockTime, moved each step.
  * requests between brokers: a request may take a while: before the leader answers, or while the
    answer travels, other things happen (metadata reaches a broker, a produce lands, a produce that
    passed the leader check appends).
  * producers: acks=1 and acks=all, to whichever broker believes it leads and can be reached.
  * faults: links cut and healed (among them a leader cut from the brokers and the controller but not
    from its producers), crashes and restarts, controlled shutdowns, preferred elections, a broker's
    metadata delay re-rolled.
Everything is drawn from one random.Random(seed): no threads, no sleeps, no sockets.

The invariants, after every step:
  (1) The committed prefix is on the ISR. Every member of the controller's ISR that is up and has
      applied the controller's latest partition state holds, batch for batch (base offset, last
      offset, CRC, leader epoch), every batch of the current leader's log that ends below that
      leader's high watermark. Which ISR and which HW make this an invariant of Kafka's design:
        * the ISR is the controller's, as of its latest state: the replicas an election chooses
          from. Not a leader's view of it, which may count a proposal not yet accepted (its maximal
          ISR, a superset) or, with its metadata late, be older than the controller's.
        * the HW is that of the broker the controller names leader, as its own log has it, whether
          it has applied its leadership yet or still holds the HW its previous leader sent it as a
          follower (a follower's HW never passes its leader's).
        * a member counts once it has applied the latest state: a broker that restarted keeps its
          ISR seat until the controller fences it, but applies nothing until it registers again,
          which the controller allows only once the old incarnation is fenced, out of the ISR. In
          Kafka such a broker may have lost appends it never flushed; here a crash is kill -9, whose
          writes the page cache keeps, so this leaves out only brokers still starting up.
      Why it holds: a leader moves its HW only to the smallest log end offset that its maximal ISR
      reported in fetches its own log agreed with (LastFetchedEpoch); the controller's ISR grows only
      by a leader's proposal, which that leader counted from the moment it made it, and otherwise
      only shrinks (fencing, controlled shutdown); and a follower truncates only to where its last
      epoch ends in its current leader's log, never below what that leader has committed.
  (2) Nothing acknowledged is lost. Every record ever answered without error at acks=all is, at its
      offset and with its CRC, in the log of each broker the controller elects (checked at the
      election, if that broker is up), and in the current leader's log once it has applied its
      leadership (checked after every step).
A failure raises SimulationFailure with the seed, the step and the last events;
REPLICATION_SIM_SEED=<seed> replays that run alone (tests/server/test_replication_simulation.py).
"""

from __future__ import annotations

import heapq
import random
from collections import deque

from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import NO_LEADER
from kafka.server.remote_leader_end_point import LeaderUnreachableError
from kafka.utils.time import MockTime
from tests.server.simulated_broker import (
    BROKER_IDS,
    CLIENT,
    CONTROLLER,
    METADATA_DELAY_MS,
    Network,
    SimulatedBroker,
)
from tests.server.simulated_controller import SimulatedController

STEP_MS = (10, 100)  # how far the clock moves each step
MESSAGE_DELAY_MS = (5, 120)  # one way, for AlterPartition and its answer
TRACE_LENGTH = 60  # events kept for a failure's message


class SimulationFailure(AssertionError):
    """An invariant broke: the message names the seed, the step and the last events."""



class ReplicationSimulation:
    def __init__(self, seed: int, directory: str, faults: bool = True) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.time = MockTime()
        self.faults = faults
        self.step_number = 0
        self.events: deque[str] = deque(maxlen=TRACE_LENGTH)
        self.network = Network()
        self.messages: list[tuple[int, int, object]] = []  # (deliver at, sequence, action)
        self.sequence = 0
        self.interleaving = False
        self.brokers: dict[int, SimulatedBroker] = {}
        self.controller = SimulatedController(self)
        self.brokers = {b: SimulatedBroker(self, b, directory) for b in BROKER_IDS}
        for broker in self.brokers.values():  # the cluster as it starts: registered, metadata applied
            broker.broker_epoch = self.controller.registrations[broker.broker_id].broker_epoch
            broker.applied = 0
            broker.apply_partition(self.controller.state)
        self.produced = 0
        # base offset -> (CRC, what) of every acks=all record acked
        self.acknowledged: dict[int, tuple[int, str]] = {}
        self.acks_all_refused = 0
        self.crashes = 0

    # ------------------------------------------------------------------ running
    def run(self, steps: int) -> None:
        for _ in range(steps):
            self.step()

    def step(self) -> None:
        """The clock moves; the network delivers what is due; the controller hears heartbeats and fences;
        brokers apply the metadata that has reached them, append what passed the leader check, expire
        ISR members and produces; then perhaps a fault, perhaps a produce, a round of fetches on most
        brokers, and the checks."""
        self.step_number += 1
        self.time.advance(self.rng.randint(*STEP_MS))
        self.deliver_messages()
        self.controller.tick()
        for broker in self.live_brokers():
            if self.rng.random() < 0.8:  # the metadata publisher runs on its own thread: sometimes not yet
                broker.maybe_apply_metadata()
        for broker in self.live_brokers():
            broker.run_pending_appends()
            broker.run_scheduled_tasks()
        if self.faults:
            self.maybe_fault()
        if self.rng.random() < 0.6:
            self.produce()
        brokers = self.live_brokers()
        self.rng.shuffle(brokers)
        for broker in brokers:
            if broker.alive and self.rng.random() < 0.7:
                broker.replicate()
        self.check_invariants()

    def live_brokers(self) -> list[SimulatedBroker]:
        return [b for b in self.brokers.values() if b.alive]

    def after(self, delay_ms: int, action) -> None:
        """Something the network delivers later (AlterPartition and its answer)."""
        self.sequence += 1
        heapq.heappush(self.messages, (self.time.milliseconds() + delay_ms, self.sequence, action))

    def message_delay(self) -> int:
        return self.rng.randint(*MESSAGE_DELAY_MS)

    def deliver_messages(self) -> None:
        now = self.time.milliseconds()
        while self.messages and self.messages[0][0] <= now:
            _, _, action = heapq.heappop(self.messages)
            action()

    def trace(self, event: str) -> None:
        self.events.append(f"step {self.step_number} @{self.time.milliseconds() % 1_000_000}ms: {event}")

    # ------------------------------------------------------------------ requests between brokers
    def request(self, source: SimulatedBroker, destination_id: int, handle):
        """One request and its answer. The answer is lost if a link is cut, or either side restarted,
        before it arrives; meanwhile, now and then, something else happens first."""
        destination = self.brokers[destination_id]
        sent = (source.incarnation, destination.incarnation)
        if not self.reachable(source, destination):
            raise LeaderUnreachableError(f"broker {destination_id} cannot be reached from broker "
                                         f"{source.broker_id}")
        self.maybe_interleave()
        if not self.reachable(source, destination) or sent != (source.incarnation, destination.incarnation):
            raise LeaderUnreachableError(f"the request to broker {destination_id} was lost")
        answer = handle(destination)
        self.maybe_interleave()
        if not self.reachable(source, destination) or sent != (source.incarnation, destination.incarnation):
            raise LeaderUnreachableError(f"the answer from broker {destination_id} was lost")
        return answer

    def reachable(self, source: SimulatedBroker, destination: SimulatedBroker) -> bool:
        return source.alive and destination.alive and self.network.connected(source.broker_id,
                                                                             destination.broker_id)

    def maybe_interleave(self) -> None:
        """What another thread does while a request is out: the metadata publisher applies what is
        due, a request handler thread appends a produce it had already checked, or a new one arrives."""
        if self.interleaving or self.rng.random() >= 0.3:
            return
        self.interleaving = True
        try:
            roll = self.rng.random()
            broker = self.rng.choice(self.live_brokers())
            if roll < 0.5:
                broker.maybe_apply_metadata()
            elif roll < 0.75:
                broker.run_pending_appends()
            else:
                self.produce()
        finally:
            self.interleaving = False

    # ------------------------------------------------------------------ producers
    def produce(self) -> None:
        """A producer sends to a broker that believes it leads (its metadata may be as late as theirs)."""
        believers = [b for b in self.live_brokers() if self.network.connected(CLIENT, b.broker_id)
                     and b.partition is not None and b.partition.is_leader]
        if not believers:
            return
        broker = self.rng.choice(believers)
        acks = -1 if self.rng.random() < 0.7 else 1
        self.produced += 1
        what = f"record {self.produced}"
        records = build_batch([(None, f"s{self.seed}-{self.produced}".encode())] * self.rng.randint(1, 3),
                              timestamp=self.time.milliseconds())
        defer = self.rng.random() < 0.2
        self.trace(f"produce {what} acks={acks} to broker {broker.broker_id}"
                   + (" (passes the leader check, appends later)" if defer else ""))

        def respond(error: Errors, offset: int) -> None:
            self.on_produce_response(broker, acks, what, error, offset)

        broker.handle_produce(records, acks, respond, defer)

    def on_produce_response(self, broker: SimulatedBroker, acks: int, what: str, error: Errors,
                            offset: int) -> None:
        self.trace(f"broker {broker.broker_id} answers {what} acks={acks}: {error.name} at {offset}")
        if acks != -1:
            return
        if error != Errors.NONE:
            self.acks_all_refused += 1
            return
        crc = broker.batches().crc_at(offset)
        if crc is None:
            self.fail(f"broker {broker.broker_id} acknowledged {what} at offset {offset}, which its log does "
                      "not hold")
        self.acknowledged[offset] = (crc, what)

    # ------------------------------------------------------------------ faults
    def maybe_fault(self) -> None:
        roll = self.rng.random()
        nodes = (*BROKER_IDS, CONTROLLER, CLIENT)
        if roll < 0.04:
            a, b = self.rng.sample(nodes, 2)
            if {a, b} != {CLIENT, CONTROLLER}:
                self.network.cut_link(a, b)
                self.trace(f"cut {a} <-> {b}")
        elif roll < 0.07:
            self.isolate_leader()
        elif roll < 0.12 and self.network.cut:
            link = self.rng.choice(sorted(tuple(sorted(link)) for link in self.network.cut))
            self.network.heal_link(frozenset(link))
            self.trace(f"heal {link[0]} <-> {link[1]}")
        elif roll < 0.135:
            self.network.heal()
            self.trace("heal the network")
        elif roll < 0.15:
            self.crash(self.rng.choice(BROKER_IDS))
        elif roll < 0.22:
            down = [b for b in self.brokers.values() if not b.alive]
            if down:
                broker = self.rng.choice(down)
                broker.restart()
                self.trace(f"broker {broker.broker_id} restarts (LEO {broker.log.log_end_offset}, "
                           f"HW {broker.log.high_watermark})")
        elif roll < 0.23:
            self.controlled_shutdown(self.rng.choice(BROKER_IDS))
        elif roll < 0.24:
            self.controller.elect_preferred()
        elif roll < 0.27:
            broker = self.brokers[self.rng.choice(BROKER_IDS)]
            broker.metadata_delay_ms = self.rng.randint(*METADATA_DELAY_MS)

    def isolate_leader(self) -> None:
        """The scenario the cluster failed in: the broker that believes it leads is cut from the other
        brokers and the controller, but not from its producers."""
        leaders = [b for b in self.live_brokers() if b.partition is not None and b.partition.is_leader]
        if not leaders:
            return
        broker_id = self.rng.choice(leaders).broker_id
        for other in (*BROKER_IDS, CONTROLLER):
            if other != broker_id:
                self.network.cut_link(broker_id, other)
        self.trace(f"isolate broker {broker_id} from the brokers and the controller")

    def crash(self, broker_id: int) -> None:
        broker = self.brokers[broker_id]
        if broker.alive:
            self.crashes += 1
            self.trace(f"broker {broker_id} crashes (LEO {broker.log.log_end_offset}, HW "
                       f"{broker.log.high_watermark})")
            broker.crash()

    def controlled_shutdown(self, broker_id: int) -> None:
        broker = self.brokers[broker_id]
        if broker.alive and broker.broker_epoch >= 0 and self.network.connected(broker_id, CONTROLLER) and \
                not self.controller.registrations[broker_id].fenced:
            self.controller.controlled_shutdown(broker_id)
            broker.shut_down()

    # ------------------------------------------------------------------ the invariants
    def check_invariants(self) -> None:
        state = self.controller.state
        leader = self.brokers.get(state.leader)
        if leader is None or not leader.alive:
            return
        self.check_isr_holds_the_committed_prefix(state, leader)
        if leader.has_applied_leadership(state):
            self.check_acknowledged_on(leader, f"leader {leader.broker_id}")

    def check_isr_holds_the_committed_prefix(self, state: PartitionState, leader: SimulatedBroker) -> None:
        """Invariant (1)."""
        high_watermark = leader.log.high_watermark
        theirs = leader.batches()
        committed = theirs.batches[:theirs.count_below(high_watermark)]
        latest = len(self.controller.metadata) - 1
        for broker_id in state.isr:
            member = self.brokers[broker_id]
            if broker_id == state.leader or not member.alive or member.applied != latest:
                continue
            mine = member.batches().batches[:len(committed)]
            if mine != committed:
                at = next((i for i, (a, b) in enumerate(zip(mine, committed, strict=False)) if a != b),
                          len(mine))
                self.fail(f"ISR member {broker_id} differs from leader {state.leader} below its high "
                          f"watermark {high_watermark} (ISR {list(state.isr)}, leader epoch "
                          f"{state.leader_epoch}): batch {at} is {mine[at] if at < len(mine) else 'missing'} "
                          f"there, the leader's is {committed[at]} "
                          "(base offset, last offset, CRC, leader epoch)")

    def check_acknowledged_on(self, broker: SimulatedBroker, who: str) -> None:
        """Invariant (2), on one broker's log."""
        if not broker.alive or not self.acknowledged:
            return
        batches = broker.batches()
        for offset, (crc, what) in self.acknowledged.items():
            found = batches.crc_at(offset)
            if found != crc:
                there = "no batch starts there" if found is None else f"a batch with CRC {found} is there"
                self.fail(f"{what}, acknowledged at acks=all at offset {offset}, is not in the log of {who}: "
                          f"{there} (log end offset {broker.log.log_end_offset})")

    def fail(self, message: str) -> None:
        trace = "\n  ".join(self.events)
        brokers = "\n  ".join(self.describe(b) for b in self.brokers.values())
        raise SimulationFailure(
            f"seed {self.seed}, step {self.step_number}: {message}\nthe last events:\n  {trace}\n"
            f"the brokers now:\n  {brokers}\n"
            f"replay: REPLICATION_SIM_SEED={self.seed} .venv/bin/pytest -q "
            "tests/server/test_replication_simulation.py")

    def describe(self, broker: SimulatedBroker) -> str:
        if not broker.alive:
            return f"broker {broker.broker_id}: down"
        p, log = broker.partition, broker.log
        role = "no role yet" if p is None else "leader" if p.is_leader else f"follower of {p.leader_id}"
        if p is not None:
            role += f" in epoch {p.leader_epoch}, ISR {sorted(p.isr)}" + \
                (f" (proposed {sorted(p.pending_isr)})" if p.pending_isr is not None else "")
        epochs = [(e.epoch, e.start_offset) for e in log.leader_epoch_cache.entries()]
        return (f"broker {broker.broker_id}: {role}; LEO {log.log_end_offset}, HW {log.high_watermark}, "
                f"epochs {epochs}; metadata {broker.applied + 1} of {len(self.controller.metadata)} applied")

    # ------------------------------------------------------------------ the end
    def check_progress(self, steps: int = 300) -> None:
        """Healed, with every broker up and no more faults: all three replicas rejoin the ISR, their logs
        end equal, and a new acks=all record is acknowledged."""
        self.network.heal()
        self.faults = False
        for broker in self.brokers.values():
            if not broker.alive:
                broker.restart()
        self.trace("the end: healed, every broker up")
        before = len(self.acknowledged)
        for _ in range(steps):
            self.step()
            if self.settled() and len(self.acknowledged) > before:
                return
        state = self.controller.state
        self.fail(f"no progress {steps} steps after healing: leader {state.leader} ISR {list(state.isr)}, "
                  f"log ends {[b.log.log_end_offset for b in self.brokers.values()]}, "
                  f"{len(self.acknowledged) - before} records acknowledged since")

    def settled(self) -> bool:
        state = self.controller.state
        if state.leader == NO_LEADER or set(state.isr) != set(BROKER_IDS):
            return False
        ends = {b.log.log_end_offset for b in self.brokers.values()}
        return len(ends) == 1 and all(b.batches().batches == self.brokers[state.leader].batches().batches
                                      for b in self.brokers.values())
