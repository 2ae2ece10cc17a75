"""The checker: the recorded history against the final logs, after every fault has healed.

Jepsen's checkers judge a history, never the system's own opinion of itself; this one reads what the
clients were told (tests/nemesis/workload.py) and what the replicas hold on disk once the nodes have
stopped (each replica's segment files, read with UnifiedLog, as kafka-dump-log would), and finds:
- lost: acknowledged values absent from the log below the high watermark;
- duplicated: values present more than once (idempotence forbids it);
- reordered: an idempotent producer's acknowledged values, in one partition, at offsets out of send order;
- offsets not unique and dense below the high watermark (a gap or an overlap between batches);
- a committed group offset beyond the log end;
- a value a read_committed reader was shown that the final log does not hold at that offset (a dirty read);
- replicas that differ below the high watermark (the batches' offsets and CRCs, replica by replica);
  the ISR members against their leader, on the live cluster after each heal and at the end, are
  tests/nemesis/replica_check.py's, whose findings the verdict counts apart (diverged ISR replicas);
- two nodes that both became leader of one partition in one leader epoch (from the brokers' logs),
  and leader epochs going backwards within a replica's log.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.record_batch import RecordBatch, iter_batches
from kafka.utils.time import MockTime
from tests.nemesis.replica_check import Divergence
from tests.nemesis.workload import ConsumerHistory, ProducerHistory

PARTITION, LEADER_EPOCH = re.compile(r"\bpartition='?([^\s']+)"), re.compile(r"\bleader_epoch=(\d+)")


def leaderships(text: str) -> set[tuple[str, int]]:
    """(partition, leader epoch) of every "became leader" line of one node's log."""
    found = set()
    for line in text.splitlines():
        if "became leader" in line and (p := PARTITION.search(line)) and (e := LEADER_EPOCH.search(line)):
            found.add((p.group(1), int(e.group(1))))
    return found


def replica_batches(directory: Path, topic: str, partition: int) -> list[RecordBatch]:
    """Every batch of one replica's log, read from its segment files (the node has stopped)."""
    log = UnifiedLog(str(directory), topic, partition, LogConfig(), MockTime())
    try:
        batches: list[RecordBatch] = []
        offset = log.log_start_offset
        while offset < log.log_end_offset:
            records = bytes(log.read(offset, 1 << 30).records)
            found = list(iter_batches(records))
            if not found:
                break
            batches.extend(found)
            offset = found[-1].next_offset
        return batches
    finally:
        log.close()


@dataclass
class Verdict:
    seed: int
    faults: int
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    reordered: list[str] = field(default_factory=list)
    anomalies: list[str] = field(default_factory=list)
    # the Java producer's value prefix, counted apart in the line; None: it did not run
    java: str | None = None
    java_acknowledged: int = 0
    # ISR members unlike their leader (replica_check.py)
    diverged: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.reordered or self.anomalies or self.diverged)

    @property
    def diverged_replicas(self) -> int:
        """Replicas (partition, node) found diverged at least once, however many checks found them."""
        return len({d.replica for d in self.diverged})

    def line(self) -> str:
        line = (f"nemesis: seed {self.seed}, {self.faults} faults, {self.acknowledged} acknowledged, "
                f"{len(self.lost)} lost, {len(self.duplicated)} duplicated, {len(self.reordered)} reordered, "
                f"{self.diverged_replicas} diverged ISR replicas")
        return f"{line}; {self.java_counts()}"

    def java_counts(self) -> str:
        """The Java producer's share of the counts (its records are in the totals too)."""
        if self.java is None:
            return "Java producer not run"
        mine = [sum(x.startswith(self.java) for x in found)
                for found in (self.lost, self.duplicated, self.reordered)]
        return (f"Java producer {self.java_acknowledged} acknowledged, {mine[0]} lost, {mine[1]} duplicated, "
                f"{mine[2]} reordered")

    def details(self) -> str:
        parts = [f"  lost (first 10): {self.lost[:10]}" if self.lost else "",
                 f"  duplicated (first 10): {self.duplicated[:10]}" if self.duplicated else "",
                 f"  reordered (first 10): {self.reordered[:10]}" if self.reordered else "",
                 *(f"  anomaly: {a}" for a in self.anomalies[:30]),
                 *(f"  diverged ISR replica: {d.describe()}" for d in self.diverged[:30])]
        return "\n".join(p for p in parts if p)


class Checker:
    def __init__(self, topic: str, partitions: int, data_dirs: dict[int, Path], node_logs: dict[int, str],
                 high_watermarks: dict[int, int], committed: dict[int, int]) -> None:
        self.topic, self.partitions = topic, partitions
        self.data_dirs, self.node_logs = data_dirs, node_logs
        self.high_watermarks, self.committed = high_watermarks, committed
        self.values: dict[int, dict[int, str]] = {}  # partition -> offset -> value, once checked

    def check(self, verdict: Verdict, produced: ProducerHistory, group: ConsumerHistory,
              reader: ConsumerHistory) -> Verdict:
        verdict.acknowledged = len(produced.acknowledged)
        if verdict.java is not None:
            verdict.java_acknowledged = sum(v.startswith(verdict.java) for v in produced.acknowledged)
        logs = {p: self._replicas(p, verdict) for p in range(self.partitions)}
        values = {p: self._values(p, logs[p][min(logs[p])], verdict) for p in range(self.partitions)}
        self.values = values
        self._lost_and_duplicated(values, produced, verdict)
        self._reordered(values, produced, verdict)
        self._commits(group, verdict)
        self._dirty_reads(values, reader, verdict)
        self._leader_epochs(logs, verdict)
        return verdict

    def _replicas(self, partition: int, verdict: Verdict) -> dict[int, list[RecordBatch]]:
        """Each node's batches below the high watermark; the replicas must agree batch for batch."""
        hw = self.high_watermarks[partition]
        replicas = {node: [b for b in replica_batches(d / f"{self.topic}-{partition}", self.topic, partition)
                           if b.base_offset < hw] for node, d in self.data_dirs.items()}
        digests = {node: [(b.base_offset, b.last_offset, b.crc) for b in batches]
                   for node, batches in replicas.items()}
        first = min(digests)
        for node, digest in digests.items():
            if digest != digests[first]:
                diverged = next((a, b)
                                for a, b in zip(digest + [None], digests[first] + [None], strict=False)
                                if a != b)
                verdict.anomalies.append(f"partition {partition}: replica on node {node} differs from node "
                                         f"{first} below the high watermark {hw} at {diverged}")
        return replicas

    def _values(self, partition: int, batches: list[RecordBatch], verdict: Verdict) -> dict[int, str]:
        """offset -> value below the high watermark, checking offsets are unique and dense."""
        hw = self.high_watermarks[partition]
        expected = batches[0].base_offset if batches else 0
        found: dict[int, str] = {}
        for batch in batches:
            if batch.base_offset != expected:
                verdict.anomalies.append(f"partition {partition}: offsets not dense, batch at "
                                         f"{batch.base_offset} "
                                         f"after {expected - 1}")
            expected = batch.next_offset
            if batch.is_control_batch:
                continue
            for record in batch:
                found[record.offset] = record.value.decode() if record.value is not None else ""
        if batches and expected < hw:
            verdict.anomalies.append(f"partition {partition}: the log ends at {expected}, below the high "
                                     f"watermark {hw}")
        return found

    @staticmethod
    def _lost_and_duplicated(values: dict[int, dict[int, str]], produced: ProducerHistory,
                             verdict: Verdict) -> None:
        counts = Counter(v for by_offset in values.values() for v in by_offset.values())
        verdict.duplicated = sorted(v for v, n in counts.items() if n > 1)
        for value, (partition, offset) in produced.acknowledged.items():
            if counts[value] == 0:
                verdict.lost.append(f"{value}@{partition}:{offset}")
            elif values[partition].get(offset) != value:
                verdict.anomalies.append(
                    f"{value} acknowledged at {partition}:{offset}, in the log elsewhere")

    @staticmethod
    def _reordered(values: dict[int, dict[int, str]], produced: ProducerHistory, verdict: Verdict) -> None:
        where = {v: (p, o) for p, by_offset in values.items() for o, v in by_offset.items()}
        for sent in produced.sent.values():
            last: dict[int, tuple[int, str]] = {}
            for value in sent:
                if value not in where or value not in produced.acknowledged:
                    continue
                partition, offset = where[value]
                previous = last.get(partition)
                if previous is not None and offset < previous[0]:
                    verdict.reordered.append(f"{value}@{partition}:{offset} before "
                                             f"{previous[1]}@{previous[0]}")
                last[partition] = (offset, value)

    def _commits(self, group: ConsumerHistory, verdict: Verdict) -> None:
        for partition, offset in [*group.commits, *self.committed.items()]:
            if offset > self.high_watermarks[partition]:
                verdict.anomalies.append(f"group offset {offset} committed for partition {partition}, beyond "
                                         f"its log end {self.high_watermarks[partition]}")

    @staticmethod
    def _dirty_reads(values: dict[int, dict[int, str]], reader: ConsumerHistory, verdict: Verdict) -> None:
        for partition, offset, value in reader.read:
            if values[partition].get(offset) != value:
                verdict.anomalies.append(f"read_committed reader saw {value} at {partition}:{offset}; the "
                                         f"log holds {values[partition].get(offset)} there")

    def _leader_epochs(self, logs: dict[int, dict[int, list[RecordBatch]]], verdict: Verdict) -> None:
        leaders: dict[tuple[str, int], set[int]] = defaultdict(set)
        for node, text in self.node_logs.items():
            for partition, epoch in leaderships(text):
                leaders[(partition, epoch)].add(node)
        for (partition, epoch), nodes in sorted(leaders.items()):
            if len(nodes) > 1:
                verdict.anomalies.append(f"{partition}: nodes {sorted(nodes)} all became leader in epoch "
                                         f"{epoch}")
        for partition, replicas in logs.items():
            for node, batches in replicas.items():
                epochs = [b.partition_leader_epoch for b in batches]
                if any(b < a for a, b in zip(epochs, epochs[1:], strict=False)):
                    verdict.anomalies.append(f"partition {partition} on node {node}: leader epochs go "
                                             "backwards")
