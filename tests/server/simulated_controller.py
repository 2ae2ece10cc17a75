"""The controller of the replication simulation (tests/server/replication_simulation.py).

What is simulated (SimulatedController): the active controller, for the one partition: its leader,
leader epoch, ISR and partition epoch, each change written to a metadata log that the brokers read
late (tests/server/simulated_broker.py). It fences a broker it has not heard from for
broker.session.timeout.ms (dropping it from the ISR and, if it led, electing the first usable ISR
member), unfences one that is back and has caught up with the metadata, lets a restarted broker
register again only once its old incarnation is fenced, moves leadership for a preferred election
or a controlled shutdown, and answers AlterPartition with Kafka's checks
(ReplicationControlManager.alter_partition: stale broker epoch, not the leader, stale leader epoch,
stale partition epoch, an ineligible replica).

What is real: the PartitionState it publishes, which the brokers' real Partitions apply. The
decisions are ReplicationControlManager's and ClusterControlManager's, written again for one
partition, not the QuorumController itself.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from types import SimpleNamespace

from kafka.protocol.errors import Errors
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import NO_LEADER
from tests.server.simulated_broker import BROKER_IDS, CONTROLLER, TP, SimulatedBroker, Simulation

REPLICAS = BROKER_IDS  # replication factor 3; replicas[0] is the preferred leader
BROKER_SESSION_TIMEOUT_MS = 1500


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

    def __init__(self, sim: Simulation) -> None:
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
            # a new incarnation registers once the old one is fenced (else DUPLICATE_BROKER_REGISTRATION)
            if r.fenced:
                self.register(broker, now)
            return
        r.last_heartbeat_ms = now
        if r.fenced and not r.in_controlled_shutdown and broker.applied == len(self.metadata) - 1:
            r.fenced = False
            self.sim.trace(f"controller unfences broker {broker.broker_id}")
            self.handle_broker_available(broker.broker_id)

    def register(self, broker: SimulatedBroker, now: int) -> None:
        """It starts fenced; it is unfenced once it has caught up with the metadata."""
        self.registrations[broker.broker_id] = Registration(broker.incarnation, self.next_broker_epoch, True,
                                                            now)
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
            leader = next((r for r in s.replicas if r in isr and r != broker_id and self.usable(r)),
                          NO_LEADER)
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
        """A PartitionChangeRecord: the partition epoch moves on; the leader epoch too if the leader
        changed."""
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
