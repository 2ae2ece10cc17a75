"""A seeded, deterministic simulation of one partition's replication over three brokers.

What it mirrors: Kafka's own ReplicaManagerTest and PartitionTest (a leader, its followers' fetches,
the HW and the ISR, one scripted failover at a time) run the way KRaft's RaftEventSimulationTest runs
a quorum: thousands of random schedules, each replayable from its seed, with the invariants checked
after every step (tests/raft/simulation.py does the same for our Raft core). Seed 004 (replication:
"the leader waits until all the followers are done replicating before sending back the Produce
Response", the watermark "is used to decide when to send the Produce Response", "the followers pull
from the leader") is the passage it checks: followers pull, the HW is what the ISR has, and acks=all
is answered only below it.

What is real: on each broker a Partition over a UnifiedLog (files in a directory of its own, small
segments; a restart reopens the directory, which runs recovery), ReplicaFetcherThreads (one per
leader, as the ReplicaFetcherManager keeps them; driven step by step with maybe_truncate and
maybe_fetch, never started), DelayedProduce deciding when acks=all is answered.

What is simulated (SimulatedBroker, SimulatedController, Network):
  * the network: links cut and healed; a fetcher whose leader it cannot reach gets
    LeaderUnreachableError from its endpoint (SimulatedLeaderEndPoint) and backs off. A request may
    take a while: before the leader answers, or while the answer travels, other things happen
    (metadata reaches a broker, a produce lands, a produce that passed the leader check appends).
  * the controller: the partition's leader, leader epoch, ISR and partition epoch. It fences a
    broker it has not heard from for broker.session.timeout.ms (dropping it from the ISR and, if it
    led, electing the first usable ISR member), unfences one that is back and has caught up with the
    metadata, lets a restarted broker register again only once its old incarnation is fenced, moves
    leadership for a preferred election or a controlled shutdown, and answers AlterPartition with
    Kafka's checks (ReplicationControlManager.alter_partition: stale broker epoch, not the leader,
    stale leader epoch, stale partition epoch, an ineligible replica).
  * the metadata log: each change reaches each broker late (a delay of its own, re-rolled now and
    then) and never while the broker is cut from the controller; the broker applies it as the
    BrokerMetadataPublisher does, with Partition.make_leader / make_follower and the fetchers' add and
    remove as ReplicaManager.make_leader / make_follower do.
  * producers: acks=1 and acks=all, to whichever broker believes it leads and can be reached.
  * crashes, as kill -9 (everything in memory is gone; what was written to the log directory stays)
    and restarts, where the HW comes back from the last replication-offset checkpoint.
  * the clock: one MockTime; ISR expiration (maybe_shrink_isr) every replica.lag.time.max.ms / 2.
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

import bisect
import heapq
import os
import random
from collections import deque
from dataclasses import dataclass
from types import SimpleNamespace

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch, iter_batches
from kafka.server.abstract_fetcher_thread import FETCHING, TRUNCATING
from kafka.server.delayed_produce import DelayedProduce, PartitionResponse, ProducePartitionStatus
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import NO_LEADER, NotEnoughReplicasError, Partition, PartitionError
from kafka.server.remote_leader_end_point import LeaderUnreachableError
from kafka.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)
BROKER_IDS = (1, 2, 3)
CONTROLLER = 0  # the controller's address on the simulated network
CLIENT = -1  # the producers'
REPLICAS = BROKER_IDS  # replication factor 3; replicas[0] is the preferred leader

# 8 KiB segments: a log of a few hundred batches spans several, so truncation and recovery cross them.
LOG_CONFIG = LogConfig(segment_bytes=8192, min_insync_replicas=2)
REPLICA_LAG_TIME_MAX_MS = 1000
BROKER_SESSION_TIMEOUT_MS = 1500
FETCH_BACKOFF_MS = 100  # replica.fetch.backoff.ms
FETCH_MAX_BYTES = 600  # replica.fetch.max.bytes: a few batches per fetch, so followers catch up in steps
PRODUCE_TIMEOUT_MS = 3000  # the produce request's timeout: a DelayedProduce expires after it
ALTER_PARTITION_TIMEOUT_MS = 1000  # an AlterPartition lost on the way is answered REQUEST_TIMED_OUT
HW_CHECKPOINT_INTERVAL_MS = 2000  # replica.high.watermark.checkpoint.interval.ms
STEP_MS = (10, 100)  # how far the clock moves each step
MESSAGE_DELAY_MS = (5, 120)  # one way, for AlterPartition and its answer
METADATA_DELAY_MS = (0, 1200)  # how late the metadata reaches a broker
TRACE_LENGTH = 60  # events kept for a failure's message


class SimulationFailure(AssertionError):
    """An invariant broke: the message names the seed, the step and the last events."""


# ---------------------------------------------------------------------------------------------- the logs
class SimulatedLog(UnifiedLog):
    """A real UnifiedLog that counts its truncations, so the checks can keep a summary of its batches
    and read only what was appended since they last looked."""

    truncations = 0

    def truncate_to(self, offset: int) -> None:
        if offset < self.log_end_offset:
            self.truncations += 1
        super().truncate_to(offset)

    def truncate_fully_and_start_at(self, offset: int) -> None:
        self.truncations += 1
        super().truncate_fully_and_start_at(offset)


class LogSummary:
    """One log's batches as (base offset, last offset, CRC, leader epoch), kept up to date cheaply."""

    def __init__(self) -> None:
        self.log: SimulatedLog | None = None
        self.truncations = -1
        self.batches: list[tuple[int, int, int, int]] = []
        self.base_offsets: list[int] = []
        self.last_offsets: list[int] = []
        self.end = 0

    def refresh(self, log: SimulatedLog) -> LogSummary:
        if log is not self.log or log.truncations != self.truncations:
            self.log, self.truncations = log, log.truncations
            self.batches, self.base_offsets, self.last_offsets = [], [], []
            self.end = log.log_start_offset
        if log.log_end_offset > self.end:
            for batch in iter_batches(bytes(log.read(self.end, 1 << 30).records)):
                self.batches.append((batch.base_offset, batch.last_offset, batch.crc, batch.partition_leader_epoch))
                self.base_offsets.append(batch.base_offset)
                self.last_offsets.append(batch.last_offset)
            self.end = log.log_end_offset
        return self

    def count_below(self, offset: int) -> int:
        """How many batches end below `offset`."""
        return bisect.bisect_left(self.last_offsets, offset)

    def crc_at(self, base_offset: int) -> int | None:
        i = bisect.bisect_left(self.base_offsets, base_offset)
        return self.batches[i][2] if i < len(self.batches) and self.base_offsets[i] == base_offset else None


# ---------------------------------------------------------------------------------------------- the network
class Network:
    """Which links are cut. Every node can reach itself; a link is cut both ways."""

    def __init__(self) -> None:
        self.cut: set[frozenset[int]] = set()

    def connected(self, a: int, b: int) -> bool:
        return a == b or frozenset((a, b)) not in self.cut

    def cut_link(self, a: int, b: int) -> None:
        self.cut.add(frozenset((a, b)))

    def heal_link(self, link: frozenset[int]) -> None:
        self.cut.discard(link)

    def heal(self) -> None:
        self.cut.clear()


class FetchAnswer(SimpleNamespace):
    """One partition of a Fetch response as the fetcher reads it (attributes, and get for tagged fields)."""

    def get(self, name: str, default=None):
        return getattr(self, name, default)


class SimulatedLeaderEndPoint:
    """RemoteLeaderEndPoint's questions, asked of the leader broker in this process over the simulated
    network: a cut link, or a leader that is down, raises LeaderUnreachableError."""

    def __init__(self, sim: ReplicationSimulation, follower: SimulatedBroker, leader_id: int) -> None:
        self.sim = sim
        self.follower = follower
        self.leader_id = leader_id

    def describe(self) -> str:
        return f"broker {self.leader_id} (simulated)"

    def is_truncation_on_fetch_supported(self) -> bool:
        return True

    def fetch(self, partitions):
        return self.sim.request(self.follower, self.leader_id,
                                lambda leader: leader.handle_fetch(self.follower.broker_id, partitions))

    def fetch_epoch_end_offsets(self, partitions):
        return self.sim.request(self.follower, self.leader_id, lambda leader: {
            tp: leader.handle_offset_for_leader_epoch(current, epoch) for tp, (current, epoch) in partitions.items()})

    def fetch_latest_offset(self, tp, current_leader_epoch):
        return self.sim.request(self.follower, self.leader_id,
                                lambda leader: leader.handle_list_offsets(current_leader_epoch, latest=True))

    def fetch_earliest_offset(self, tp, current_leader_epoch):
        return self.sim.request(self.follower, self.leader_id,
                                lambda leader: leader.handle_list_offsets(current_leader_epoch, latest=False))

    def close(self) -> None:
        pass

    def release(self) -> None:
        pass


class SimulatedAlterPartitionManager:
    """AlterPartitionManager.submit over the simulated network: the request reaches the controller a
    little later unless the link is cut, and the answer comes back the same way. A request or answer
    lost on the way is answered REQUEST_TIMED_OUT after ALTER_PARTITION_TIMEOUT_MS (the channel
    manager's deadline, 30 s in the broker); an answer to a broker that has restarted since goes
    nowhere."""

    def __init__(self, sim: ReplicationSimulation, broker: SimulatedBroker) -> None:
        self.sim = sim
        self.broker = broker

    def submit(self, tp, leader_epoch: int, new_isr: list[int], partition_epoch: int, callback) -> None:
        sim, broker = self.sim, self.broker
        incarnation, broker_epoch = broker.incarnation, broker.broker_epoch
        sim.trace(f"broker {broker.broker_id} proposes ISR {list(new_isr)} "
                  f"(leader epoch {leader_epoch}, partition epoch {partition_epoch})")

        def answer(result, error: Errors) -> None:
            if broker.alive and broker.incarnation == incarnation:
                sim.trace(f"broker {broker.broker_id} hears AlterPartition {error.name}")
                callback(result, error)

        def time_out() -> None:
            sim.after(ALTER_PARTITION_TIMEOUT_MS, lambda: answer(None, Errors.REQUEST_TIMED_OUT))

        def deliver_answer(result, error: Errors) -> None:
            if not sim.network.connected(broker.broker_id, CONTROLLER):
                time_out()
            else:
                answer(result, error)

        def deliver_request() -> None:
            if not sim.network.connected(broker.broker_id, CONTROLLER):
                time_out()
                return
            result, error = sim.controller.alter_partition(broker.broker_id, broker_epoch, leader_epoch,
                                                           tuple(new_isr), partition_epoch)
            sim.after(sim.message_delay(), lambda: deliver_answer(result, error))

        sim.after(sim.message_delay(), deliver_request)


# ---------------------------------------------------------------------------------------------- a broker
class SimulatedBroker:
    """One broker's part in replicating the partition: what its ReplicaManager does for it. It holds
    the log, the Partition once the metadata gives it a role, the fetchers (one per leader), the
    acks=all produces waiting in purgatory and the appends still on their way to the log. It is the
    fetchers' replica_manager, the Partition's listener and the DelayedProduces' replica_manager."""

    def __init__(self, sim: ReplicationSimulation, broker_id: int, directory: str) -> None:
        self.sim = sim
        self.time = sim.time
        self.broker_id = broker_id
        self.directory = os.path.join(directory, f"broker-{broker_id}", f"{TP.topic}-{TP.partition}")
        self.incarnation = 0
        self.hw_checkpoint = 0  # replication-offset-checkpoint, as last written
        self.next_hw_checkpoint_ms = 0
        self.metadata_delay_ms = sim.rng.randint(*METADATA_DELAY_MS)
        self.alive = False
        self.clean_shutdown = True
        self.log: SimulatedLog | None = None
        self.summary = LogSummary()
        self.start()

    # ------------------------------------------------------------------ life and death
    def start(self) -> None:
        """LogManager.startup for this one log (recovery unless the last shutdown was clean); nothing
        else survives: no Partition, no fetchers, no registration until the controller accepts one."""
        self.incarnation += 1
        self.alive = True
        self.log = SimulatedLog(self.directory, TP.topic, TP.partition, LOG_CONFIG, self.time,
                                had_clean_shutdown=self.clean_shutdown, high_watermark=self.hw_checkpoint)
        self.partition: Partition | None = None
        self.fetchers: dict[int, ReplicaFetcherThread] = {}  # leader id -> fetcher
        self.delayed_produces: list[tuple[int, DelayedProduce]] = []  # (deadline, operation)
        self.pending_appends: list = []  # produces past the leader check, not yet appended
        self.broker_epoch = -1  # not registered (this incarnation)
        self.registered_at = 0  # the newest metadata entry when the controller accepted our registration
        self.applied = -1  # the index of the metadata log's entry applied last
        now = self.time.milliseconds()
        self.next_isr_expiration_ms = now + REPLICA_LAG_TIME_MAX_MS // 2
        self.next_hw_checkpoint_ms = now + HW_CHECKPOINT_INTERVAL_MS

    def crash(self) -> None:
        """kill -9: the files stay as written, everything in memory goes (waiting produces unanswered)."""
        self.clean_shutdown = False
        self.log.close_handlers()
        self.stop()

    def shut_down(self) -> None:
        """A clean shutdown: the HW checkpointed, the log flushed and closed (no recovery on restart)."""
        self.clean_shutdown = True
        self.hw_checkpoint = self.log.high_watermark
        self.log.flush()
        self.log.close()
        self.stop()

    def stop(self) -> None:
        self.alive = False
        self.partition = None
        self.fetchers = {}
        self.delayed_produces = []
        self.pending_appends = []

    def restart(self) -> None:
        self.start()

    # ------------------------------------------------------------------ what the fetchers and Partition ask of it
    def get_partition(self, tp: TopicPartition) -> Partition | None:
        return self.partition if self.alive and tp == TP else None

    def record_follower_append(self, tp: TopicPartition, size: int) -> None:
        pass

    def record_expired_produce(self, partitions) -> None:
        pass

    def on_isr_change(self, tp: TopicPartition, shrink: bool) -> None:
        self.sim.trace(f"broker {self.broker_id} ISR now {sorted(self.partition.isr)}")

    def on_high_watermark_moved(self, tp: TopicPartition) -> None:
        self.try_complete_delayed_produces()

    def on_failed_isr_update(self, tp: TopicPartition) -> None:
        pass

    # ------------------------------------------------------------------ metadata (BrokerMetadataPublisher)
    def maybe_apply_metadata(self) -> None:
        """Apply the newest metadata that has reached this broker: registered, connected to the
        controller, and the entry at least metadata_delay_ms old. After a restart nothing is applied
        before the broker has caught up with its own registration (KRaft's initial catch-up: the
        publishers start from an image at least that new), so it never acts on a state older than
        the one its previous incarnation had."""
        if not self.alive or self.broker_epoch < 0 or not self.sim.network.connected(self.broker_id, CONTROLLER):
            return
        due = self.sim.controller.latest_due(self.time.milliseconds() - self.metadata_delay_ms)
        if due > self.applied and due >= self.registered_at:
            self.applied = due
            self.apply_partition(self.sim.controller.metadata[due][1])

    def apply_partition(self, state: PartitionState) -> None:
        """BrokerMetadataPublisher._apply_partition: nothing if nothing changed, else leader or follower."""
        partition = self.partition
        if partition is not None and (partition.leader_id, partition.leader_epoch, partition.partition_epoch) == \
                (state.leader, state.leader_epoch, state.partition_epoch):
            return
        if partition is None:
            partition = self.partition = Partition(TP, self.log, self.broker_id, self.time, REPLICA_LAG_TIME_MAX_MS,
                                                   SimulatedAlterPartitionManager(self.sim, self), listener=self)
        self.sim.trace(f"broker {self.broker_id} applies leader {state.leader} epoch {state.leader_epoch} "
                       f"ISR {list(state.isr)} partition epoch {state.partition_epoch} (LEO {self.log.log_end_offset})")
        if state.leader == self.broker_id:
            self.make_leader(state)
        else:
            self.make_follower(state)

    def make_leader(self, state: PartitionState) -> None:
        """ReplicaManager.make_leader: stop fetching, lead; waiting produces see the new state."""
        self.remove_fetcher_for_partition()
        self.partition.make_leader(state)
        self.try_complete_delayed_produces()

    def make_follower(self, state: PartitionState) -> None:
        """ReplicaManager.make_follower: on a new leader or epoch, fetch from it starting at our log end."""
        if self.partition.make_follower(state):
            self.remove_fetcher_for_partition()
            if state.leader != NO_LEADER:
                self.add_fetcher_for_partition(state.leader, state.leader_epoch, self.partition.log_end_offset)
            self.fetchers = {leader: f for leader, f in self.fetchers.items() if f.partition_count() > 0}
        self.try_complete_delayed_produces()

    def add_fetcher_for_partition(self, leader_id: int, leader_epoch: int, offset: int) -> None:
        """ReplicaFetcherManager.add_fetcher_for_partitions: the fetcher for that leader, made if need be."""
        fetcher = self.fetchers.get(leader_id)
        if fetcher is None:
            endpoint = SimulatedLeaderEndPoint(self.sim, self, leader_id)
            fetcher = ReplicaFetcherThread(f"ReplicaFetcherThread-0-{leader_id}", endpoint, self, FETCH_BACKOFF_MS,
                                           self.time)
            self.fetchers[leader_id] = fetcher
        fetcher.add_partitions({TP: (offset, leader_epoch)})

    def remove_fetcher_for_partition(self) -> None:
        for fetcher in self.fetchers.values():
            fetcher.remove_partitions([TP])

    # ------------------------------------------------------------------ the background work
    def replicate(self) -> None:
        """One round of each fetcher's loop (AbstractFetcherThread.do_work), for the partitions that
        are ready: a fetcher with nothing ready would wait, and the simulation never waits."""
        for fetcher in list(self.fetchers.values()):
            if self.ready(fetcher, TRUNCATING):
                fetcher.maybe_truncate()
            if self.alive and self.ready(fetcher, FETCHING):
                fetcher.maybe_fetch()

    def ready(self, fetcher: ReplicaFetcherThread, state: str) -> bool:
        now = self.time.milliseconds()
        return any(s.is_ready(now, state) for s in fetcher.partition_states.values())

    def run_scheduled_tasks(self) -> None:
        """isr-expiration every replica.lag.time.max.ms / 2, the HW checkpoint, and produce timeouts."""
        now = self.time.milliseconds()
        if now >= self.next_isr_expiration_ms:
            self.next_isr_expiration_ms = now + REPLICA_LAG_TIME_MAX_MS // 2
            if self.partition is not None:
                self.partition.maybe_shrink_isr()
        if now >= self.next_hw_checkpoint_ms:
            self.next_hw_checkpoint_ms = now + HW_CHECKPOINT_INTERVAL_MS
            self.hw_checkpoint = self.log.high_watermark
        for deadline, operation in list(self.delayed_produces):
            if deadline <= now and not operation.is_completed:
                operation.run()  # expired: REQUEST_TIMED_OUT
        self.delayed_produces = [(d, op) for d, op in self.delayed_produces if not op.is_completed]

    # ------------------------------------------------------------------ produce (ReplicaManager.append_records)
    def handle_produce(self, records: bytes, acks: int, respond, defer: bool) -> None:
        """The leader check of getPartitionOrError, then the append: at once, or (defer) later, as a
        request handler thread that looked before the metadata publisher made us a follower."""
        if self.partition is None or not self.partition.is_leader:
            respond(Errors.NOT_LEADER_OR_FOLLOWER, -1)
            return
        if defer:
            self.pending_appends.append((records, acks, respond))
        else:
            self.append_records(records, acks, respond)

    def run_pending_appends(self) -> None:
        pending, self.pending_appends = self.pending_appends, []
        for records, acks, respond in pending:
            self.append_records(records, acks, respond)

    def append_records(self, records: bytes, acks: int, respond) -> None:
        try:
            info, hw_moved = self.partition.append_records_to_leader(records, acks)
        except PartitionError as e:
            respond(e.error, -1)
            return
        except NotEnoughReplicasError:
            respond(Errors.NOT_ENOUGH_REPLICAS, -1)
            return
        if hw_moved:
            self.try_complete_delayed_produces()
        if acks != -1:
            respond(Errors.NONE, info.first_offset)
            return
        status = ProducePartitionStatus(info.last_offset + 1, PartitionResponse(base_offset=info.first_offset))
        operation = DelayedProduce(PRODUCE_TIMEOUT_MS, {TP: status}, self,
                                   lambda responses: respond(responses[TP].error, responses[TP].base_offset))
        if not operation.safe_try_complete():
            self.delayed_produces.append((self.time.milliseconds() + PRODUCE_TIMEOUT_MS, operation))

    def try_complete_delayed_produces(self) -> None:
        """The produce purgatory's check_and_complete for the partition."""
        for _, operation in list(self.delayed_produces):
            if not operation.is_completed:
                operation.safe_try_complete()
        self.delayed_produces = [(d, op) for d, op in self.delayed_produces if not op.is_completed]

    # ------------------------------------------------------------------ a follower's requests, answered as leader
    def handle_fetch(self, replica_id: int, positions) -> dict:
        """ReplicaManager._read_partition for a follower's Fetch, each partition as the fetcher reads it."""
        return {tp: self.read_for_follower(replica_id, p) for tp, p in positions.items()}

    def read_for_follower(self, replica_id: int, p) -> FetchAnswer:
        partition = self.partition
        if partition is None or not partition.is_leader:
            return FetchAnswer(error_code=Errors.NOT_LEADER_OR_FOLLOWER)
        try:
            read, hw_moved = partition.fetch_records(replica_id, p.fetch_offset, p.current_leader_epoch,
                                                     FETCH_MAX_BYTES, True, last_fetched_epoch=p.last_fetched_epoch)
        except PartitionError as e:
            return FetchAnswer(error_code=e.error)
        except OffsetOutOfRangeError:
            return FetchAnswer(error_code=Errors.OFFSET_OUT_OF_RANGE)
        if hw_moved:
            self.try_complete_delayed_produces()
        diverging = read.diverging_epoch
        return FetchAnswer(error_code=Errors.NONE, high_watermark=read.high_watermark,
                           log_start_offset=read.log_start_offset, records=bytes(read.records),
                           diverging_epoch=None if diverging is None else
                           dict(epoch=diverging.epoch, end_offset=diverging.end_offset))

    def handle_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int) -> tuple[Errors, int, int]:
        partition = self.partition
        if partition is None or not partition.is_leader:
            return Errors.NOT_LEADER_OR_FOLLOWER, -1, -1
        try:
            epoch, end_offset = partition.last_offset_for_leader_epoch(current_leader_epoch, leader_epoch)
        except PartitionError as e:
            return e.error, -1, -1
        return Errors.NONE, epoch, end_offset

    def handle_list_offsets(self, current_leader_epoch: int, latest: bool) -> int:
        partition = self.partition
        if partition is None or not partition.is_leader or current_leader_epoch != partition.leader_epoch:
            raise LeaderUnreachableError(f"broker {self.broker_id} refused ListOffsets")
        return self.log.log_end_offset if latest else self.log.log_start_offset

    # ------------------------------------------------------------------ for the checks
    def batches(self) -> LogSummary:
        return self.summary.refresh(self.log)

    def has_applied_leadership(self, state: PartitionState) -> bool:
        p = self.partition
        return self.alive and p is not None and p.is_leader and p.leader_epoch == state.leader_epoch


# ---------------------------------------------------------------------------------------------- the controller
@dataclass
class Registration:
    """A broker as the controller knows it (ClusterControlManager's BrokerRegistration, plus its session)."""

    incarnation: int
    broker_epoch: int
    fenced: bool
    last_heartbeat_ms: int
    in_controlled_shutdown: bool = False


class SimulatedController:
    """The active controller, for this one partition: the decisions of ReplicationControlManager and
    ClusterControlManager, written to a metadata log that the brokers read late."""

    def __init__(self, sim: ReplicationSimulation) -> None:
        self.sim = sim
        now = sim.time.milliseconds()
        self.state = PartitionState(TP.partition, REPLICAS[0], 0, REPLICAS, REPLICAS, 0)
        self.metadata: list[tuple[int, PartitionState]] = [(now, self.state)]  # (published at, state)
        self.registrations = {b: Registration(1, b, False, now) for b in BROKER_IDS}
        self.next_broker_epoch = len(BROKER_IDS) + 1
        self.elections = 0

    def latest_due(self, published_by_ms: int) -> int:
        """The index of the newest metadata entry published by then (-1: none)."""
        return bisect.bisect_right(self.metadata, published_by_ms, key=lambda entry: entry[0]) - 1

    def usable(self, broker_id: int) -> bool:
        r = self.registrations[broker_id]
        return not r.fenced and not r.in_controlled_shutdown

    # ------------------------------------------------------------------ sessions
    def tick(self) -> None:
        """Heartbeats from every broker that can reach us; fence those whose session expired."""
        now = self.sim.time.milliseconds()
        for broker in self.sim.brokers.values():
            if broker.alive and self.sim.network.connected(broker.broker_id, CONTROLLER):
                self.heartbeat(broker, now)
        for broker_id, r in self.registrations.items():
            if not r.fenced and now - r.last_heartbeat_ms > BROKER_SESSION_TIMEOUT_MS:
                self.fence(broker_id, "its session expired")

    def heartbeat(self, broker: SimulatedBroker, now: int) -> None:
        r = self.registrations[broker.broker_id]
        if r.incarnation != broker.incarnation:
            if r.fenced:  # a new incarnation registers once the old one is fenced (else DUPLICATE_BROKER_REGISTRATION)
                self.register(broker, now)
            return
        r.last_heartbeat_ms = now
        if r.fenced and not r.in_controlled_shutdown and broker.applied == len(self.metadata) - 1:
            r.fenced = False
            self.sim.trace(f"controller unfences broker {broker.broker_id}")
            self.handle_broker_available(broker.broker_id)

    def register(self, broker: SimulatedBroker, now: int) -> None:
        """It starts fenced; it is unfenced once it has caught up with the metadata."""
        self.registrations[broker.broker_id] = Registration(broker.incarnation, self.next_broker_epoch, True, now)
        broker.broker_epoch = self.next_broker_epoch
        broker.registered_at = len(self.metadata) - 1  # the registration's place in the metadata log
        self.next_broker_epoch += 1
        self.sim.trace(f"broker {broker.broker_id} registers (broker epoch {broker.broker_epoch})")

    def fence(self, broker_id: int, why: str) -> None:
        self.registrations[broker_id].fenced = True
        self.sim.trace(f"controller fences broker {broker_id}: {why}")
        self.handle_broker_unavailable(broker_id)

    def controlled_shutdown(self, broker_id: int) -> None:
        r = self.registrations[broker_id]
        r.in_controlled_shutdown = r.fenced = True
        self.sim.trace(f"controller: broker {broker_id} shuts down (controlled)")
        self.handle_broker_unavailable(broker_id)

    # ------------------------------------------------------------------ ReplicationControlManager's decisions
    def handle_broker_unavailable(self, broker_id: int) -> None:
        """Drop it from the ISR (keeping a last member) and, if it led, elect the first usable ISR member."""
        s = self.state
        if broker_id not in s.isr and s.leader != broker_id:
            return
        isr = tuple(r for r in s.isr if r != broker_id) or s.isr
        leader = s.leader
        if leader in (broker_id, NO_LEADER):
            leader = next((r for r in s.replicas if r in isr and r != broker_id and self.usable(r)), NO_LEADER)
        self.change(isr=isr, leader=leader)

    def handle_broker_available(self, broker_id: int) -> None:
        """An offline partition whose ISR holds the broker gets it as leader (no unclean election)."""
        if self.state.leader == NO_LEADER and broker_id in self.state.isr:
            self.change(leader=broker_id)

    def elect_preferred(self) -> None:
        """ElectLeaders PREFERRED: replicas[0], if it is in the ISR and usable."""
        preferred = self.state.replicas[0]
        if self.state.leader != preferred and preferred in self.state.isr and self.usable(preferred):
            self.sim.trace("controller: preferred leader election")
            self.change(leader=preferred)

    def alter_partition(self, broker_id: int, broker_epoch: int, leader_epoch: int, new_isr: tuple[int, ...],
                        partition_epoch: int):
        """QuorumController.alter_partition and ReplicationControlManager.alter_partition's checks."""
        s = self.state
        if self.registrations[broker_id].broker_epoch != broker_epoch:
            error = Errors.STALE_BROKER_EPOCH
        elif s.leader != broker_id:
            error = Errors.NOT_LEADER_OR_FOLLOWER
        elif leader_epoch != s.leader_epoch:
            error = Errors.FENCED_LEADER_EPOCH
        elif partition_epoch != s.partition_epoch:
            error = Errors.INVALID_UPDATE_VERSION
        elif any(r not in s.replicas or not self.usable(r) for r in new_isr):
            error = Errors.INELIGIBLE_REPLICA
        else:
            self.change(isr=tuple(sorted(new_isr)))
            s = self.state
            return SimpleNamespace(leader_id=s.leader, leader_epoch=s.leader_epoch, isr=list(s.isr),
                                   partition_epoch=s.partition_epoch), Errors.NONE
        self.sim.trace(f"controller refuses ISR {list(new_isr)} from broker {broker_id}: {error.name}")
        return None, error

    def change(self, isr: tuple[int, ...] | None = None, leader: int | None = None) -> None:
        """A PartitionChangeRecord: the partition epoch moves on; the leader epoch too if the leader changed."""
        s = self.state
        isr = s.isr if isr is None else isr
        leader = s.leader if leader is None else leader
        if isr == s.isr and leader == s.leader:
            return
        leader_epoch = s.leader_epoch + 1 if leader != s.leader else s.leader_epoch
        self.state = PartitionState(s.partition, leader, leader_epoch, s.replicas, isr, s.partition_epoch + 1)
        self.metadata.append((self.sim.time.milliseconds(), self.state))
        self.sim.trace(f"controller: leader {leader} epoch {leader_epoch} ISR {list(isr)} "
                       f"partition epoch {self.state.partition_epoch}")
        if leader != s.leader:
            self.elections += 1
            if leader != NO_LEADER:
                self.sim.check_acknowledged_on(self.sim.brokers[leader], f"broker {leader}, just elected")


# ---------------------------------------------------------------------------------------------- the simulation
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
        self.acknowledged: dict[int, tuple[int, str]] = {}  # base offset -> (CRC, what) of every acks=all record acked
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
            raise LeaderUnreachableError(f"broker {destination_id} cannot be reached from broker {source.broker_id}")
        self.maybe_interleave()
        if not self.reachable(source, destination) or sent != (source.incarnation, destination.incarnation):
            raise LeaderUnreachableError(f"the request to broker {destination_id} was lost")
        answer = handle(destination)
        self.maybe_interleave()
        if not self.reachable(source, destination) or sent != (source.incarnation, destination.incarnation):
            raise LeaderUnreachableError(f"the answer from broker {destination_id} was lost")
        return answer

    def reachable(self, source: SimulatedBroker, destination: SimulatedBroker) -> bool:
        return source.alive and destination.alive and self.network.connected(source.broker_id, destination.broker_id)

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

    def on_produce_response(self, broker: SimulatedBroker, acks: int, what: str, error: Errors, offset: int) -> None:
        self.trace(f"broker {broker.broker_id} answers {what} acks={acks}: {error.name} at {offset}")
        if acks != -1:
            return
        if error != Errors.NONE:
            self.acks_all_refused += 1
            return
        crc = broker.batches().crc_at(offset)
        if crc is None:
            self.fail(f"broker {broker.broker_id} acknowledged {what} at offset {offset}, which its log does not hold")
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
            self.trace(f"broker {broker_id} crashes (LEO {broker.log.log_end_offset}, HW {broker.log.high_watermark})")
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
                at = next((i for i, (a, b) in enumerate(zip(mine, committed, strict=False)) if a != b), len(mine))
                self.fail(f"ISR member {broker_id} differs from leader {state.leader} below its high watermark "
                          f"{high_watermark} (ISR {list(state.isr)}, leader epoch {state.leader_epoch}): batch {at} is "
                          f"{mine[at] if at < len(mine) else 'missing'} there, the leader's is {committed[at]} "
                          f"(base offset, last offset, CRC, leader epoch)")

    def check_acknowledged_on(self, broker: SimulatedBroker, who: str) -> None:
        """Invariant (2), on one broker's log."""
        if not broker.alive or not self.acknowledged:
            return
        batches = broker.batches()
        for offset, (crc, what) in self.acknowledged.items():
            found = batches.crc_at(offset)
            if found != crc:
                self.fail(f"{what}, acknowledged at acks=all at offset {offset}, is not in the log of {who}: "
                          f"{'no batch starts there' if found is None else f'a batch with CRC {found} is there'} "
                          f"(log end offset {broker.log.log_end_offset})")

    def fail(self, message: str) -> None:
        trace = "\n  ".join(self.events)
        brokers = "\n  ".join(self.describe(b) for b in self.brokers.values())
        raise SimulationFailure(
            f"seed {self.seed}, step {self.step_number}: {message}\nthe last events:\n  {trace}\n"
            f"the brokers now:\n  {brokers}\n"
            f"replay: REPLICATION_SIM_SEED={self.seed} .venv/bin/pytest -q tests/server/test_replication_simulation.py")

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
