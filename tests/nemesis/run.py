"""One nemesis run, start to verdict: hosts up, cluster formatted, workloads and faults, heal, check.

Kafka's ducktape replication tests and Jepsen's test runner have the same shape: set up, run the
clients while the nemesis injects faults, heal, let the system settle, read the final state and
judge the history against it. The settle step waits for what a healed cluster must reach on its own
(every partition led, every replica back in the ISR); if it never does, that is itself the finding.
After each heal and once settled, the live replicas are checked too: every ISR member's log against its
leader's below the high watermark (tests/nemesis/replica_check.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import confluent_kafka

from kafka.clients.admin import NewTopic
from tests.helpers import wait_until
from tests.nemesis.checker import Checker, Verdict, replica_batches
from tests.nemesis.cluster import NemesisCluster
from tests.nemesis.hosts import Hosts, netem_unavailable_reason
from tests.nemesis.java_clients import NAME, add_java_clients
from tests.nemesis.nemesis import Nemesis, schedule
from tests.nemesis.replica_check import ReplicaCheck, agreed_view, whole
from tests.nemesis.transactional_job import GROUP, committed_values, exactly_once_anomalies
from tests.nemesis.workload import GROUP_ID, Workload

TOPIC, SINK, PARTITIONS = "nemesis", "nemesis-out", 3
# How long the replica check after a heal waits for the nodes to agree on a full ISR (a killed node
# restarts and catches up in that time); past it, it judges the ISR they agree on.
HEALED_REPLICAS_TIMEOUT = 30


def _fully_replicated(cluster: NemesisCluster) -> bool:
    """Every node sees every partition led, with all three replicas in the ISR, and all agree: a node
    just healed answers from its old metadata (itself leader, the ISR it had) until it catches up.
    Each node's own answer (replica_check.node_view): an admin client's describe_topics, whichever
    node it was bootstrapped from, goes to the first broker the metadata lists, the same for all three."""
    view = agreed_view(cluster.nodes.values(), [TOPIC])
    return view is not None and len(view) == PARTITIONS and whole(view)


def _create_topic(cluster: NemesisCluster, name: str) -> bool:
    try:
        with cluster.nodes[1].admin() as admin:
            error = admin.create_topics([NewTopic(name, PARTITIONS, 3, {"min.insync.replicas": "2"})])[name]
        return error is None or "TOPIC_ALREADY_EXISTS" in str(error)
    except Exception:  # noqa: BLE001 - no controller yet: try again
        return False


def _final_offsets(bootstrap: str, topic: str, group: str) -> tuple[dict[int, int], dict[int, int]]:
    """Each partition's high watermark, and the group's committed offsets."""
    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                         "enable.auto.commit": False})
    try:
        def high(p: int) -> int | None:
            try:
                return consumer.get_watermark_offsets(confluent_kafka.TopicPartition(topic, p), timeout=10)[1]
            except confluent_kafka.KafkaException:
                return None
        watermarks = {p: wait_until(lambda p=p: (h := high(p)) is not None and h + 1, timeout=60,
                                    message=f"the high watermark of {topic}-{p}", interval=0.5) - 1
                      for p in range(PARTITIONS)}
        def fetch_committed():
            try:
                return consumer.committed([confluent_kafka.TopicPartition(topic, p)
                                           for p in range(PARTITIONS)], 10)
            except confluent_kafka.KafkaException:  # a coordinator moving, or offsets still unstable
                return None
        # Past transaction.timeout.ms (60 s) and the coordinator's abort interval (10 s): a transaction
        # still open by then is one the brokers never abort, and that is a finding.
        committed = wait_until(fetch_committed, timeout=90, message=f"{group}'s committed offsets",
                               interval=0.5)
        return watermarks, {tp.partition: tp.offset for tp in committed if tp.offset >= 0}
    finally:
        consumer.close()


def run(seed: int, duration: float, workdir: Path, log=print) -> Verdict:
    netem_reason = netem_unavailable_reason()
    if netem_reason:
        log(f"nemesis: loss and delay faults skipped: {netem_reason}")
    faults = schedule(seed, duration, netem=netem_reason is None)
    log(f"nemesis: seed {seed}, {duration:.0f}s, {len(faults)} faults scheduled (replay: SEED={seed})")
    with hosts_and_cluster(workdir) as (hosts, cluster):
        for name in (TOPIC, SINK):
            wait_until(lambda name=name: _create_topic(cluster, name), timeout=90, message=f"{name} created",
                       interval=0.5)
        wait_until(lambda: _fully_replicated(cluster), timeout=60, message="a full ISR", interval=0.5)
        workload = Workload(cluster.bootstrap, TOPIC, SINK)
        java = add_java_clients(workload.threads, cluster.bootstrap, TOPIC, GROUP_ID, workload.produced,
                                workload.stop_event, workdir, log)
        workload.start()
        replicas = ReplicaCheck(cluster, [TOPIC, SINK], log)
        nemesis = Nemesis(hosts, cluster, log, after_heal=lambda k, fault: replicas.check(
            f"after heal {k} ({fault.kind})", timeout=HEALED_REPLICAS_TIMEOUT))
        try:
            nemesis.run(faults, time.monotonic())
        finally:
            nemesis.heal()
            log("nemesis: healed; waiting for every replica back in the ISR")
            healed = time.monotonic()
            settled = _settle(cluster)
            log(f"nemesis: settled in {time.monotonic() - healed:.0f}s; stopping the clients")
            stuck = workload.stop()
            log(f"nemesis: clients stopped in {time.monotonic() - healed:.0f}s after healing"
                + (f"; still running: {stuck}" if stuck else ""))
        if not settled:
            raise AssertionError("after healing, the cluster never got every partition a leader and a full "
                                 "ISR")
        replicas.check("at the end", timeout=HEALED_REPLICAS_TIMEOUT)
        watermarks, committed = _final_offsets(cluster.bootstrap, TOPIC, GROUP_ID)
        sink_watermarks = _final_offsets(cluster.bootstrap, SINK, GROUP)[0]
        job_committed = _final_offsets(cluster.bootstrap, TOPIC, GROUP)[1]
        cluster.stop()
        checker = Checker(TOPIC, PARTITIONS, {n: node.data_dir for n, node in cluster.nodes.items()},
                          {n: node.output() for n, node in cluster.nodes.items()}, watermarks, committed)
        group, reader = (workload.group, workload.reader) if java is None else java.histories(workload.group,
                                                                                              workload.reader)
        verdict = checker.check(Verdict(seed, len(nemesis.injected), java=None if java is None else NAME,
                                        diverged=replicas.diverged), workload.produced, group, reader)
        outputs = {p: committed_values([b
                                        for b in replica_batches(cluster.nodes[1].data_dir / f"{SINK}-{p}",
                                                                 SINK, p)
                                        if b.base_offset < sink_watermarks[p]]) for p in range(PARTITIONS)}
        verdict.anomalies += exactly_once_anomalies(checker.values, outputs, job_committed)
        log(f"nemesis: transactional job {workload.transactions.committed} committed, "
            f"{workload.transactions.aborted} aborted, {len(workload.transactions.errors)} errors; "
            f"{sum(map(len, outputs.values()))} records out for {sum(job_committed.values())} in")
        for error in workload.transactions.errors:  # what an exactly-once anomaly is explained by
            log(f"nemesis: transactional job error: {error}")
        log(f"nemesis: producers {len(workload.produced.failed)} not acknowledged (indeterminate), "
            f"{len(workload.produced.fatal)} fatal; group {len(workload.group.commits)} commits; "
            f"reader {len(workload.reader.read)} records read; high watermarks {watermarks}")
        if java is not None:
            log(java.summary())
        return verdict



@contextmanager
def hosts_and_cluster(workdir: Path, extra: dict[str, str] | None = None,
                      tag: str | None = None) -> Iterator[tuple[Hosts, NemesisCluster]]:
    """Three hosts and a formatted, started cluster on them; all of it gone afterwards."""
    hosts = Hosts(tag=tag)
    workdir.mkdir(parents=True, exist_ok=True)
    hosts.create()
    try:
        cluster = NemesisCluster(hosts, workdir, extra)
        try:
            cluster.format_and_start()
            yield hosts, cluster
        finally:
            cluster.stop()
    finally:
        hosts.destroy()


def _settle(cluster: NemesisCluster) -> bool:
    try:
        wait_until(lambda: _fully_replicated(cluster), timeout=120, message="a full ISR", interval=1)
        return True
    except AssertionError:
        return False
