"""Three QuorumControllers on the Raft simulation's nodes, seeded and deterministic (issue 31).

Each node of tests/raft/simulation.py runs a real QuorumController on its raft client, as a KRaft
controller does: the controller is the raft client's listener, appends through it, and runs its event
queue (threaded=False) right after each poll. The network drops, delays and reorders messages, nodes
are cut off and restarted, and they write metadata snapshots; meanwhile simulated brokers register,
heartbeat (or fall silent and get fenced, or ask for controlled shutdown), and create topics and
partitions, alter configs, elect leaders and take producer-id blocks, always asking whichever
controller says it is active.

What is checked, on every committed batch of every node:
  * the controller's committed MetadataImage at that offset equals every other node's at the same
    offset (a standby's image equals the active one's);
  * a controller with nothing pending (every standby; the active one once its writes are committed)
    holds exactly the state that replaying its committed image gives: state changes only in replay;
and at the end, with the network healed, a controller is active, a new topic commits everywhere and
every topic whose creation was acknowledged is in every image. A failure names its seed;
CONTROLLER_SIM_SEED=<seed> replays it alone.
"""

from __future__ import annotations

import random
import uuid

from kafka.controller.feature_control_manager import MAX_METADATA_VERSION, MIN_METADATA_VERSION
from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED
from kafka.protocol.metadata_records import TOPIC_RESOURCE, serialize
from kafka.protocol.schema import Record
from kafka.raft.replicated_log import OffsetAndEpoch
from tests.raft.simulation import CLUSTER_ID, Node, RecordingListener, Simulation

CONFIG = QuorumControllerConfig(num_partitions=2, default_replication_factor=2,
                                broker_session_timeout_ms=1500,
                                metadata_max_idle_interval_ms=500, leader_imbalance_check_interval_ms=1000)
BROKERS = (101, 102, 103, 104)
HEARTBEAT_MS = 300


def fingerprint(image) -> list[bytes]:
    """A MetadataImage as comparable bytes: its records, serialized, in a fixed order."""
    return sorted(serialize(r) for r in image.write())


def manager_state(controller: QuorumController) -> tuple:
    """Everything the controller's managers hold that a decision can read (the producer-id manager's
    broker_epoch is kept for the record only, and the image does not keep it, as in Kafka)."""
    return (controller.features.finalized, controller.cluster.brokers, controller.configs.configs,
            controller.replication.topics_by_id, controller.replication.topic_ids_by_name,
            controller.producer_ids.next_producer_id)


class CheckedController(QuorumController):
    """A QuorumController that hands every committed batch to the simulation's checks."""

    def __init__(self, sim: ControllerSimulation, node_id: int, raft_client) -> None:
        super().__init__(node_id, raft_client, sim.time, CONFIG, CLUSTER_ID, threaded=False)
        self.sim = sim
        self.replication.new_topic_id = lambda: uuid.UUID(int=sim.ids.getrandbits(128), version=4)

    def _handle_commit(self, batch) -> None:
        super()._handle_commit(batch)
        self.sim.check_committed(self)

    def _handle_snapshot(self, snapshot_id, batches) -> None:
        super()._handle_snapshot(snapshot_id, batches)
        self.sim.check_committed(self)

    def _handle_event_exception(self, name: str, e: Exception) -> None:
        self.sim.problems.append(f"node {self.node_id}: a controller fault in {name}: {e!r}")
        super()._handle_event_exception(name, e)


class SnapshotListener(RecordingListener):
    """The raft simulation's listener, for a log whose snapshots hold metadata records: after one, it
    checks what it is told from there on."""

    def handle_load_snapshot(self, reader) -> None:
        self.committed = []


class ControllerNode(Node):
    sim: ControllerSimulation

    def start(self) -> None:
        old = getattr(self, "controller", None)
        if old is not None:
            old.shutdown()  # a crash: whoever waited on it hears nothing more from this process
        super().start()
        self.listener = SnapshotListener(self.node_id)
        self.client._listeners[0].listener = self.listener
        self.controller = CheckedController(self.sim, self.node_id, self.client)
        self.client.register(self.controller)


class Broker:
    """A simulated broker: what it registered as, and when it heartbeats next."""

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id
        self.epoch = -1
        self.alive = False
        self.next_heartbeat_ms = 0
        self.want_shut_down = False


class ControllerSimulation(Simulation):
    node_class = ControllerNode

    def __init__(self, seed: int, drop: float = 0.05) -> None:
        self.ids = random.Random(seed ^ 0x5EED)  # topic ids: their own stream, so the schedule stays the same
        self.images: dict[int, list[bytes]] = {}  # committed offset -> the image every node must have there
        self.problems: list[str] = []  # found inside a controller's event, reported after the step
        ControllerNode.sim = self
        super().__init__(seed, voters=3, observers=0, drop=drop)
        self.work = random.Random(seed * 7 + 1)
        self.brokers = {b: Broker(b) for b in BROKERS}
        self.topics = 0
        self.acknowledged_topics: set[str] = set()
        self.pending: list[tuple[str, object, object]] = []  # (kind, future, context)
        self.next_request_ms = 0
        self.calm = False  # at the end: brokers come back and stay

    # ------------------------------------------------------------------ running the controllers
    def after_poll(self, node: Node) -> None:
        if node.controller.queue.run_pending():
            node.next_poll_ms = self.time.milliseconds() + 1  # what it appended goes out at the linger

    def active(self) -> ControllerNode | None:
        active = [n for n in self.nodes.values() if n.controller.is_active()
                  and n.node_id not in self.isolated]
        return max(active, key=lambda n: n.controller.epoch) if active else None

    def run_for(self, ms: int, propose_every: int = 0, chaos: bool = False, workload: bool = True) -> None:
        end = self.time.milliseconds() + ms
        while self.time.milliseconds() < end:
            if workload:
                self.drive_brokers()
            if chaos:
                self.maybe_chaos()
            self.step()
            if self.problems:
                self.fail(self.problems[0])
            self.collect_answers()

    # ------------------------------------------------------------------ the checks
    def check_committed(self, controller: QuorumController) -> None:
        offset = controller.last_committed_offset
        image = fingerprint(controller.committed_image)
        seen = self.images.setdefault(offset, image)
        if seen != image:
            self.problems.append(f"node {controller.node_id}'s image at committed offset {offset} differs "
                                 "from another "
                      f"node's: {sorted(set(image) ^ set(seen))[:3]}")
        if controller._highest_pending_offset() is None:
            replayed = QuorumController(controller.node_id, None, self.time, CONFIG, CLUSTER_ID,
                                        threaded=False)
            for r in controller.committed_image.write():
                replayed.replay(r)
            if manager_state(replayed) != manager_state(controller):
                role = "active" if controller.is_active() else "standby"
                diff = [(theirs, ours)
                        for theirs, ours in zip(manager_state(replayed), manager_state(controller),
                                                strict=True) if theirs != ours]
                self.problems.append(f"node {controller.node_id} ({role}) at offset {offset} holds state its "
                                     "committed "
                          f"image does not give: replayed {diff[0][0]!r}, held {diff[0][1]!r}")

    def fail(self, message: str) -> None:
        raise AssertionError(f"seed {self.seed}: {message} (replay: CONTROLLER_SIM_SEED={self.seed})")

    def check_progress(self) -> None:
        """With the network healed: an active controller, a new topic everywhere, nothing acknowledged
        lost."""
        self.heal()
        self.calm = True
        self.run_for(3000)
        active = self.active()
        if active is None:
            self.fail("no active controller 3 s after the network healed")
        future = active.controller.create_topics(create_topics_request("after-healing", 1, 1))
        self.pending.append(("create_topics", future, "after-healing"))
        active.next_poll_ms = self.time.milliseconds()
        self.run_for(2000)
        self.run_for(1000, workload=False)  # quiet: the followers catch up with the last acknowledgement
        if "after-healing" not in self.acknowledged_topics:
            self.fail("a topic created after healing was not acknowledged: "
                      f"{future.result() if future.done() else None}")
        for node in self.nodes.values():
            names = set(node.controller.committed_image.topics.topics_by_name)
            missing = self.acknowledged_topics - names
            if missing:
                self.fail(f"node {node.node_id} lost acknowledged topics {sorted(missing)}")

    # ------------------------------------------------------------------ snapshots of metadata
    def snapshot(self, node: Node) -> None:
        """The node snapshots its controller's committed image (what the MetadataLoader's generator does)."""
        controller = node.controller
        position = controller.last_committed_offset + 1
        batch = next((b for b in node.log.batches if b[0] <= position - 1 <= b[1]), None)
        if batch is None or position <= node.log.start_offset() or position > node.log.high_watermark():
            return
        records = [serialize(r) for r in controller.committed_image.write()]
        node.client.schedule_snapshot(OffsetAndEpoch(position, batch[2]), records)
        node.next_poll_ms = self.time.milliseconds()

    # ------------------------------------------------------------------ the brokers' side
    def request(self, kind: str, call, context=None) -> None:
        active = self.active()
        if active is None:
            return
        self.pending.append((kind, call(active.controller), context))
        active.controller.queue.run_pending()
        active.next_poll_ms = self.time.milliseconds()

    def drive_brokers(self) -> None:
        now = self.time.milliseconds()
        for broker in self.brokers.values():
            if broker.alive and now >= broker.next_heartbeat_ms:
                broker.next_heartbeat_ms = now + HEARTBEAT_MS
                self.request("heartbeat", lambda c, b=broker: c.process_broker_heartbeat(heartbeat(c, b)),
                             broker)
        if now < self.next_request_ms:
            return
        self.next_request_ms = now + self.work.randint(10, 60)
        roll = self.work.random()
        broker = self.brokers[self.work.choice(BROKERS)]
        if self.calm and broker.want_shut_down:
            return
        if (roll < 0.15 or self.calm) and not broker.alive:
            broker.alive, broker.want_shut_down = True, False
            request = registration(broker.broker_id, uuid.UUID(int=self.work.getrandbits(128), version=4))
            self.request("register", lambda c: c.register_broker(request), broker)
        elif roll < 0.18 and broker.alive and not self.calm:
            broker.alive = False  # it crashed: its session will expire and the controller fences it
        elif roll < 0.20 and broker.alive and not self.calm:
            broker.want_shut_down = True
        elif roll < 0.40:
            self.topics += 1
            name = f"t{self.topics}"
            request = create_topics_request(name, self.work.randint(1, 3), self.work.randint(1, 3))
            self.request("create_topics", lambda c: c.create_topics(request), name)
        elif roll < 0.50 and self.topics:
            name = f"t{self.work.randint(1, self.topics)}"
            request = Record(topics=[Record(name=name, count=self.work.randint(2, 5), assignments=None)],
                             validate_only=False)
            self.request("create_partitions", lambda c: c.create_partitions(request))
        elif roll < 0.60 and self.topics:
            name = f"t{self.work.randint(1, self.topics)}"
            value = str(self.work.randint(1, 10) * 60_000)
            request = Record(resources=[Record(resource_type=TOPIC_RESOURCE, resource_name=name, configs=[
                Record(name="retention.ms", config_operation=0, value=value)])], validate_only=False)
            self.request("configs", lambda c: c.incremental_alter_configs(request))
        elif roll < 0.65:
            request = Record(election_type=PREFERRED, topic_partitions=None)
            self.request("elect_leaders", lambda c: c.elect_leaders(request))
        elif roll < 0.70 and broker.alive and broker.epoch >= 0:
            request = Record(broker_id=broker.broker_id, broker_epoch=broker.epoch)
            self.request("producer_ids", lambda c: c.allocate_producer_ids(request))

    def collect_answers(self) -> None:
        still = []
        for kind, future, context in self.pending:
            if not future.done():
                still.append((kind, future, context))
                continue
            response = future.result()
            if response.get("error_code") == Errors.UNKNOWN_SERVER_ERROR:
                self.fail(f"{kind} failed with a controller fault")
            if kind == "register" and response["error_code"] == Errors.NONE:
                context.epoch = response["broker_epoch"]
            elif kind == "register":
                context.alive = False  # try again later
            elif kind == "heartbeat" and (response["should_shut_down"] or response["error_code"] in (
                    Errors.STALE_BROKER_EPOCH, Errors.BROKER_ID_NOT_REGISTERED)):
                context.alive = False  # it stopped, or must register again
            elif kind == "create_topics":
                result = response["topics"][0]
                if result["error_code"] == Errors.UNKNOWN_SERVER_ERROR:
                    self.fail(f"creating {context} failed with a controller fault")
                if result["error_code"] == Errors.NONE:
                    self.acknowledged_topics.add(context)
        self.pending = still


# ---------------------------------------------------------------------------------- requests
def registration(broker_id: int, incarnation_id: uuid.UUID) -> Record:
    return Record(broker_id=broker_id, cluster_id=CLUSTER_ID, incarnation_id=incarnation_id, rack=None,
                  listeners=[Record(name="PLAINTEXT", host="127.0.0.1", port=9000 + broker_id,
                                    security_protocol=0)],
                  features=[Record(name="metadata.version", min_supported_version=MIN_METADATA_VERSION,
                                   max_supported_version=MAX_METADATA_VERSION)])


def heartbeat(controller: QuorumController, broker: Broker) -> Record:
    return Record(broker_id=broker.broker_id, broker_epoch=broker.epoch,
                  current_metadata_offset=controller.last_committed_offset, want_fence=False,
                  want_shut_down=broker.want_shut_down)


def create_topics_request(name: str, partitions: int, replication: int) -> Record:
    return Record(topics=[Record(name=name, num_partitions=partitions, replication_factor=replication,
                                 assignments=[], configs=[])], validate_only=False)
