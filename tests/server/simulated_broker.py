"""The brokers of the replication simulation (tests/server/replication_simulation.py), each one's part
in replicating the partition, and the network between them.

What is real: on each broker a Partition over a UnifiedLog (files in a directory of its own, small
segments; a restart reopens the directory, which runs recovery), ReplicaFetcherThreads (one per
leader, as the ReplicaFetcherManager keeps them; driven step by step with maybe_truncate and
maybe_fetch, never started), DelayedProduce deciding when acks=all is answered.

What is simulated (SimulatedBroker, Network):
  * the network: links cut and healed; a fetcher whose leader it cannot reach gets
    LeaderUnreachableError from its endpoint (SimulatedLeaderEndPoint) and backs off. An
    AlterPartition reaches the controller, and its answer the broker, a little later, or is lost on
    the way and answered REQUEST_TIMED_OUT (SimulatedAlterPartitionManager).
  * the metadata log, as a broker reads it: each change reaches each broker late (a delay of its own,
    re-rolled now and then) and never while the broker is cut from the controller; the broker applies
    it as the BrokerMetadataPublisher does, with Partition.make_leader / make_follower and the
    fetchers' add and remove as ReplicaManager.make_leader / make_follower do.
  * crashes, as kill -9 (everything in memory is gone; what was written to the log directory stays)
    and restarts, where the HW comes back from the last replication-offset checkpoint.
  * the scheduled tasks: ISR expiration (maybe_shrink_isr) every replica.lag.time.max.ms / 2, the HW
    checkpoint, produce timeouts.
A broker reaches the clock, the controller and the other brokers through the simulation it runs in
(Simulation, below, is what it asks of one), so this module imports neither of theirs.
"""

from __future__ import annotations

import bisect
import os
import random
from types import SimpleNamespace
from typing import Protocol

from kafka.log.errors import OffsetOutOfRangeError
from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.server.abstract_fetcher_thread import FETCHING, TRUNCATING
from kafka.server.delayed_produce import DelayedProduce, PartitionResponse, ProducePartitionStatus
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import NO_LEADER, Partition
from kafka.server.partition_errors import NotEnoughReplicasError, PartitionError
from kafka.server.remote_leader_end_point import LeaderUnreachableError
from kafka.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)
BROKER_IDS = (1, 2, 3)
CONTROLLER = 0  # the controller's address on the simulated network
CLIENT = -1  # the producers'

# 8 KiB segments: a log of a few hundred batches spans several, so truncation and recovery cross them.
LOG_CONFIG = LogConfig(segment_bytes=8192, min_insync_replicas=2)
REPLICA_LAG_TIME_MAX_MS = 1000
FETCH_BACKOFF_MS = 100  # replica.fetch.backoff.ms
FETCH_MAX_BYTES = 600  # replica.fetch.max.bytes: a few batches per fetch, so followers catch up in steps
PRODUCE_TIMEOUT_MS = 3000  # the produce request's timeout: a DelayedProduce expires after it
ALTER_PARTITION_TIMEOUT_MS = 1000  # an AlterPartition lost on the way is answered REQUEST_TIMED_OUT
HW_CHECKPOINT_INTERVAL_MS = 2000  # replica.high.watermark.checkpoint.interval.ms
METADATA_DELAY_MS = (0, 1200)  # how late the metadata reaches a broker


# -------------------------------------------------------------------------------- the simulation
class Controller(Protocol):
    """What a broker asks of the controller (SimulatedController): its metadata log, and AlterPartition."""

    metadata: list[tuple[int, PartitionState]]  # (published at, state)

    def latest_due(self, published_by_ms: int) -> int: ...

    def alter_partition(self, broker_id: int, broker_epoch: int, leader_epoch: int, new_isr: tuple[int, ...],
                        partition_epoch: int): ...


class Simulation(Protocol):
    """What the brokers and the controller ask of the simulation they run in (ReplicationSimulation):
    its random numbers and clock, the network, one another, the trace, messages delivered later,
    requests between brokers, and the check of an elected broker's log."""

    rng: random.Random
    time: MockTime
    network: Network
    controller: Controller
    brokers: dict[int, SimulatedBroker]

    def trace(self, event: str) -> None: ...

    def after(self, delay_ms: int, action) -> None: ...

    def message_delay(self) -> int: ...

    def request(self, source: SimulatedBroker, destination_id: int, handle): ...

    def check_acknowledged_on(self, broker: SimulatedBroker, who: str) -> None: ...


# -------------------------------------------------------------------------------- the logs
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
                self.batches.append((batch.base_offset, batch.last_offset, batch.crc,
                                     batch.partition_leader_epoch))
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


# -------------------------------------------------------------------------------- the network
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

    def __init__(self, sim: Simulation, follower: SimulatedBroker, leader_id: int) -> None:
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
            tp: leader.handle_offset_for_leader_epoch(current, epoch)
            for tp, (current, epoch) in partitions.items()})

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

    def __init__(self, sim: Simulation, broker: SimulatedBroker) -> None:
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


# -------------------------------------------------------------------------------- a broker
class SimulatedBroker:
    """One broker's part in replicating the partition: what its ReplicaManager does for it. It holds
    the log, the Partition once the metadata gives it a role, the fetchers (one per leader), the
    acks=all produces waiting in purgatory and the appends still on their way to the log. It is the
    fetchers' replica_manager, the Partition's listener and the DelayedProduces' replica_manager."""

    def __init__(self, sim: Simulation, broker_id: int, directory: str) -> None:
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

    # ------------------------------------------------------------ life and death
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

    # ------------------------------------------------------------ what the fetchers and Partition ask of it
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

    # ------------------------------------------------------------ metadata (BrokerMetadataPublisher)
    def maybe_apply_metadata(self) -> None:
        """Apply the newest metadata that has reached this broker: registered, connected to the
        controller, and the entry at least metadata_delay_ms old. After a restart nothing is applied
        before the broker has caught up with its own registration (KRaft's initial catch-up: the
        publishers start from an image at least that new), so it never acts on a state older than
        the one its previous incarnation had."""
        if not self.alive or self.broker_epoch < 0 or not self.sim.network.connected(self.broker_id,
                                                                                     CONTROLLER):
            return
        due = self.sim.controller.latest_due(self.time.milliseconds() - self.metadata_delay_ms)
        if due > self.applied and due >= self.registered_at:
            self.applied = due
            self.apply_partition(self.sim.controller.metadata[due][1])

    def apply_partition(self, state: PartitionState) -> None:
        """BrokerMetadataPublisher._apply_partition: nothing if nothing changed, else leader or follower."""
        partition = self.partition
        if partition is not None and (partition.leader_id, partition.leader_epoch,
                                      partition.partition_epoch) == \
                (state.leader, state.leader_epoch, state.partition_epoch):
            return
        if partition is None:
            partition = self.partition = Partition(TP, self.log, self.broker_id, self.time,
                                                   REPLICA_LAG_TIME_MAX_MS,
                                                   SimulatedAlterPartitionManager(self.sim, self),
                                                   listener=self)
        self.sim.trace(f"broker {self.broker_id} applies leader {state.leader} epoch {state.leader_epoch} "
                       f"ISR {list(state.isr)} partition epoch {state.partition_epoch} (LEO "
                       f"{self.log.log_end_offset})")
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
                self.add_fetcher_for_partition(state.leader, state.leader_epoch,
                                               self.partition.log_end_offset)
            self.fetchers = {leader: f for leader, f in self.fetchers.items() if f.partition_count() > 0}
        self.try_complete_delayed_produces()

    def add_fetcher_for_partition(self, leader_id: int, leader_epoch: int, offset: int) -> None:
        """ReplicaFetcherManager.add_fetcher_for_partitions: the fetcher for that leader, made if need be."""
        fetcher = self.fetchers.get(leader_id)
        if fetcher is None:
            endpoint = SimulatedLeaderEndPoint(self.sim, self, leader_id)
            fetcher = ReplicaFetcherThread(f"ReplicaFetcherThread-0-{leader_id}", endpoint, self,
                                           FETCH_BACKOFF_MS,
                                           self.time)
            self.fetchers[leader_id] = fetcher
        fetcher.add_partitions({TP: (offset, leader_epoch)})

    def remove_fetcher_for_partition(self) -> None:
        for fetcher in self.fetchers.values():
            fetcher.remove_partitions([TP])

    # ------------------------------------------------------------ the background work
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

    # ------------------------------------------------------------ produce (ReplicaManager.append_records)
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
        status = ProducePartitionStatus(info.last_offset + 1,
                                        PartitionResponse(base_offset=info.first_offset))
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

    # ------------------------------------------------------------ a follower's requests, answered as leader
    def handle_fetch(self, replica_id: int, positions) -> dict:
        """ReplicaManager._read_partition for a follower's Fetch, each partition as the fetcher reads it."""
        return {tp: self.read_for_follower(replica_id, p) for tp, p in positions.items()}

    def read_for_follower(self, replica_id: int, p) -> FetchAnswer:
        partition = self.partition
        if partition is None or not partition.is_leader:
            return FetchAnswer(error_code=Errors.NOT_LEADER_OR_FOLLOWER)
        try:
            read, hw_moved = partition.fetch_records(replica_id, p.fetch_offset, p.current_leader_epoch,
                                                     FETCH_MAX_BYTES, True,
                                                     last_fetched_epoch=p.last_fetched_epoch)
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

    def handle_offset_for_leader_epoch(self, current_leader_epoch: int,
                                       leader_epoch: int) -> tuple[Errors, int, int]:
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

    # ------------------------------------------------------------ for the checks
    def batches(self) -> LogSummary:
        return self.summary.refresh(self.log)

    def has_applied_leadership(self, state: PartitionState) -> bool:
        p = self.partition
        return self.alive and p is not None and p.is_leader and p.leader_epoch == state.leader_epoch

