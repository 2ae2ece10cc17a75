"""The replica check: every ISR member's log equals its leader's below the high watermark.

Why: acks=all acknowledges a record once every member of the ISR has it, and the controller elects
the next leader from the ISR only (unclean election is off). So any ISR member may be the log everyone
follows after the next failover, and the promise holds only if each member's log *is* the leader's
below the high watermark. A member that rejoined the ISR with a log that diverges there (a healed old
leader that kept a tail nobody acknowledged, say) is a loss waiting for an election: the clients'
verdict (tests/nemesis/checker.py) sees nothing until that election happens, and may never see it.
This check reads the replicas themselves, on the live cluster.

When: after each heal, between two faults (tests/nemesis/nemesis.py calls it), and at the end of a run
before the nodes stop (tests/nemesis/run.py). Each time:
1. the cluster's view of each partition, asked of every node: the check waits, up to a deadline, until
   every node describes the same leader and ISR for every partition and every replica is in the ISR,
   so a healed member has had the chance to catch up and rejoin (a node just healed answers from its
   old metadata until it catches up: the nodes must agree, as `whole_again` in
   tests/nemesis/test_leader_cut_off.py waits for). At the deadline it judges the last view the nodes
   agreed on, and nothing if they never agreed;
2. each partition's high watermark: ListOffsets(latest), which the admin client sends to the leader;
3. the leader's and every other ISR member's log, read from the segment files read-only (opening a live
   directory with UnifiedLog could run recovery and write files): every complete batch, up to the first
   partial one, which the broker is still writing;
4. below min(high watermark, that member's log end), the member's batches against the leader's, by
   base offset, last offset and CRC (which leaves out the leader epoch a follower does not rewrite). A
   follower may lag behind the high watermark; any batch it holds below it must be the leader's.
A nemesis run deletes nothing (no retention, no DeleteRecords), so every replica's log starts at 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from kafka.clients.metadata import PartitionInfo
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import wait_until

BatchDigest = tuple[int, int, int]  # (base offset, last offset, CRC): a batch as every replica must hold it
View = tuple[PartitionInfo, ...]  # every partition of the checked topics, as one node describes them


def segment_digests(directory: Path) -> list[BatchDigest]:
    """Every complete batch of one replica's log, in offset order, from its segment files, read-only.

    Segments are named by their base offset in 20 digits, so sorted names are log order. The read
    stops at the first partial batch: the broker is still appending it (or a kill -9 cut it short and
    recovery will truncate it), and nothing after it is written yet."""
    digests: list[BatchDigest] = []
    for segment in sorted(directory.glob("*.log")):
        data = segment.read_bytes()
        complete = 0
        for batch in iter_batches(data):
            digests.append((batch.base_offset, batch.last_offset, batch.crc))
            complete += batch.size_in_bytes
        if complete < len(data):
            break
    return digests


def read_replica(directory: Path, attempts: int = 3) -> list[BatchDigest] | None:
    """segment_digests, read again if a segment vanished under the read (a follower truncating);
    None if it kept vanishing."""
    for _ in range(attempts):
        try:
            return segment_digests(directory)
        except FileNotFoundError:
            continue
    return None


def first_difference(leader: list[BatchDigest], follower: list[BatchDigest],
                     high_watermark: int) -> tuple[BatchDigest | None, BatchDigest | None] | None:
    """The first batch at which a follower's log differs from its leader's below min(high watermark,
    the follower's log end), as (the leader's batch, the follower's batch), None standing for a batch
    one of them lacks; None if they agree there. Past its log end a follower is only behind."""
    follower_end = follower[-1][1] + 1 if follower else 0
    limit = min(high_watermark, follower_end)
    ours = [b for b in leader if b[0] < limit]
    theirs = [b for b in follower if b[0] < limit]
    return next(((a, b) for a, b in zip_longest(ours, theirs) if a != b), None)


def _batch(digest: BatchDigest | None) -> str:
    return "no batch" if digest is None else f"offsets {digest[0]}..{digest[1]} (CRC {digest[2]:#010x})"


@dataclass(frozen=True)
class Divergence:
    """One ISR member found differing from its leader below the high watermark, and when."""

    partition: str  # topic-partition
    node: int
    leader: int
    isr: tuple[int, ...]
    high_watermark: int
    leaders_batch: BatchDigest | None
    members_batch: BatchDigest | None
    when: str  # "after heal 3 (split)", "at the end"

    @property
    def replica(self) -> tuple[str, int]:
        return self.partition, self.node

    def describe(self) -> str:
        return (f"{self.partition} on node {self.node} (ISR {list(self.isr)}, leader {self.leader}) "
                f"{self.when}: below the high watermark {self.high_watermark} its first differing batch is "
                f"{_batch(self.members_batch)}, the leader's {_batch(self.leaders_batch)}")


def node_view(node, topics: list[str]) -> View | None:
    """Every partition of `topics` as this node alone describes it (ISR sorted), or None if it cannot
    answer yet. The Metadata request goes to the bootstrap connection (id -1) itself: an admin
    client's describe_topics goes to whichever node it picks once it knows the cluster, which would
    make three nodes' views one node's."""
    try:
        with node.admin() as admin:
            body = {"topics": [{"name": t} for t in topics], "allow_auto_topic_creation": False}
            response = admin.client.send_and_wait(-1, ApiKey.METADATA, body, admin.timeout_ms).body
    except Exception:  # noqa: BLE001 - a node still starting or recovering: not an answer yet
        return None
    if any(t.error_code != Errors.NONE for t in response.topics) or len(response.topics) != len(topics):
        return None
    partitions = [PartitionInfo(t.name, p.partition_index, p.leader_id, tuple(p.replica_nodes),
                                tuple(sorted(p.isr_nodes)))
                  for t in response.topics for p in t.partitions]
    return tuple(sorted(partitions, key=lambda p: (p.topic, p.partition)))


def agreed_view(nodes, topics: list[str]) -> View | None:
    """The view every node gives, if they all answer and all give the same one; else None."""
    views = set()
    for node in nodes:
        view = node_view(node, topics)
        if view is None:
            return None
        views.add(view)
    return views.pop() if len(views) == 1 else None


def whole(view: View) -> bool:
    """Every partition led, every replica in its ISR."""
    return all(p.leader >= 0 and sorted(p.replicas) == list(p.isr) for p in view)


class ReplicaCheck:
    """Checks a live cluster's ISR members against their leaders when called; keeps what it found."""

    def __init__(self, cluster, topics: list[str], log: Callable[[str], None] = print) -> None:
        self.cluster, self.topics, self.log = cluster, topics, log
        self.diverged: list[Divergence] = []

    def check(self, when: str, timeout: float) -> list[Divergence]:
        """Compare every ISR member with its leader once the nodes agree (waiting up to `timeout`
        seconds for a full ISR); log what was compared and any divergence, and return the latter."""
        started = time.monotonic()
        view, complete = self._agreed(timeout)
        if view is None:
            self.log(f"nemesis: replicas {when}: not compared, the nodes did not agree on leaders and ISRs "
                     f"within {timeout:.0f}s")
            return []
        try:
            high_watermarks = self._high_watermarks(view)
        except Exception as error:  # noqa: BLE001 - a leader moving again: judged at the next heal
            self.log(f"nemesis: replicas {when}: not compared, no high watermarks: {error}")
            return []
        found, compared, unread = [], 0, 0
        for p in view:
            if p.leader < 0:
                continue  # no leader, no high watermark: nothing to hold the ISR to
            name = f"{p.topic}-{p.partition}"
            leaders_log = read_replica(self.cluster.nodes[p.leader].data_dir / name)
            for member in p.isr:
                if member == p.leader:
                    continue
                members_log = read_replica(self.cluster.nodes[member].data_dir / name)
                if leaders_log is None or members_log is None:
                    unread += 1
                    continue
                compared += 1
                difference = first_difference(leaders_log, members_log,
                                              high_watermarks[(p.topic, p.partition)])
                if difference is not None:
                    found.append(Divergence(name, member, p.leader, p.isr,
                                            high_watermarks[(p.topic, p.partition)],
                                            *difference, when))
        self.diverged += found
        self.log(f"nemesis: replicas {when}: {compared} ISR followers compared with their leaders below the "
                 f"high watermark, {len(found)} diverged" + ("" if complete else "; the ISR was not full")
                 + (f"; {unread} not readable" if unread else "") + f" ({time.monotonic() - started:.1f}s)")
        for divergence in found:
            self.log(f"nemesis: diverged ISR replica: {divergence.describe()}")
        return found

    def _agreed(self, timeout: float) -> tuple[View | None, bool]:
        """(the view every node agrees on, whether it is whole): the first whole one within `timeout`,
        else the last one they agreed on, else None."""
        last: list[View] = []

        def agreed_and_whole() -> View | None:
            view = agreed_view(self.cluster.nodes.values(), self.topics)
            if view is not None:
                last[:] = [view]
            return view if view is not None and whole(view) else None

        try:
            return wait_until(agreed_and_whole, timeout=timeout, message="leaders and ISRs agreed",
                              interval=0.5), True
        except AssertionError:
            return (last[0] if last else None), False

    def _high_watermarks(self, view: View) -> dict[tuple[str, int], int]:
        """ListOffsets(latest) of every led partition, which the admin client asks of each leader."""
        specs = {TopicPartition(p.topic, p.partition): "latest" for p in view if p.leader >= 0}
        node = next(iter(self.cluster.nodes.values()))
        with node.admin() as admin:
            return {(tp.topic, tp.partition): offset for tp, (offset, _) in admin.list_offsets(specs).items()}
