"""The snapshot half of KafkaRaftClient (Kafka's KafkaRaftClient snapshot handling, KIP-630).

A quorum member writes a snapshot of the committed log when its MetadataLoader's SnapshotGenerator
asks (schedule_snapshot), and then drops the log before it. Three things follow:

    a listener behind the log start   gets the snapshot (read_snapshot; its ListenerContext calls
                                      handle_load_snapshot), then the records after it
    a follower behind the leader's    the leader's Fetch answer names the snapshot instead of sending
    log start                         records; the follower copies it with FetchSnapshot, chunk by
                                      chunk, installs it (the log restarts at its end) and fetches on
    a restart                         loads the latest snapshot, then replays only what follows it

A collaborator of KafkaRaftClient, which hands it the log, the quorum state, the clock, the config
and its KRaftControlRecordStateMachine (KIP-853: a kraft.version 1 snapshot starts with the voter set
at its offset), and sends and answers the requests for it; it runs on the raft thread like the rest
of the core.
"""

from __future__ import annotations

import structlog

from kafka.protocol.errors import Errors
from kafka.protocol.kraft_control_records import (
    KRAFT_VERSION,
    KRAFT_VOTERS,
    control_batch,
    control_record,
    kraft_version_value,
    voters_value,
)
from kafka.protocol.record_batch import DefaultRecord, build_batch, iter_batches
from kafka.raft.batch import Batch, SnapshotReader
from kafka.raft.epoch_state import FollowerState
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.quorum_state import QuorumState
from kafka.raft.raft_config import RaftConfig
from kafka.raft.raft_util import METADATA_TOPIC, NO_LEADER
from kafka.raft.replicated_log import OffsetAndEpoch, ReplicatedLog
from kafka.utils.time import Time

log = structlog.get_logger("kafka.raft.KafkaRaftClient")

SNAPSHOT_BATCH_RECORDS = 1000
SNAPSHOT_CHUNK_BYTES = 1 << 20


class RaftSnapshots:
    def __init__(self, node_id: int, cluster_id: str, log: ReplicatedLog, quorum: QuorumState, time: Time,
                 config: RaftConfig, partition_state: KRaftControlRecordStateMachine) -> None:
        self.node_id = node_id
        self.cluster_id = cluster_id
        self.log = log
        self.quorum = quorum
        self.time = time
        self.config = config
        self._pending_snapshot: tuple[OffsetAndEpoch, list[bytes]] | None = None  # to write at the next poll
        self._fetching_snapshot = None  # follower: [snapshot id, writer, position] while copying the leader's
        self.partition_state = partition_state  # KIP-853: the voter set a snapshot carries (kraft.version 1)

    def schedule_snapshot(self, snapshot_id: OffsetAndEpoch, records: list[bytes]) -> None:
        """Write a snapshot of the committed log below snapshot_id.offset (KIP-630), at the next poll: a
        listener asks from inside handle_commit, while the client is reading the log for it."""
        self._pending_snapshot = (snapshot_id, records)

    def maybe_write_snapshot(self) -> None:
        if self._pending_snapshot is None:
            return
        snapshot_id, records = self._pending_snapshot
        self._pending_snapshot = None
        latest = self.log.latest_snapshot_id()
        if latest is not None and snapshot_id <= latest:
            return
        writer = self.log.create_new_snapshot(snapshot_id)
        if writer is None:
            return  # not committed yet, or written already
        now = self.time.milliseconds()
        if self.partition_state.last_kraft_version() >= 1:
            writer.append(voters_snapshot_batch(self.partition_state, snapshot_id.offset - 1, now))
        for i in range(0, len(records), SNAPSHOT_BATCH_RECORDS):
            chunk = records[i:i + SNAPSHOT_BATCH_RECORDS]
            writer.append(build_batch([DefaultRecord(j, now, None, v) for j, v in enumerate(chunk)],
                                      timestamp=now))
        writer.freeze()
        self.log.on_snapshot_frozen(snapshot_id)
        self.log.delete_before_snapshot(snapshot_id)
        log.info("wrote a snapshot of the metadata log",
                 snapshot_id=f"{snapshot_id.offset}-{snapshot_id.epoch}",
                 records=len(records), log_start_offset=self.log.start_offset())

    def is_fetching(self) -> bool:
        return self._fetching_snapshot is not None

    def begin_fetching_snapshot(self, snapshot_id: OffsetAndEpoch) -> None:
        self.abandon_snapshot_fetch()
        writer = self.log.store_snapshot(snapshot_id)
        if writer is None:  # we have it already: install it
            self.log.truncate_to_latest_snapshot()
            return
        log.info("fetching the leader's snapshot: our log is behind its log start", snapshot_id=
                 f"{snapshot_id.offset}-{snapshot_id.epoch}")
        self._fetching_snapshot = [snapshot_id, writer, 0]

    def abandon_snapshot_fetch(self) -> None:
        if self._fetching_snapshot is not None:
            self._fetching_snapshot[1].close()
            self._fetching_snapshot = None

    def fetch_snapshot_request_body(self) -> dict:
        snapshot_id, _, position = self._fetching_snapshot
        return dict(cluster_id=self.cluster_id, replica_id=self.node_id, max_bytes=SNAPSHOT_CHUNK_BYTES,
                    topics=[dict(name=METADATA_TOPIC, partitions=[dict(
                        partition=0, current_leader_epoch=self.quorum.epoch, position=position,
                        snapshot_id=dict(end_offset=snapshot_id.offset, epoch=snapshot_id.epoch))])])

    def fetch_snapshot_response_body(self, body: dict) -> dict:
        """The leader's answer to a FetchSnapshot (its cluster id already checked): the next chunk."""
        p = body["topics"][0]["partitions"][0]
        snapshot_id = OffsetAndEpoch(p["snapshot_id"]["end_offset"], p["snapshot_id"]["epoch"])
        leader = dict(leader_id=NO_LEADER if self.quorum.leader_id is None else self.quorum.leader_id,
                      leader_epoch=self.quorum.epoch)
        partition = dict(index=0, error_code=Errors.NONE, snapshot_id=p["snapshot_id"], current_leader=leader,
                         size=0, position=p["position"], unaligned_records=b"")
        reader = self.log.read_snapshot(snapshot_id) if self.quorum.is_leader() else None
        if not self.quorum.is_leader():
            partition["error_code"] = Errors.NOT_LEADER_OR_FOLLOWER
        elif reader is None:
            partition["error_code"] = Errors.SNAPSHOT_NOT_FOUND
        elif p["position"] < 0 or p["position"] > reader.size_in_bytes():
            partition["error_code"] = Errors.POSITION_OUT_OF_RANGE
        else:
            partition["size"] = reader.size_in_bytes()
            partition["unaligned_records"] = reader.read(p["position"],
                                                         min(body["max_bytes"], SNAPSHOT_CHUNK_BYTES))
        return dict(throttle_time_ms=0, error_code=Errors.NONE,
                    topics=[dict(name=METADATA_TOPIC, partitions=[partition])])

    def handle_fetch_snapshot_response(self, source: int, body) -> None:
        if self._fetching_snapshot is None:
            return
        p = body["topics"][0]["partitions"][0]
        if p["error_code"] != Errors.NONE:  # the leader moved on (a newer snapshot): fetch the log again
            self.abandon_snapshot_fetch()
            return
        state = self.quorum.state
        if isinstance(state, FollowerState):
            state.fetch_deadline_ms = self.time.milliseconds() + self.config.fetch_timeout_ms
            state.has_fetched_from_leader = True  # it answers: refuse pre-votes (KIP-996)
        snapshot_id, writer, position = self._fetching_snapshot
        data = bytes(p["unaligned_records"] or b"")
        if p["position"] != position:
            return
        writer.append(data)
        self._fetching_snapshot[2] = position + len(data)
        if self._fetching_snapshot[2] >= p["size"]:
            writer.freeze()
            self.log.on_snapshot_frozen(snapshot_id)
            self._fetching_snapshot = None
            self.log.truncate_to_latest_snapshot()
            log.info("installed the leader's snapshot",
                     snapshot_id=f"{snapshot_id.offset}-{snapshot_id.epoch}")

    def read_snapshot(self, snapshot_id: OffsetAndEpoch) -> SnapshotReader:
        """The snapshot as a listener behind the log start is handed it, instead of the records it
        replaces."""
        reader = self.log.read_snapshot(snapshot_id)
        batches = [Batch(b.base_offset, b.last_offset, snapshot_id.epoch, b.max_timestamp, b.size_in_bytes,
                         [r.value for r in b]) for b in iter_batches(reader.records())
                         if not b.is_control_batch]
        last_timestamp = max((b.append_timestamp for b in batches), default=-1)
        return SnapshotReader(snapshot_id, last_timestamp, batches)


def voters_snapshot_batch(partition_state, offset: int, now: int) -> bytes:
    """The kraft.version and voter set at `offset`, as the control batch a snapshot starts with (KIP-853):
    a replica that loads the snapshot instead of the log still knows who votes."""
    voters = partition_state.voter_set_at_offset(offset)
    return control_batch(0, now, -1, [
        control_record(KRAFT_VERSION, kraft_version_value(partition_state.last_kraft_version())),
        control_record(KRAFT_VOTERS, voters_value(voters.to_voters_record()))])
