"""The demo's broker failure: SIGKILL the process that leads one partition, then watch a new leader come.

Not a Kafka class: what you would do by hand with ``kafka-topics --describe`` (who leads
``page-views-0``?) and ``kill -9`` (of that node's process). The leader is asked of the cluster
(Metadata); its process is the one listening on the leader's advertised port, found in Linux's
``/proc`` (``/proc/net/tcp`` names the listening socket's inode, ``/proc/<pid>/fd`` the process
holding it), so it works for ``make cluster``'s nodes and for any node started by hand on this
machine. Seed 004: the controller fences the silent broker (``broker.session.timeout.ms``) and
elects a new leader from the ISR; a producer with ``acks=all`` loses nothing it was told was written.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from kafka.clients.admin import AdminClient
from kafka.utils.topic_partition import TopicPartition

LISTEN = "0A"  # the TCP state column of /proc/net/tcp


@dataclass(frozen=True)
class KilledLeader:
    tp: TopicPartition
    node_id: int
    address: str
    pid: int
    killed_at: float  # time.monotonic()


def _proc_net_address(host: str, port: int) -> set[str]:
    """``127.0.0.1:9092`` as /proc/net/tcp writes it (``0100007F:2384``), and the any-address form."""
    ip = socket.inet_aton(socket.gethostbyname(host))
    as_proc = "".join(f"{b:02X}" for b in reversed(ip))
    return {f"{as_proc}:{port:04X}", f"00000000:{port:04X}"}


def listening_pid(host: str, port: int, proc: Path = Path("/proc")) -> int | None:
    """The process listening on ``host:port`` (a TCP socket in state LISTEN), or None."""
    wanted = _proc_net_address(host, port)
    inodes = set()
    for table in ("tcp", "tcp6"):
        path = proc / "net" / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1] in wanted and fields[3] == LISTEN:
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for process in proc.iterdir():
        if not process.name.isdigit() or int(process.name) == os.getpid():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (process / "fd").iterdir()):
                return int(process.name)
        except OSError:  # gone meanwhile, or not ours to look at
            continue
    return None


def partition_leader(admin: AdminClient, tp: TopicPartition) -> int:
    return admin.describe_topics([tp.topic])[tp.topic].partitions[tp.partition].leader


def kill_partition_leader(bootstrap: str, tp: TopicPartition, min_brokers: int = 3) -> KilledLeader:
    """SIGKILL the node leading ``tp``; refuses unless ``min_brokers`` brokers are up (killing one of
    two would leave the KRaft quorum, and ``tp``'s ISR, without a majority to fail over to)."""
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        _, _, brokers = admin.describe_cluster()
        if len(brokers) < min_brokers:
            raise SystemExit(f"--kill-leader needs {min_brokers} live brokers, the cluster has "
                             f"{len(brokers)} ({', '.join(str(b.node_id) for b in brokers)}): restart the "
                             "missing node first (kafka-server-start config/cluster/node-N.properties)")
        leader = partition_leader(admin, tp)
    node = next((b for b in brokers if b.node_id == leader), None)
    if node is None:
        raise SystemExit(f"{tp.topic}-{tp.partition} has no live leader (leader {leader})")
    pid = listening_pid(node.host, node.port)
    if pid is None:
        raise SystemExit(f"no process on this machine listens on {node.host}:{node.port} (node {leader}): "
                         "--kill-leader kills a local node; is the cluster on another machine?")
    os.kill(pid, signal.SIGKILL)
    return KilledLeader(tp, leader, f"{node.host}:{node.port}", pid, time.monotonic())


def await_new_leader(bootstrap: str, killed: KilledLeader, timeout: float = 60.0) -> int | None:
    """The node that leads ``killed.tp`` once the controller has moved it, or None after ``timeout``."""
    servers = ",".join(s for s in bootstrap.split(",") if s.strip() != killed.address)
    deadline = time.monotonic() + timeout
    with AdminClient({"bootstrap.servers": servers, "request.timeout.ms": 5000}) as admin:
        while time.monotonic() < deadline:
            try:
                leader = partition_leader(admin, killed.tp)
            except Exception:  # a survivor busy with the failover: ask again
                leader = -1
            if leader >= 0 and leader != killed.node_id:
                return leader
            time.sleep(0.2)
    return None
