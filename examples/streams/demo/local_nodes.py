"""`make cluster`'s nodes as the demo kills and restarts them: found on this machine, killed with SIGKILL,
started again by `make cluster` itself.

Not a Kafka class: what you would do by hand with ``ps`` and ``kill -9``. A node's process is the one
listening on its broker port (Linux's /proc: /proc/net/tcp names the listening socket's inode,
/proc/<pid>/fd the process holding it), as kafka/spark/demo/leader_failover.py finds a leader. Its parent is
`make cluster`'s supervisor (kafka/tools/local_cluster.py): SIGUSR1 asks it to start its dead nodes again, so
the node comes back under `make cluster`, in its terminal, and stops with it on Ctrl-C. A node started some
other way is started again by the demo with the command line and directory it had, its output in a log file.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kafka.clients.admin import AdminClient

LISTEN = "0A"  # the TCP state column of /proc/net/tcp
SUPERVISOR = "kafka.tools.local_cluster"


@dataclass(frozen=True)
class NodeProcess:
    node_id: int
    host: str
    port: int
    pid: int
    argv: list[str]
    cwd: str
    parent: int


class LocalNodes:
    """The demo's Brokers for nodes running on this machine."""

    def __init__(self, bootstrap: str, log_dir: Path) -> None:
        self.bootstrap = bootstrap
        self.log_dir = log_dir
        self.killed: dict[int, NodeProcess] = {}

    def find(self, node_id: int) -> NodeProcess:
        with AdminClient({"bootstrap.servers": self.bootstrap}) as admin:
            node = next((b for b in admin.describe_cluster()[2] if b.node_id == node_id), None)
        if node is None:
            raise SystemExit(f"broker {node_id} is not in the cluster")
        pid = listening_pid(node.host, node.port)
        if pid is None:
            raise SystemExit(f"no process on this machine listens on {node.host}:{node.port} (broker "
                             f"{node_id}): the demo kills a local node; is the cluster on another machine?")
        proc = Path("/proc") / str(pid)
        argv = (proc / "cmdline").read_bytes().rstrip(b"\0").decode().split("\0")
        parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        return NodeProcess(node_id, node.host, node.port, pid, argv, os.readlink(proc / "cwd"), parent)

    def kill(self, node_id: int) -> None:
        node = self.find(node_id)
        os.kill(node.pid, signal.SIGKILL)
        self.killed[node_id] = node

    def restart(self, node_id: int) -> None:
        node = self.killed.pop(node_id)
        if SUPERVISOR in _cmdline(node.parent):
            os.kill(node.parent, signal.SIGUSR1)  # make cluster starts its dead nodes again
        else:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            with open(self.log_dir / f"node-{node_id}.log", "ab") as log:
                subprocess.Popen(node.argv, cwd=node.cwd, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        deadline = time.monotonic() + 60
        while listening_pid(node.host, node.port) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"broker {node_id} is not listening on {node.host}:{node.port} after 60 s")
            time.sleep(0.2)


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def listening_pid(host: str, port: int, proc: Path = Path("/proc")) -> int | None:
    """The process listening on ``host:port`` (a TCP socket in state LISTEN), or None."""
    ip = socket.inet_aton(socket.gethostbyname(host))
    wanted = {f"{''.join(f'{b:02X}' for b in reversed(ip))}:{port:04X}", f"00000000:{port:04X}"}
    inodes = set()
    for table in ("tcp", "tcp6"):
        path = proc / "net" / table
        for line in path.read_text().splitlines()[1:] if path.exists() else []:
            fields = line.split()
            if fields[1] in wanted and fields[3] == LISTEN:
                inodes.add(f"socket:[{fields[9]}]")
    for process in (p for p in proc.iterdir() if inodes and p.name.isdigit() and int(p.name) != os.getpid()):
        try:
            if any(os.readlink(fd) in inodes for fd in (process / "fd").iterdir()):
                return int(process.name)
        except OSError:  # gone meanwhile, or not ours to look at
            continue
    return None
