"""The leader side of replication in one Partition, with a mock clock: the high watermark is the
smallest log end offset of the ISR, followers leave the ISR after replica.lag.time.max.ms and
rejoin once caught up, ISR changes wait for the controller, and min.insync.replicas is enforced."""

from __future__ import annotations

import pytest

from kafka.log.log_config import LogConfig
from kafka.log.unified_log import UnifiedLog
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import build_batch
from kafka.server.metadata_cache import PartitionState
from kafka.server.partition import Partition
from kafka.server.partition_errors import NotEnoughReplicasError, PartitionError
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

TP = TopicPartition("orders", 0)
LAG_MS = 10_000


class Controller:
    """Stands in for the AlterPartitionManager's round trip: keeps each proposal until the test
    answers it, as the active controller would (accepting with the next partition epoch)."""

    def __init__(self) -> None:
        self.proposals = []

    def submit(self, tp, leader_epoch, new_isr, partition_epoch, callback) -> None:
        self.proposals.append((new_isr, partition_epoch, callback))

    def accept(self) -> None:
        new_isr, partition_epoch, callback = self.proposals.pop(0)

        class Answer:
            isr = new_isr
        Answer.partition_epoch = partition_epoch + 1
        callback(Answer, Errors.NONE)

    def refuse(self, error: Errors = Errors.INVALID_UPDATE_VERSION) -> None:
        _, _, callback = self.proposals.pop(0)
        callback(None, error)

    def lose(self) -> None:
        """The answer never comes: the AlterPartitionManager gives up (REQUEST_TIMED_OUT)."""
        self.refuse(Errors.REQUEST_TIMED_OUT)


@pytest.fixture
def time():
    return MockTime()


def leader(tmp_path, time, isr=(1, 2, 3), min_isr=1, controller=None) -> Partition:
    log = UnifiedLog(str(tmp_path / "orders-0"), "orders", 0, LogConfig(min_insync_replicas=min_isr), time)
    partition = Partition(TP, log, 1, time, LAG_MS, alter_partition_manager=controller)
    partition.make_leader(PartitionState(0, leader=1, leader_epoch=5, replicas=(1, 2, 3), isr=isr,
                                         partition_epoch=7))
    return partition


def append(partition: Partition, count: int = 1, acks: int = -1) -> None:
    partition.append_records_to_leader(build_batch([(b"k", b"v")] * count), acks)


def follower_fetch(partition: Partition, replica_id: int, offset: int) -> bool:
    _, hw_moved = partition.fetch_records(replica_id, offset, 5, 1 << 20, True)
    return hw_moved


def test_the_high_watermark_is_the_smallest_log_end_offset_in_the_isr(tmp_path, time):
    partition = leader(tmp_path, time)
    append(partition, 10)
    assert partition.high_watermark == 0, "no follower has fetched in this leadership yet"
    assert not follower_fetch(partition, 2, 10)
    assert partition.high_watermark == 0, "follower 3 may still be missing everything"
    assert follower_fetch(partition, 3, 6)
    assert partition.high_watermark == 6
    assert follower_fetch(partition, 3, 10)
    assert partition.high_watermark == 10


def test_a_follower_outside_the_isr_does_not_hold_the_high_watermark_back(tmp_path, time):
    partition = leader(tmp_path, time, isr=(1, 2))
    append(partition, 4)
    follower_fetch(partition, 2, 4)
    assert partition.high_watermark == 4


def test_a_follower_that_stops_fetching_leaves_the_isr_after_the_lag_time(tmp_path, time):
    partition = leader(tmp_path, time, isr=(1, 2, 3))
    append(partition, 3)
    follower_fetch(partition, 2, 3)
    follower_fetch(partition, 3, 3)
    time.sleep(LAG_MS)  # exactly the lag time: still in sync
    follower_fetch(partition, 2, 3)
    partition.maybe_shrink_isr()
    assert partition.isr == {1, 2, 3}
    time.sleep(1)
    follower_fetch(partition, 2, 3)
    partition.maybe_shrink_isr()
    assert partition.isr == {1, 2}


def test_a_follower_that_fetches_but_falls_further_behind_also_leaves(tmp_path, time):
    partition = leader(tmp_path, time, isr=(1, 2))
    for i in range(1, 13):  # it copies 2 records a second while the leader takes 5
        append(partition, 5)
        follower_fetch(partition, 2, 2 * i)
        time.sleep(1000)
    partition.maybe_shrink_isr()
    assert partition.isr == {1}


def test_a_caught_up_follower_rejoins_through_the_controller(tmp_path, time):
    controller = Controller()
    partition = leader(tmp_path, time, isr=(1, 2), controller=controller)
    append(partition, 5)
    follower_fetch(partition, 2, 5)
    assert partition.high_watermark == 5
    follower_fetch(partition, 3, 2)
    assert controller.proposals == [], "follower 3 is below the high watermark"
    follower_fetch(partition, 3, 5)
    assert [p[:2] for p in controller.proposals] == [([1, 2, 3], 7)]
    assert partition.isr == {1, 2}, "not in the ISR until the controller says so..."
    append(partition, 1)
    follower_fetch(partition, 2, 6)
    assert partition.high_watermark == 5, "...but counted toward the HW while the proposal is out"
    controller.accept()
    assert partition.isr == {1, 2, 3} and partition.partition_epoch == 8
    follower_fetch(partition, 3, 6)
    assert partition.high_watermark == 6


def test_a_refused_shrink_leaves_the_isr_as_it_was(tmp_path, time):
    controller = Controller()
    partition = leader(tmp_path, time, isr=(1, 2, 3), controller=controller)
    follower_fetch(partition, 2, 0)
    time.sleep(LAG_MS + 1)
    follower_fetch(partition, 2, 0)
    partition.maybe_shrink_isr()
    assert [p[0] for p in controller.proposals] == [[1, 2]]
    controller.refuse(Errors.INELIGIBLE_REPLICA)  # the controller changed nothing
    assert partition.isr == {1, 2, 3} and partition.pending_isr is None


def test_a_proposal_refused_by_a_controller_that_moved_on_waits_for_the_metadata(tmp_path, time):
    """INVALID_UPDATE_VERSION: the controller is at another partition epoch, perhaps our own earlier
    proposal's; what it holds comes down the metadata log, which settles the proposal (as in Kafka)."""
    controller = Controller()
    partition = leader(tmp_path, time, isr=(1, 2), controller=controller)
    follower_fetch(partition, 3, 0)
    controller.refuse(Errors.INVALID_UPDATE_VERSION)
    assert partition.pending_isr == {1, 2, 3} and controller.proposals == []
    partition.make_leader(PartitionState(0, leader=1, leader_epoch=5, replicas=(1, 2, 3), isr=(1, 2, 3),
                                         partition_epoch=8))
    assert partition.isr == {1, 2, 3} and partition.pending_isr is None


def test_an_expansion_whose_answer_is_lost_is_asked_again_and_still_counted(tmp_path, time):
    """The controller may have committed it: dropping it would let the HW pass records follower 3,
    in the controller's ISR, does not have (the replication simulation, seed 79)."""
    controller = Controller()
    partition = leader(tmp_path, time, isr=(1, 2), controller=controller)
    follower_fetch(partition, 3, 0)
    controller.lose()
    assert [p[:2] for p in controller.proposals] == [([1, 2, 3], 7)], "the same proposal, asked again"
    append(partition, 2, acks=1)
    follower_fetch(partition, 2, 2)
    assert partition.high_watermark == 0, "follower 3 still counts"
    controller.accept()
    assert partition.isr == {1, 2, 3} and partition.partition_epoch == 8


def test_acks_all_with_too_small_an_isr_is_refused_and_writes_nothing(tmp_path, time):
    partition = leader(tmp_path, time, isr=(1,), min_isr=2)
    with pytest.raises(NotEnoughReplicasError):
        append(partition, 3)
    assert partition.log.log_end_offset == 0
    append(partition, 3, acks=1)  # acks=1 does not care about the ISR
    assert partition.log.log_end_offset == 3


def test_the_partition_reads_min_insync_replicas_from_its_own_log_config(tmp_path, time):
    """Nobody hands the Partition min.insync.replicas: a topic config change applies to the next append."""
    partition = leader(tmp_path, time, isr=(1, 2), min_isr=2)
    append(partition, 1)
    partition.log.update_config(LogConfig(min_insync_replicas=3))
    assert partition.is_under_min_isr
    with pytest.raises(NotEnoughReplicasError, match="min.insync.replicas=3"):
        append(partition, 1)
    assert partition.log_end_offset == 1


def test_a_follower_answers_its_fetcher_from_its_own_log(tmp_path, time):
    """What the ReplicaFetcherThread asks goes through the Partition: end offsets, epochs, truncation."""
    partition = leader(tmp_path, time)
    append(partition, 4)
    partition.make_follower(PartitionState(0, leader=2, leader_epoch=6, replicas=(1, 2, 3), isr=(1, 2, 3),
                                           partition_epoch=8))
    assert (partition.log_start_offset, partition.log_end_offset, partition.latest_epoch) == (0, 4, 5)
    assert partition.last_offset_for_leader_epoch(-1, 5, fetch_only_from_leader=False) == (5, 4)
    with pytest.raises(PartitionError):
        partition.last_offset_for_leader_epoch(-1, 5)  # a client's OffsetsForLeaderEpoch: leaders only
    partition.truncate_fully_and_start_at(10)
    assert (partition.log_start_offset, partition.log_end_offset, partition.latest_epoch) == (10, 10, -1)


def test_nothing_is_committed_while_the_isr_is_below_min_insync_replicas(tmp_path, time):
    """Kafka 4 (KIP-966): the HW stays while the ISR is under min.insync.replicas, so the replicas that
    left it (the ELR) still hold everything committed; the produce waits (or times out)."""
    partition = leader(tmp_path, time, isr=(1, 2), min_isr=2)
    append(partition, 2)
    time.sleep(LAG_MS + 1)
    partition.maybe_shrink_isr()  # follower 2 never fetched: the ISR is {1}, under min.insync.replicas
    assert partition.is_under_min_isr and partition.log.high_watermark == 0
    assert partition.check_enough_replicas_reach_offset(2) == (False, Errors.NONE)


def test_fetches_from_another_leader_epoch_are_refused(tmp_path, time):
    partition = leader(tmp_path, time)
    with pytest.raises(PartitionError) as fenced:
        partition.fetch_records(2, 0, 4, 1 << 20, True)
    assert fenced.value.error == Errors.FENCED_LEADER_EPOCH
    with pytest.raises(PartitionError) as unknown:
        partition.fetch_records(2, 0, 6, 1 << 20, True)
    assert unknown.value.error == Errors.UNKNOWN_LEADER_EPOCH


def test_a_new_leader_records_where_its_epoch_starts(tmp_path, time):
    partition = leader(tmp_path, time)
    append(partition, 4)
    partition.make_leader(PartitionState(0, leader=1, leader_epoch=6, replicas=(1, 2, 3), isr=(1, 2, 3),
                                         partition_epoch=8))
    assert partition.last_offset_for_leader_epoch(6, 5) == (5, 4), "epoch 5 ended where epoch 6 began"
    assert partition.last_offset_for_leader_epoch(6, 6) == (6, 4)


class Listener:
    def __init__(self) -> None:
        self.changes = []

    def on_isr_change(self, tp, shrink: bool) -> None:
        self.changes.append("shrink" if shrink else "expand")

    def on_failed_isr_update(self, tp) -> None:
        self.changes.append("failed")

    def on_high_watermark_moved(self, tp) -> None:
        pass


def test_an_isr_change_is_counted_once_whichever_arrives_first_metadata_or_answer(tmp_path, time):
    controller, listener = Controller(), Listener()
    partition = leader(tmp_path, time, isr=(1, 2), controller=controller)
    partition.listener = listener
    follower_fetch(partition, 3, 0)  # caught up with an empty log: proposes ISR [1, 2, 3]
    partition.make_leader(PartitionState(0, leader=1, leader_epoch=5, replicas=(1, 2, 3), isr=(1, 2, 3),
                                         partition_epoch=8))  # the metadata log has it first
    controller.accept()  # then the answer: nothing more to do
    assert listener.changes == ["expand"] and partition.isr == {1, 2, 3}


def test_a_state_older_than_the_controllers_answer_is_skipped(tmp_path, time):
    """The controller accepted our ISR [1, 2, 3] (partition epoch 8); the metadata log, late, then brings
    the state before it (epoch 7, ISR [1, 2]). Kafka's makeLeader skips it: applied, the HW would be
    counted without follower 3, which the controller may elect (the replication simulation, seed 2)."""
    controller = Controller()
    partition = leader(tmp_path, time, isr=(1, 2), controller=controller)
    follower_fetch(partition, 3, 0)
    controller.accept()
    assert partition.isr == {1, 2, 3} and partition.partition_epoch == 8
    append(partition, 3)
    follower_fetch(partition, 2, 3)
    assert not partition.make_leader(PartitionState(0, leader=1, leader_epoch=5, replicas=(1, 2, 3),
                                                    isr=(1, 2),
                                                    partition_epoch=7))
    assert partition.isr == {1, 2, 3} and partition.partition_epoch == 8
    assert partition.high_watermark == 0, "follower 3 has not fetched the three records"
    assert not partition.make_follower(PartitionState(0, leader=2, leader_epoch=5, replicas=(1, 2, 3),
                                                      isr=(1, 2),
                                                      partition_epoch=7))
    assert partition.is_leader
