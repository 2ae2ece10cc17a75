"""Lab 08, KRaft: the metadata quorum (docs/labs/08-kraft.md): `KafkaRaftClient.diverging_truncation_offset`
in kafka/raft/kafka_raft_client.py, where a voter cuts a tail of `__cluster_metadata` that the
quorum moved past, first on the raft core alone (an in-memory log, a scripted cluster), then on
three real nodes; and step 8, a fourth controller added and an original removed on the split cluster
while a producer writes (KIP-853).

Seed 004: "the metadata is stored as transaction logs in Kafka. The log is managed by a leader and
voters in a quorum ... The transaction log uses quorum replication where the leader considers a
commit after the majority of replicas acknowledges a write." What a leader appended without a
majority was never committed; once a new leader is elected, the old one must drop it (KIP-595: the
Fetch answer names the diverging epoch and where it ends in the leader's log).
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from kafka.protocol.record_batch import build_batch
from kafka.raft.kafka_raft_client import KafkaRaftClient
from kafka.server.meta_properties import read_meta_properties
from kafka.utils.time import MockTime
from tests.cluster.kraft_cluster import KRaftCluster, Node, run_tool, started_cluster
from tests.cluster.test_dynamic_voters import Producing, quorum_tool, status_of
from tests.cluster.test_replication import read_all
from tests.helpers import REPO, free_port, unique_topic, wait_until
from tests.raft.interaction import run_script
from tests.raft.mock_log import MockLog
from tests.raft.simulation import CLUSTER_ID, CONFIG, MemoryQuorumStateStore

DIVERGENCE = Path(__file__).parents[1] / "raft" / "testdata" / "divergence.txt"


def voter_with_log(*epochs: tuple[int, int], high_watermark: int = 0) -> KafkaRaftClient:
    """Voter 1 of {1, 2, 3}, its log written as (epoch, how many records) runs: (1, 3), (2, 4) is
    offsets 0-2 in epoch 1 and 3-6 in epoch 2."""
    log = MockLog()
    for epoch, count in epochs:
        log.append_as_leader(build_batch([(None, b"r")] * count), epoch)
    log.update_high_watermark(high_watermark)
    return KafkaRaftClient(1, {1, 2, 3}, log, MemoryQuorumStateStore(), MockTime(), random.Random(1), CONFIG,
                           CLUSTER_ID)


def test_cut_where_the_leaders_copy_of_the_epoch_ends():
    """a voter whose copy of epoch 3 runs past the leader's
    cuts its log where the leader's copy of epoch 3 ends"""
    voter = voter_with_log((1, 3), (3, 4))  # epoch 3 is offsets 3-6 here; the leader's epoch 3 ends at 5
    assert voter.diverging_truncation_offset(3, 5) == 5


def test_cut_where_our_copy_ends_if_that_is_sooner():
    """when the leader's copy of the epoch is the longer one, the voter cuts where its own copy ends (Kafka's
    truncateToEndOffset takes the smaller)"""
    # Offsets 0-2 in epoch 1, then 3-6 written in epoch 2 by this voter as a leader nobody followed. The
    # new leader never had epoch 2; its answer names its largest epoch below, 1, ending at 6 there.
    voter = voter_with_log((1, 3), (2, 4))
    assert voter.diverging_truncation_offset(1, 6) == 3, (
        "offsets 3-6 here are epoch 2, not the leader's epoch 1: "
        "keep only this voter's own epoch 1, which ends at 3")


def test_cut_at_our_largest_earlier_epoch_if_we_never_had_it():
    """a voter that never had the diverging epoch cuts where its largest epoch below it ends,
    and asks again from there"""
    voter = voter_with_log((1, 3), (4, 3))  # epochs 1 and 4; the leader says its epoch 3 ends at 4
    assert voter.diverging_truncation_offset(3, 4) == 3, "this voter has no epoch 3: its epoch 1 ends at 3"


def test_never_below_the_high_watermark_nor_above_the_log_end():
    """the cut never goes below the voter's high watermark (what is committed stays) nor past its log end"""
    voter = voter_with_log((1, 6), high_watermark=4)
    assert voter.diverging_truncation_offset(1, 2) == 4, "offsets below the high watermark 4 are committed"
    assert voter.diverging_truncation_offset(1,
                                             10) == 6, "the log ends at 6: there is nothing above it to keep"


def test_a_deposed_leader_truncates_and_catches_up_in_a_scripted_cluster():
    """in a scripted three-voter cluster, a leader cut off from the others drops the record it appended alone
    and fetches the new leader's (tests/raft/testdata/divergence.txt)"""
    for _, command, expected, actual in run_script(DIVERGENCE.read_text()):
        assert actual == expected, f"after `{command}` expected:\n{expected}\nbut got:\n{actual}"


# ------------------------------------------------------------------ three real nodes
# (read through kafka-metadata-quorum and the nodes' logs, not /metrics: in a handout, /metrics is lab 02's)

TODO = re.compile(r"NotImplementedError: (lab \d\d: [^\n]*)")


@pytest.fixture
def cluster(tmp_path, request):
    with started_cluster(tmp_path, request) as cluster:
        yield cluster


def todo_in_log(text: str) -> str:
    found = TODO.search(text)
    return f" (its log says: {found.group(1)})" if found else ""


def log_end_offsets(via: Node) -> dict[int, int]:
    """`kafka-metadata-quorum describe --replication`: each voter's log end offset, as the leader knows it."""
    result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", via.bootstrap, "describe",
                      "--replication", timeout=30)
    rows = [line.split() for line in result.stdout.splitlines()[1:]] if result.returncode == 0 else []
    return {int(row[0]): int(row[2]) for row in rows if len(row) >= 3}  # NodeId DirectoryId LogEndOffset ...


@pytest.mark.timeout(180)
def test_three_nodes_a_deposed_controller_truncates_its_uncommitted_tail(cluster):
    """on three real nodes, an active controller left alone appends records no majority has; killed, it
    restarts as a follower of the newly elected one, truncates that tail and catches up"""
    old_leader_id = cluster.await_leader(cluster.nodes[1])
    old_leader = cluster.nodes[old_leader_id]
    followers = [n for n in cluster.nodes.values() if n.node_id != old_leader_id]
    wait_until(lambda: log_end_offsets(old_leader).get(old_leader_id, 0) > 1, timeout=30,
               message="the active controller writing the metadata log")
    for follower in followers:
        follower.kill()
    # Alone, the active controller still appends a NoOpRecord every metadata.max.idle.interval.ms (500 ms),
    # on its log only, above a high watermark that cannot move without a majority, until it resigns after
    # 1.5 x controller.quorum.fetch.timeout.ms (3 s) with no majority fetching.
    wait_until(lambda: "resigning: a majority has not fetched lately" in old_leader.output(), timeout=15,
               interval=0.2, message="the lone active controller resigning")
    old_leader.kill()

    for follower in followers:
        follower.start()
    new_leader_id = cluster.await_leader(followers[0], not_in=(old_leader_id,))
    old_leader.start()
    try:
        line = wait_until(lambda: re.search(r"truncating a diverging tail.*", old_leader.output()),
                          timeout=30,
                          interval=0.2, message="the truncation").group(0)
    except AssertionError:
        raise AssertionError(f"node {old_leader_id} never truncated the tail it appended alone"
                             f"{todo_in_log(old_leader.output())}") from None
    cut = int(re.search(r"to_offset=(\d+)", line).group(1))
    assert cut < int(re.search(r"log_end_offset=(\d+)", line).group(1)), f"nothing was cut: {line}"
    new_leader = cluster.nodes[new_leader_id]
    wait_until(lambda: log_end_offsets(new_leader).get(old_leader_id, -1) > cut, timeout=30, interval=0.5,
               message=f"node {old_leader_id} fetching from node {new_leader_id} past offset {cut}")


@pytest.mark.timeout(180)
def test_split_cluster_a_fourth_controller_joins_and_an_original_leaves_while_a_producer_writes(tmp_path):
    """step 8 on copies of config/cluster-split/: three controllers (a dynamic quorum) and a broker;
    controller-4 formatted with --no-initial-controllers joins with add-controller, then the leading
    controller leaves with remove-controller, asked through another, while an acks=all producer writes;
    nothing acknowledged is lost"""
    ports: dict[str, str] = {}
    names = ["controller-1", "controller-2", "controller-3", "broker-1", "controller-4"]
    for name in names:
        text = (REPO / "config" / "cluster-split" / f"{name}.properties").read_text()
        text = re.sub(r"\b(909[2-9]|940[4-9])\b", lambda m: ports.setdefault(m.group(1), str(free_port())),
                      text)
        text += "offsets.topic.replication.factor=1\n" if name.startswith("broker") else ""
        (tmp_path / f"{name}.properties").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cluster = subprocess.Popen([sys.executable, "-m", "kafka.tools.local_cluster",
                                *(f"{name}.properties" for name in names[:4])], cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    new_controller = None
    via = f"127.0.0.1:{ports['9093']}"
    try:
        status = wait_until(lambda: (s := status_of(via)) and int(s.get("LeaderId", -1)) >= 0 and s,
                            timeout=60,
                            message="the split cluster's quorum", interval=0.3)
        directory_ids = dict(re.findall(r'"id": (\d), "directoryId": "(\S{22})"', status["CurrentVoters"]))
        assert sorted(directory_ids) == ["1", "2", "3"], status["CurrentVoters"]
        cluster_id = read_meta_properties(str(tmp_path / "data/cluster-split/controller-1")).cluster_id
        formatted = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "format", "-t",
                                    cluster_id, "-c",
                                    "controller-4.properties", "--no-initial-controllers"], cwd=tmp_path,
                                    env=env,
                                   capture_output=True, text=True, timeout=60)
        assert formatted.returncode == 0, formatted.stderr
        log = open(tmp_path / "controller-4.log", "wb")
        new_controller = subprocess.Popen([sys.executable, "-m", "kafka", "controller-4.properties"],
                                          cwd=tmp_path,
                                          env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        broker = f"127.0.0.1:{ports['9092']}"
        producing = Producing(broker, unique_topic("lab08-voters"))
        producing.start()
        wait_until(lambda: len(producing.acked) > 50, timeout=60, message="records acknowledged",
                   interval=0.2)
        tried: list = []
        try:
            wait_until(lambda: tried.append(subprocess.run(  # where the student runs it: data/ is relative
                [sys.executable, "-m", "kafka.tools.metadata_quorum_command", "--bootstrap-controller", via,
                 "--command-config", "controller-4.properties", "add-controller"], cwd=tmp_path, env=env,
                capture_output=True, text=True, timeout=30)) or tried[-1].returncode == 0,
                       timeout=60, message="kafka-metadata-quorum add-controller", interval=0.5)
        except AssertionError:
            raise AssertionError(f"add-controller: {tried[-1].stdout}{tried[-1].stderr}\ncontroller-4's "
                                 "log:\n"
                                 f"{(tmp_path / 'controller-4.log').read_text()[-3000:]}") from None
        # The page removes whichever controller leads, asking another (controller N listens on 9091 + 2N).
        leader = int(wait_until(lambda: status_of(via).get("LeaderId"), timeout=30,
                                message="the leading controller"))
        other = leader % 3 + 1
        via = f"127.0.0.1:{ports[str(9091 + 2 * other)]}"
        wait_until(lambda: quorum_tool(via, "remove-controller", "--controller-id", str(leader),
                                       "--controller-directory-id",
                                       directory_ids[str(leader)]).returncode == 0,
                   timeout=60, message="kafka-metadata-quorum remove-controller", interval=0.5)
        # A leader knows an observer once it has fetched from it: the old leader shows up there soon after.
        voters = sorted({1, 2, 3, 7} - {leader})
        wait_until(lambda: (s := status_of(via))
                   and KRaftCluster.replica_ids(s.get("CurrentVoters", "")) == voters
                   and leader in KRaftCluster.replica_ids(s["CurrentObservers"]),
                   timeout=60, message=f"voters {voters}, controller {leader} an observer", interval=0.3)
        count = len(producing.acked)
        wait_until(lambda: len(producing.acked) > count + 50, timeout=60, message="writes after the changes")
        producing.stopping.set()
        producing.join(60)
        values, _ = read_all(SimpleNamespace(bootstrap=broker), producing.topic)
        assert producing.acked <= values, f"acknowledged but lost: {sorted(producing.acked - values)[:10]}"
    finally:
        if new_controller is not None and new_controller.poll() is None:
            new_controller.send_signal(signal.SIGTERM)
            new_controller.wait(40)
        if cluster.poll() is None:
            cluster.send_signal(signal.SIGINT)
            cluster.wait(60)
