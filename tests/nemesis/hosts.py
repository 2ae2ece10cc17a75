"""Hosts: three nodes, each in its own network namespace on one bridge, whose links the nemesis cuts.

Jepsen runs every database node on a host of its own so that a partition drops packets between
hosts, not between two ports of one process. Here each node gets a Linux network namespace
(`ip netns`) with one veth pair whose other end sits on a bridge; the clients stay in the root
namespace and reach the nodes through the bridge's own address. A cut link is a pair of blackhole
routes, one in each host, so the kernel drops every packet between the two addresses: established
TCP connections stall and retransmit (and resume when the link heals), new connections fail. The
broker knows nothing of it: nothing is faked inside the process.

Why routes and not iptables or `tc netem`: this is what the kernel offers everywhere the harness
runs (a Firecracker VM kernel has no netfilter tools and no sch_netem module); `tc_available`
says whether netem works, and the nemesis skips the faults that need it with that reason.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable

CLIENT = 0  # the root namespace, where the workloads run
UNROUTABLE_METRIC = "4096"  # the subnet's fallback blackhole route, below the bridge's in preference


def _ip(*args: str, netns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    command = ["ip", *args] if netns is None else ["ip", "netns", "exec", netns, "ip", *args]
    return subprocess.run(command, capture_output=True, text=True, check=check, timeout=30)


def unavailable_reason() -> str | None:
    """Why namespaces, veth pairs and a bridge cannot be made here (None when they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    probe = f"nmprobe{os.getpid() % 100000}"
    try:
        result = _ip("netns", "add", probe, check=False)
        if result.returncode != 0:
            return f"ip netns add failed: {result.stderr.strip()}"
        _ip("netns", "del", probe, check=False)
        result = _ip("link", "add", probe[:15], "type", "bridge", check=False)
        if result.returncode != 0:
            return f"cannot make a bridge: {result.stderr.strip()}"
        _ip("link", "del", probe[:15], check=False)
    except FileNotFoundError:
        return "iproute2 (the ip command) is not installed"
    return None


def netem_unavailable_reason() -> str | None:
    """Why `tc qdisc ... netem` (loss, delay) cannot be used here (None when it can)."""
    probe = f"nmq{os.getpid() % 100000}"
    try:
        _ip("link", "add", probe, "type", "veth", "peer", "name", f"{probe}p", check=False)
        result = subprocess.run(["tc", "qdisc", "add", "dev", probe, "root", "netem", "delay", "1ms"],
                                capture_output=True, text=True, timeout=30)
        return None if result.returncode == 0 else f"tc netem: {result.stderr.strip() or 'refused'}"
    except FileNotFoundError:
        return "tc (iproute2) is not installed"
    finally:
        _ip("link", "del", probe, check=False)


class Hosts:
    """The bridge, one namespace per node and the links between them (node ids 1..n, CLIENT = 0)."""

    def __init__(self, size: int = 3, tag: str | None = None) -> None:
        tag = tag or f"{os.getpid() % 10000}"
        self.size = size
        self.bridge = f"nmbr{tag}"[:15]
        self.subnet = f"10.{99 + (int(tag) // 250) % 100}.{int(tag) % 250}"
        self.namespaces = {node: f"nm{tag}n{node}" for node in range(1, size + 1)}
        self.cut_links: set[frozenset[int]] = set()
        self.netem_links: set[int] = set()

    def address(self, host: int) -> str:
        return f"{self.subnet}.{254 if host == CLIENT else host}"

    def create(self) -> None:
        # The subnet never leaves this machine, even after destroy(): a client still retrying a node
        # (a stuck job's librdkafka threads live until the process exits) would otherwise send its
        # SYNs out of the default route to a private address nobody here owns. The bridge's own route
        # wins while it exists (metric 0); this one drops what is sent after. It is left in place,
        # one per tag (so at most 10,000), and made again, harmlessly, by the next Hosts of that tag.
        _ip("route", "add", "blackhole", f"{self.subnet}.0/24", "metric", UNROUTABLE_METRIC, check=False)
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.address(CLIENT)}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for node, netns in self.namespaces.items():
            outside, inside = f"{netns}h"[:15], f"{netns}p"[:15]
            _ip("netns", "add", netns)
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", netns)
            _ip("link", "set", outside, "master", self.bridge)
            _ip("link", "set", outside, "up")
            _ip("addr", "add", f"{self.address(node)}/24", "dev", inside, netns=netns)
            _ip("link", "set", inside, "up", netns=netns)
            _ip("link", "set", "lo", "up", netns=netns)

    def destroy(self) -> None:
        for netns in self.namespaces.values():
            _ip("link", "del", f"{netns}h"[:15], check=False)
            _ip("netns", "del", netns, check=False)
        for host in range(1, self.size + 1):
            _ip("route", "del", "blackhole", f"{self.address(host)}/32", check=False)
        _ip("link", "del", self.bridge, check=False)

    def exec_prefix(self, node: int) -> list[str]:
        """The command prefix that runs a process on this node's host."""
        return ["ip", "netns", "exec", self.namespaces[node]]

    # ------------------------------------------------------------------ links
    def _route(self, action: str, host: int, peer: int) -> None:
        netns = None if host == CLIENT else self.namespaces[host]
        _ip("route", action, "blackhole", f"{self.address(peer)}/32", netns=netns, check=action == "add")

    def cut(self, a: int, b: int) -> None:
        """Drop every packet between hosts a and b, both ways."""
        link = frozenset((a, b))
        if link in self.cut_links:
            return
        self._route("add", a, b)
        self._route("add", b, a)
        self.cut_links.add(link)

    def partition(self, links: Iterable[tuple[int, int]]) -> None:
        for a, b in links:
            self.cut(a, b)

    def heal(self) -> None:
        """Every link back: the blackhole routes removed, delay and loss off."""
        for link in list(self.cut_links):
            a, b = tuple(link)
            self._route("del", a, b)
            self._route("del", b, a)
        self.cut_links.clear()
        for node in list(self.netem_links):
            self.clear_netem(node)

    # ------------------------------------------------------------------ tc netem (where the kernel has it)
    def netem(self, node: int, *spec: str) -> None:
        """Loss or delay on everything a node sends, e.g. netem(1, "loss", "20%") or ("delay", "200ms")."""
        subprocess.run(["ip", "netns", "exec", self.namespaces[node], "tc", "qdisc", "replace", "dev",
                        f"{self.namespaces[node]}p"[:15], "root", "netem", *spec], check=True,
                       capture_output=True, timeout=30)
        self.netem_links.add(node)

    def clear_netem(self, node: int) -> None:
        subprocess.run(["ip", "netns", "exec", self.namespaces[node], "tc", "qdisc", "del", "dev",
                        f"{self.namespaces[node]}p"[:15], "root"], capture_output=True, timeout=30)
        self.netem_links.discard(node)
