"""Producer id blocks from the QuorumController (KIP-730), on a mock clock with the in-memory raft
stand-in: consecutive blocks that never overlap, a stale broker epoch refused, and a controller
rebuilt from the log's records or from a snapshot going on after the last block handed out."""

from __future__ import annotations

from dataclasses import dataclass

from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, deserialize, record, serialize
from kafka.raft.batch import Batch, LeaderAndEpoch
from kafka.raft.replicated_log import OffsetAndEpoch
from kafka.utils.producer_ids_block import PRODUCER_ID_BLOCK_SIZE
from tests.controller.test_quorum_controller import CLUSTER, Cluster, LocalRaft
from tests.controller.test_quorum_controller import record as request

T = MetadataRecordType


def allocate(cluster: Cluster, broker_id: int, broker_epoch: int,
             controller: QuorumController | None = None) -> dict:
    controller = controller or cluster.active
    return cluster.call(controller.allocate_producer_ids(request(broker_id=broker_id,
                                                                 broker_epoch=broker_epoch)))


def producer_ids_records(raft: LocalRaft) -> list:
    return [r.data for r in map(deserialize, raft.entries) if r.type == T.PRODUCER_IDS_RECORD]


def test_blocks_are_consecutive_and_never_overlap_and_a_standby_agrees():
    cluster = Cluster()
    epochs = {b: cluster.register_and_unfence(b) for b in (1, 2, 3)}
    handed_out: list[range] = []
    for broker_id in (1, 2, 3, 1, 3):
        response = allocate(cluster, broker_id, epochs[broker_id])
        assert response["error_code"] == Errors.NONE
        assert response["producer_id_len"] == PRODUCER_ID_BLOCK_SIZE == 1000
        handed_out.append(range(response["producer_id_start"], response["producer_id_start"] + 1000))
    assert [r.start for r in handed_out] == [0, 1000, 2000, 3000, 4000]  # each starts where the last ended
    every_id = [i for r in handed_out for i in r]
    assert len(every_id) == len(set(every_id)) == 5000
    # One ProducerIdsRecord per block, naming the broker it went to and where the next block starts.
    written = producer_ids_records(cluster.raft)
    assert [(r.broker_id, r.broker_epoch, r.next_producer_id) for r in written] == [
        (1, epochs[1], 1000), (2, epochs[2], 2000), (3, epochs[3], 3000), (1, epochs[1], 4000),
        (3, epochs[3], 5000)]
    assert cluster.standby.producer_ids.next_producer_id == 5000
    assert cluster.active.committed_image.producer_ids.next_producer_id == 5000


def test_two_requests_decided_before_either_commits_get_different_blocks():
    cluster = Cluster()
    epochs = {b: cluster.register_and_unfence(b) for b in (1, 2)}
    first = cluster.active.allocate_producer_ids(request(broker_id=1, broker_epoch=epochs[1]))
    second = cluster.active.allocate_producer_ids(request(broker_id=2, broker_epoch=epochs[2]))
    cluster.active.queue.run_pending()  # both decided; nothing committed yet, so nothing answered
    assert not first.done() and not second.done()
    cluster.step()
    assert (first.result()["producer_id_start"], second.result()["producer_id_start"]) == (0, 1000)


def test_a_stale_broker_epoch_is_refused_and_writes_nothing():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    entries = len(cluster.raft.entries)
    # old, unknown, never registered
    for broker_id, broker_epoch in ((1, epoch - 1), (1, epoch + 7), (9, epoch)):
        response = allocate(cluster, broker_id, broker_epoch)
        assert response["error_code"] == Errors.STALE_BROKER_EPOCH
        assert (response["producer_id_start"], response["producer_id_len"]) == (-1, 0)
    assert len(cluster.raft.entries) == entries, "a refused request writes no record"
    assert allocate(cluster, 1, epoch)["producer_id_start"] == 0, "and takes no ids"


def test_a_restarted_broker_cannot_use_its_earlier_epoch():
    cluster = Cluster()
    old_epoch = cluster.register_and_unfence(1)
    cluster.time.sleep(10_000)  # killed: its session expires and it is fenced
    cluster.step()
    assert cluster.active.cluster.brokers[1].fenced
    new_epoch = cluster.register_and_unfence(1)  # started again: a new incarnation, a new epoch
    assert new_epoch != old_epoch
    assert allocate(cluster, 1, old_epoch)["error_code"] == Errors.STALE_BROKER_EPOCH
    assert allocate(cluster, 1, new_epoch)["error_code"] == Errors.NONE


def test_only_the_active_controller_hands_out_blocks():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    response = allocate(cluster, 1, epoch, controller=cluster.standby)
    assert response["error_code"] == Errors.NOT_CONTROLLER  # the broker's channel retries at the active one


def test_a_block_not_committed_when_leadership_is_lost_is_never_answered_and_its_ids_are_free():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    future = cluster.active.allocate_producer_ids(request(broker_id=1, broker_epoch=epoch))
    cluster.active.queue.run_pending()
    assert cluster.active.producer_ids.next_producer_id == 1000  # decided and replayed, not committed
    cluster.active.handle_leader_change(LeaderAndEpoch(2, 2))
    cluster.active.queue.run_pending()
    assert future.result()["error_code"] == Errors.NOT_CONTROLLER
    assert cluster.active.producer_ids.next_producer_id == 0


def test_exhausted_producer_ids_are_refused():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    last_block_start = 2**63 - 1 - PRODUCER_ID_BLOCK_SIZE  # the last block that still ends below 2**63
    cluster.active.replay(record(T.PRODUCER_IDS_RECORD, broker_id=1, broker_epoch=epoch,
                                 next_producer_id=last_block_start))
    response = allocate(cluster, 1, epoch)
    assert (response["error_code"], response["producer_id_start"]) == (Errors.NONE, last_block_start)
    assert allocate(cluster, 1, epoch)["error_code"] == Errors.UNKNOWN_SERVER_ERROR


def test_a_record_that_would_move_the_next_id_back_is_ignored():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    allocate(cluster, 1, epoch)
    allocate(cluster, 1, epoch)
    cluster.active.replay(record(T.PRODUCER_IDS_RECORD, broker_id=1, broker_epoch=epoch,
                                 next_producer_id=1000))
    assert cluster.active.producer_ids.next_producer_id == 2000


def restarted_controller(entries: list[bytes]) -> tuple[QuorumController, LocalRaft]:
    """A new controller process whose raft log holds `entries`, all of them committed."""
    raft = LocalRaft()
    raft.entries, raft.committed = list(entries), len(entries)
    return QuorumController(3, raft, Cluster().time, QuorumControllerConfig(), CLUSTER, threaded=False), raft


def elect(controller: QuorumController) -> None:
    controller.handle_leader_change(LeaderAndEpoch(3, 2))
    controller.queue.run_pending()
    assert controller.is_active()


def allocate_on(controller: QuorumController, raft: LocalRaft, broker_id: int, broker_epoch: int) -> dict:
    future = controller.allocate_producer_ids(request(broker_id=broker_id, broker_epoch=broker_epoch))
    controller.queue.run_pending()  # decided and appended
    raft.commit_to([controller])  # committed: now answered
    return future.result(timeout=0)


def test_a_controller_rebuilt_from_the_records_continues_after_the_last_block():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    for _ in range(3):
        allocate(cluster, 1, epoch)
    # A restarted controller reads the whole log back (as a standby does), then is elected.
    restarted, raft = restarted_controller(cluster.raft.entries)
    restarted.handle_commit(Batch(0, len(raft.entries) - 1, 1, 0, 0, list(raft.entries)))
    elect(restarted)
    assert restarted.producer_ids.next_producer_id == 3000
    response = allocate_on(restarted, raft, 1, epoch)
    assert (response["error_code"], response["producer_id_start"]) == (Errors.NONE, 3000)


@dataclass
class SnapshotReader:
    """What the raft client hands handle_load_snapshot: the snapshot's id and its batches."""
    snapshot_id: OffsetAndEpoch
    batches: list[Batch]

    def __iter__(self):
        return iter(self.batches)


def test_a_controller_restarted_from_a_snapshot_continues_after_the_last_block():
    cluster = Cluster()
    epoch = cluster.register_and_unfence(1)
    for _ in range(2):
        allocate(cluster, 1, epoch)
    # What the SnapshotGenerator writes; the log before the snapshot is deleted after it.
    snapshot_records = cluster.active.committed_image.write()
    assert [(r.data.broker_id, r.data.broker_epoch, r.data.next_producer_id) for r in snapshot_records
            if r.type == T.PRODUCER_IDS_RECORD] == [(-1, -1, 2000)]
    end = len(cluster.raft.entries)
    restarted, raft = restarted_controller(cluster.raft.entries)
    values = [serialize(r) for r in snapshot_records]
    restarted.handle_load_snapshot(SnapshotReader(OffsetAndEpoch(end, 1),
                                                  [Batch(0, end - 1, 1, 0, 0, values)]))
    elect(restarted)
    assert restarted.committed_image.producer_ids.next_producer_id == 2000
    assert restarted.producer_ids.next_producer_id == 2000
    response = allocate_on(restarted, raft, 1, epoch)  # the registration came back from the snapshot too
    assert (response["error_code"], response["producer_id_start"]) == (Errors.NONE, 2000)
