"""Where a streaming query is in Kafka, read from its checkpoint: Spark's ``OffsetSeqLog`` and ``CommitLog``.

Seed 002: a consumer reads a partition *by offset*; the broker does not remember where it is, the
consumer does. A Spark query remembers in its checkpoint, not in a consumer group:

    <checkpoint>/offsets/N    written before batch N runs: the end offsets the batch reads up to
    <checkpoint>/commits/N    written once batch N's output is done

``offsets/N`` is Spark's ``OffsetSeq``: a version line (``v1``), a line of batch metadata (the
watermark, the batch time, a few confs), then one line per source, the source's offset as JSON
(``-`` for a source with none yet). The Kafka source's offset is ``{"topic": {"partition": offset}}``,
the *next* offset to read in each partition, so the batch read ``[previous batch's end, this end)``.

A batch with ``offsets/N`` but no ``commits/N`` died mid-way: a restarted query runs it again with
the same range. So the query's position is the end offsets of the last *committed* batch; that is
what ``committed_offsets`` returns, and what ``kafka-get-offsets`` (the log end offsets) should equal
once the query has caught up. Lab 10 (docs/labs/10-spark.md) asks you to write it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kafka.utils.topic_partition import TopicPartition

OFFSET_LOG_VERSION = "v1"


@dataclass(frozen=True)
class CommittedBatch:
    batch_id: int
    offsets: dict[TopicPartition, int]  # the next offset the query reads, per partition

    def describe(self) -> str:
        """``page-views 0:59 1:89 2:108``, one topic after another."""
        topics: dict[str, list[str]] = {}
        for tp in sorted(self.offsets, key=lambda tp: (tp.topic, tp.partition)):
            topics.setdefault(tp.topic, []).append(f"{tp.partition}:{self.offsets[tp]}")
        return "; ".join(f"{topic} {' '.join(parts)}" for topic, parts in topics.items())


def batch_files(directory: Path) -> dict[int, Path]:
    """The batch files of ``offsets/`` or ``commits/`` by batch id (Spark also leaves ``.N.crc`` and
    ``.N.tmp`` files there, which are not batches)."""
    if not directory.is_dir():
        return {}
    return {int(p.name): p for p in directory.iterdir() if p.name.isdigit()}


def committed_offsets(checkpoint: str | Path) -> CommittedBatch | None:
    """The last batch that has both ``offsets/N`` and ``commits/N``, and the end offsets of its only
    source (a Kafka source); None while no batch is committed."""
    # BEGIN LAB 10 SOLUTION: the last batch id with both offsets/N and commits/N, and its offsets/N source
    # line as {TopicPartition: offset}
    checkpoint = Path(checkpoint)
    offsets, commits = batch_files(checkpoint / "offsets"), batch_files(checkpoint / "commits")
    committed = [batch_id for batch_id in offsets if batch_id in commits]
    if not committed:
        return None
    batch_id = max(committed)
    lines = offsets[batch_id].read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != OFFSET_LOG_VERSION:
        raise ValueError(f"{offsets[batch_id]}: not a Spark offset log entry (first line {lines[:1]})")
    source = json.loads(lines[2])
    return CommittedBatch(batch_id, {TopicPartition(topic, int(partition)): offset
                                     for topic, partitions in source.items()
                                     for partition, offset in partitions.items()})
    # END LAB 10 SOLUTION
