"""Snapshottable in-memory state for the coordinators (Kafka's org.apache.kafka.timeline, server-common).

A coordinator's state is built from its log. Each object here can be read as it was at an epoch (an
offset of that log) for which the SnapshotRegistry holds a snapshot, and the registry can put every
object back to a snapshot at once, undoing a write whose append failed. A snapshot costs only what
changes after it, and deleting the committed ones frees that.
"""

from kafka.timeline.delta import Delta
from kafka.timeline.revertable import Revertable
from kafka.timeline.snapshot import Snapshot
from kafka.timeline.snapshot_registry import NoSuchSnapshotError, SnapshotRegistry
from kafka.timeline.snapshottable_hash_table import LATEST_EPOCH, SnapshottableHashTable
from kafka.timeline.timeline_hash_map import TimelineHashMap
from kafka.timeline.timeline_hash_set import TimelineHashSet
from kafka.timeline.timeline_integer import TimelineInteger
from kafka.timeline.timeline_long import TimelineLong
from kafka.timeline.timeline_object import TimelineObject

__all__ = [
    "LATEST_EPOCH",
    "Delta",
    "NoSuchSnapshotError",
    "Revertable",
    "Snapshot",
    "SnapshotRegistry",
    "SnapshottableHashTable",
    "TimelineHashMap",
    "TimelineHashSet",
    "TimelineInteger",
    "TimelineLong",
    "TimelineObject",
]
