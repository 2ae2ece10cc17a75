"""ListenerContext: how far one listener of the raft client has been told
(Kafka's KafkaRaftClient.ListenerContext).

The raft client's listeners (RaftListener: the QuorumController, the MetadataLoader) learn the
committed log from the raft thread, in poll(), each at its own pace. So the client keeps one context
per listener: the next offset that listener has not seen, and the leader it was last told of. The
three promises of Kafka's RaftClient.Listener follow from those two fields:

    handle_load_snapshot   a listener behind the log start gets the latest snapshot instead of the
                           records it replaces, and goes on from the snapshot's end
    handle_commit          every committed batch below the high watermark, in order, exactly once
                           (control batches such as the LeaderChangeMessage are passed over,
                           but for handle_control_batch(last_offset) to a listener that has it)
    handle_leader_change   each new leader once, but a new leader's own listener only once it has
                           replayed everything before the leader's epoch: the controller must not
                           decide anything on a state it has not caught up with

A context reads the log and the snapshots it is handed; it changes neither.
"""

from __future__ import annotations

from kafka.protocol.record_batch import iter_batches
from kafka.raft.batch import Batch, LeaderAndEpoch, SnapshotReader
from kafka.raft.raft_listener import RaftListener
from kafka.raft.raft_snapshots import RaftSnapshots
from kafka.raft.replicated_log import ReplicatedLog


class ListenerContext:
    def __init__(self, listener: RaftListener) -> None:
        self.listener = listener
        self.next_offset = 0  # the first offset this listener has not been given
        self.last_leader: LeaderAndEpoch | None = None

    def update_progress(self, log: ReplicatedLog, snapshots: RaftSnapshots, high_watermark: int,
                        max_bytes: int) -> None:
        """Give the listener what it has not seen of the committed log: the latest snapshot if it is
        behind the log start, then every batch below the high watermark."""
        latest = log.latest_snapshot_id()
        if latest is not None and self.next_offset < log.start_offset():
            self.fire_handle_snapshot(snapshots.read_snapshot(latest))
        while self.next_offset < high_watermark:
            progressed = False
            for batch in iter_batches(log.read(self.next_offset, max_bytes).records):
                if batch.base_offset >= high_watermark:
                    break
                if not batch.is_control_batch and batch.last_offset >= self.next_offset:
                    self.listener.handle_commit(Batch(
                        batch.base_offset, batch.last_offset, batch.partition_leader_epoch,
                        batch.max_timestamp, batch.size_in_bytes, [r.value for r in batch]))
                elif batch.is_control_batch and batch.last_offset >= self.next_offset:
                    self.fire_handle_control_batch(batch.last_offset)
                self.next_offset = batch.next_offset
                progressed = True
            if not progressed:
                break

    def fire_handle_control_batch(self, last_offset: int) -> None:
        """Only a listener that asks (the MetadataLoader, whose catching up counts offsets) hears of a
        control batch; the others' handle_commit never sees one."""
        handle = getattr(self.listener, "handle_control_batch", None)
        if handle is not None:
            handle(last_offset)

    def fire_handle_snapshot(self, reader: SnapshotReader) -> None:
        self.listener.handle_load_snapshot(reader)
        self.next_offset = reader.snapshot_id.offset

    def maybe_fire_leader_change(self, leader: LeaderAndEpoch, epoch_start_offset: int | None) -> None:
        """Tell the listener of `leader` unless it knows already. `epoch_start_offset` is where our own
        epoch began when we are that leader (None otherwise): our listener hears of it once past it."""
        if self.last_leader == leader:
            return
        if epoch_start_offset is not None and self.next_offset <= epoch_start_offset:
            return
        self.last_leader = leader
        self.listener.handle_leader_change(leader)

    def begin_shutdown(self) -> None:
        self.listener.begin_shutdown()
