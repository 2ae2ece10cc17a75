"""The nemesis: a schedule of faults drawn from a seed, applied to the hosts and nodes of a run.

As in Jepsen, faults alternate with quiet periods: a fault holds for a few seconds, everything heals,
the cluster gets a moment, the next fault comes. The whole schedule (kind, target, when, how long)
comes from `random.Random(seed)`, so a seed replays a run; only "the active controller" is resolved
when its fault starts, because which node leads the quorum then is the point of that fault.

The kinds:
- isolate: one node cut from everyone (the other nodes and the clients);
- split: one node cut from the other two, still reachable by its clients (Jepsen 2013's case: a
  leader cut from the ISR and the controller that still takes writes);
- isolate-controller: the active controller cut from everyone;
- bridge: nodes a and c cut from each other, both still see b;
- pause: SIGSTOP for longer than broker.session.timeout.ms, then SIGCONT (a zombie that wakes up
  believing it still leads);
- kill: kill -9, restarted after the fault's duration;
- loss, delay: `tc netem` on one node's link (skipped, with the reason, where the kernel has no netem).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.nemesis.cluster import NemesisCluster
from tests.nemesis.hosts import CLIENT, Hosts

PARTITIONS = ("isolate", "split", "isolate-controller", "bridge")
PROCESS_FAULTS = ("pause", "kill")
NETEM_FAULTS = ("loss", "delay")


@dataclass(frozen=True)
class Fault:
    at: float          # seconds after the start of the run
    kind: str
    target: int        # a node id; for bridge, the middle node; ignored by isolate-controller
    duration: float

    def describe(self) -> str:
        target = "the active controller" if self.kind == "isolate-controller" else f"node {self.target}"
        return f"{self.at:7.1f}s {self.kind:<19} {target} for {self.duration:.1f}s"


def schedule(seed: int, duration: float, nodes: int = 3, netem: bool = True) -> list[Fault]:
    """The faults of a run, drawn from the seed only: the same seed gives the same list."""
    rng = random.Random(seed)
    kinds = PARTITIONS + PROCESS_FAULTS + (NETEM_FAULTS if netem else ())
    faults = []
    at = rng.uniform(3, 6)  # the workloads get going first
    while True:
        kind = rng.choice(kinds)
        length = rng.uniform(6, 10) if kind == "pause" else rng.uniform(3, 8)
        if at + length > duration:
            return faults
        faults.append(Fault(round(at, 1), kind, rng.randint(1, nodes), round(length, 1)))
        at += length + rng.uniform(2, 5)


class Nemesis:
    """Applies a schedule; `heal` undoes whatever is in force (links, pauses, kills).

    `after_heal(k, fault)`, if given, runs after the k-th fault has healed, before the next one (the
    replica check, tests/nemesis/replica_check.py). The schedule waits for it: the time it takes is
    added to every later fault's start, so each quiet period still begins when it returns and the run
    lasts that much longer than its duration."""

    def __init__(self, hosts: Hosts, cluster: NemesisCluster, log=print,
                 after_heal: Callable[[int, Fault], object] | None = None) -> None:
        self.hosts = hosts
        self.cluster = cluster
        self.log = log
        self.after_heal = after_heal
        self.injected: list[str] = []

    def run(self, faults: list[Fault], start: float, clock=time.monotonic, sleep=time.sleep) -> None:
        for k, fault in enumerate(faults, 1):
            sleep(max(0.0, start + fault.at - clock()))
            applied = self.apply(fault)
            self.log(f"nemesis: {fault.describe()}{'' if applied is None else ': ' + applied}")
            sleep(max(0.0, start + fault.at + fault.duration - clock()))
            self.heal()
            if self.after_heal is not None:
                healed = clock()
                self.after_heal(k, fault)
                start += clock() - healed

    def apply(self, fault: Fault) -> str | None:
        others = [n for n in self.cluster.nodes if n != fault.target]
        if fault.kind == "isolate-controller":
            leader = self.cluster.active_controller()
            if leader is None:
                return "no active controller found, nothing done"
            self.hosts.partition([(leader, peer) for peer in [*self.cluster.nodes, CLIENT] if peer != leader])
            self.injected.append(fault.kind)
            return f"node {leader}"
        if fault.kind == "isolate":
            self.hosts.partition([(fault.target, peer) for peer in [*others, CLIENT]])
        elif fault.kind == "split":
            self.hosts.partition([(fault.target, peer) for peer in others])
        elif fault.kind == "bridge":
            self.hosts.cut(*others)
        elif fault.kind == "pause":
            self.cluster.nodes[fault.target].pause()
        elif fault.kind == "kill":
            self.cluster.nodes[fault.target].kill()
        elif fault.kind == "loss":
            self.hosts.netem(fault.target, "loss", "30%")
        elif fault.kind == "delay":
            self.hosts.netem(fault.target, "delay", "300ms", "100ms")
        self.injected.append(fault.kind)
        return None

    def heal(self) -> None:
        self.hosts.heal()
        self.cluster.restore()
