"""A scripted cluster of raft cores, for the data-driven tests in tests/raft/testdata/ (etcd-io/raft's
interaction tests, with Kafka's messages).

Each script is a list of commands; after each, the expected output, then a blank line:

    campaign 1
    ----
    1: Unattached(0) -> Candidate(1)

Commands:
    cluster voters=1,2,3 [observers=4]   start the nodes
    campaign N                           node N's election timer fires now
    deliver                              send every queued message, until none is left; prints them
    propose N VALUE                      the leader N appends VALUE (after its linger)
    tick MS                              advance the clock and poll every node (no delivery)
    isolate N / heal                     cut node N off / reconnect everyone
    crash N / restart N                  stop a node / bring it back from its log and quorum-state
    format N CLUSTER_ID                  wipe node N and format it for another cluster
    status                               one line per node: state, epoch, leader, log end, HW
    log N                                node N's log: offset@epoch and each entry

The cores are the real KafkaRaftClient; only the network and the clock are pretend. Set
RAFT_REWRITE=1 to regenerate the expected output after a deliberate change, then read the diff.
"""

from __future__ import annotations

import random

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import RecordBatch
from kafka.raft.batch import NotLeaderError
from kafka.raft.kafka_raft_client import KafkaRaftClient
from kafka.raft.raft_message import RaftRequest
from kafka.utils.time import MockTime
from tests.raft.mock_log import MockLog
from tests.raft.simulation import CLUSTER_ID, CONFIG, MemoryQuorumStateStore, RecordingListener

NAMES = {ApiKey.VOTE: "Vote", ApiKey.BEGIN_QUORUM_EPOCH: "BeginQuorumEpoch",
         ApiKey.END_QUORUM_EPOCH: "EndQuorumEpoch",
         ApiKey.FETCH: "Fetch", ApiKey.DESCRIBE_QUORUM: "DescribeQuorum"}


def describe(message) -> str:
    """One message as a line a student can read."""
    kind = "Request" if isinstance(message, RaftRequest) else "Response"
    body = message.body
    name = NAMES.get(message.api_key, str(message.api_key))
    if kind == "Response" and body.get("error_code", 0):
        detail = f"error={Errors.for_code(body['error_code']).name}"
    elif message.api_key == ApiKey.FETCH:
        if kind == "Request":
            p = body["topics"][0]["partitions"][0]
            detail = (f"epoch={p['current_leader_epoch']} offset={p['fetch_offset']} "
                      f"last_epoch={p['last_fetched_epoch']}")
        else:
            p = body["responses"][0]["partitions"][0]
            records = p.get("records") or b""
            offsets = [(b.base_offset, b.last_offset) for b in _batches(records)]
            span = f"{offsets[0][0]}..{offsets[-1][1]}" if offsets else "none"
            detail = f"error={p['error_code']} records={span} hw={p['high_watermark']}"
            if p.get("diverging_epoch"):
                detail += f" diverging={p['diverging_epoch']['end_offset']}@{p['diverging_epoch']['epoch']}"
    else:
        p = body["topics"][0]["partitions"][0] if body.get("topics") else {}
        if message.api_key == ApiKey.VOTE and kind == "Request":
            detail = (f"{'pre_vote ' if p.get('pre_vote') else ''}epoch={p['replica_epoch']} "
                      f"candidate={p['replica_id']} last={p['last_offset']}@{p['last_offset_epoch']}")
        elif message.api_key == ApiKey.VOTE:
            detail = (f"{'pre_vote ' if p.get('pre_vote') else ''}epoch={p.get('leader_epoch')} "
                      f"granted={str(p.get('vote_granted')).lower()}")
        else:
            detail = f"epoch={p.get('leader_epoch')} leader={p.get('leader_id')}"
    return f"{message.source_id}->{message.destination_id} {name}{kind}({detail})"


def _batches(records: bytes):
    position = 0
    while position < len(records):
        batch = RecordBatch(records, position)
        yield batch
        position += batch.size_in_bytes


class ScriptedNode:
    def __init__(self, node_id: int, voters: set[int], time: MockTime) -> None:
        self.node_id, self.voters, self.time = node_id, voters, time
        self.cluster_id = CLUSTER_ID
        self.log, self.store = MockLog(), MemoryQuorumStateStore()
        self.up = True
        self.start()

    def start(self) -> None:
        self.listener = RecordingListener(self.node_id)
        self.client = KafkaRaftClient(self.node_id, self.voters, self.log, self.store, self.time,
                                      random.Random(self.node_id), CONFIG, self.cluster_id, [self.listener])
        self.client.initialize()

    def state(self) -> str:
        return f"{self.client.quorum.state.name}({self.client.quorum.epoch})"


class ScriptedCluster:
    def __init__(self) -> None:
        self.time = MockTime()
        self.nodes: dict[int, ScriptedNode] = {}
        self.isolated: set[int] = set()
        self.queue: list = []

    def run(self, command: str) -> str:
        name, *args = command.split()
        return getattr(self, f"cmd_{name}")(*args) or "ok"

    # ------------------------------------------------------------------ commands
    def cmd_cluster(self, *args: str) -> None:
        spec = dict(a.split("=") for a in args)
        voters = {int(v) for v in spec["voters"].split(",")}
        observers = {int(o) for o in spec.get("observers", "").split(",") if o}
        self.nodes = {i: ScriptedNode(i, voters, self.time) for i in sorted(voters | observers)}

    def cmd_campaign(self, node_id: str) -> str:
        node = self.nodes[int(node_id)]
        before = node.state()
        state = node.client.quorum.state
        # A follower stands when its fetch timeout fires, anyone else when its election timeout does.
        setattr(state, "fetch_deadline_ms" if hasattr(state, "fetch_deadline_ms") else "election_deadline_ms",
                self.time.milliseconds())
        self._poll(node)
        return f"{node.node_id}: {before} -> {node.state()}"

    def cmd_propose(self, node_id: str, value: str) -> str:
        node = self.nodes[int(node_id)]
        try:
            offset = node.client.schedule_append(node.client.quorum.epoch, [value.encode()])
        except NotLeaderError as e:
            return f"{node.node_id}: refused: {e}"
        self.time.sleep(CONFIG.append_linger_ms)
        self._poll(node)
        return f"{node.node_id}: {value} will be offset {offset}"

    def cmd_tick(self, ms: str) -> None:
        self.time.sleep(int(ms))
        for node in self.nodes.values():
            self._poll(node)

    def cmd_deliver(self) -> str:
        lines = []
        for _ in range(100):
            for node in self.nodes.values():
                self._poll(node)
            if not self.queue:
                break
            batch, self.queue = self.queue, []
            for message in batch:
                target = self.nodes.get(message.destination_id)
                if target is None or not target.up or {message.source_id,
                                                       message.destination_id} & self.isolated:
                    lines.append(describe(message) + "  (dropped)")
                    continue
                lines.append(describe(message))
                target.client.handle_inbound(message)
        return "\n".join(lines) or "nothing to deliver"

    def cmd_isolate(self, node_id: str) -> None:
        self.isolated.add(int(node_id))

    def cmd_heal(self) -> None:
        self.isolated.clear()

    def cmd_crash(self, node_id: str) -> None:
        node = self.nodes[int(node_id)]
        node.up = False
        self.queue = [m for m in self.queue if node.node_id not in (m.source_id, m.destination_id)]

    def cmd_restart(self, node_id: str) -> str:
        node = self.nodes[int(node_id)]
        node.log.hw = 0  # the high watermark is not durable; the log and quorum-state are
        node.up = True
        node.start()
        return f"{node.node_id}: restarted as {node.state()}"

    def cmd_format(self, node_id: str, cluster_id: str) -> str:
        """Wipe node N and format it for another cluster (kafka-storage format -t <cluster_id>)."""
        node = self.nodes[int(node_id)]
        node.log, node.store, node.cluster_id = MockLog(), MemoryQuorumStateStore(), cluster_id
        node.start()
        return f"{node.node_id}: formatted for cluster {cluster_id}"

    def cmd_status(self) -> str:
        lines = []
        for node in self.nodes.values():
            if not node.up:
                lines.append(f"{node.node_id}: down")
                continue
            leader = node.client.quorum.leader_id
            lines.append(f"{node.node_id}: {node.state()} leader={'none' if leader is None else leader} "
                         f"end={node.log.end_offset()} hw={node.log.high_watermark()}")
        return "\n".join(lines)

    def cmd_log(self, node_id: str) -> str:
        node = self.nodes[int(node_id)]
        entries = [f"{offset}@{self._epoch_of(node, offset)} {'LeaderChange' if v is None else v.decode()}"
                   for offset, v in sorted(node.log.values.items())]
        return "\n".join(entries) or "empty"

    # ------------------------------------------------------------------ plumbing
    def _epoch_of(self, node: ScriptedNode, offset: int) -> int:
        return next(epoch for base, last, epoch, _ in node.log.batches if base <= offset <= last)

    def _poll(self, node: ScriptedNode) -> None:
        if not node.up:
            return
        node.client.poll()
        self.queue.extend(node.client.drain_outbound())


def run_script(text: str) -> list[tuple[str, str, str, str]]:
    """(comment lines, command, expected, actual) for each block of a script."""
    cluster = ScriptedCluster()
    results = []
    for block in [b for b in text.strip().split("\n\n") if b.strip()]:
        lines = block.splitlines()
        comments = "".join(ln + "\n" for ln in lines if ln.startswith("#"))
        lines = [ln for ln in lines if not ln.startswith("#")]
        if not lines:
            continue
        separator = lines.index("----") if "----" in lines else len(lines)
        command = " ".join(lines[:separator])
        expected = "\n".join(lines[separator + 1:])
        results.append((comments, command, expected, cluster.run(command)))
    return results


def render(results: list[tuple[str, str, str, str]]) -> str:
    return "\n\n".join(f"{comments}{command}\n----\n{actual}"
                       for comments, command, _, actual in results) + "\n"
