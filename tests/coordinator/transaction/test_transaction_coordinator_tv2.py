"""The TransactionCoordinator at transaction.version 2 (KIP-890 part 2), over a real ReplicaManager and log,
MockTime and the fake marker sender of test_transaction_coordinator.py: EndTxn v5 bumps the epoch at every
commit and abort, the markers carry the new epoch, a retry is told the same answer, a zombie's old epoch is
fenced, the epoch running out moves to a new producer id, and a coordinator reloading __transaction_state
finds the same state. The last test drives random sequences of these from a seed (printed when it fails)."""

from __future__ import annotations

import random

import pytest

from kafka.coordinator.transaction.transaction_metadata import SHORT_MAX
from kafka.coordinator.transaction.transaction_state import TransactionState as S
from kafka.coordinator.transaction.transaction_version import TV_0, TV_2
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.transaction.test_transaction_coordinator import T0, T1, TID, TXN_TP, Harness
from tests.helpers import replica_manager_leading


class Tv2Harness(Harness):
    """The coordinator on a cluster finalized at transaction.version 2, asked as a TV_2 client asks."""

    def __init__(self, replica_manager, time, level: int = TV_2) -> None:
        super().__init__(replica_manager, time)
        self.state_manager.transaction_version_level = lambda: level

    def end(self, pid, epoch, committed: bool, tid=TID, tv: int = TV_2):
        results = []
        self.coordinator.handle_end_transaction(tid, pid, epoch, committed, lambda *r: results.append(r), tv)
        return results[0]

    def add(self, pid, epoch, *tps, tid=TID, tv: int = TV_2) -> Errors:
        results = []
        self.coordinator.handle_add_partitions_to_transaction(tid, pid, epoch, set(tps), results.append, tv)
        return results[0]

    def write_markers(self) -> list[dict]:
        bodies = []
        self.markers.do_work()
        while self.sender.requests:
            bodies.append(self.sender.answer())
            self.markers.do_work()
        return bodies

    def reload(self) -> None:
        """A new leader of __transaction_state-0 (this broker again, a later epoch) rebuilds from the log."""
        self.coordinator.on_resignation(0, 3)
        self.coordinator.on_election(0, coordinator_epoch=4, load_now=True)


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def harness(tmp_path, time):
    with replica_manager_leading(tmp_path, time, TXN_TP, leader_epoch=3) as manager:
        yield Tv2Harness(manager, time)


def test_every_commit_and_abort_bumps_the_epoch_and_the_markers_carry_it(harness):
    pid = harness.init().producer_id
    assert harness.add(pid, 0, T0) == Errors.NONE
    assert harness.end(pid, 0, True) == (Errors.NONE, pid, 1), "EndTxn v5 answers the new epoch"
    prepared = harness.metadata()
    assert (prepared.state, prepared.producer_epoch, prepared.last_producer_epoch) == (S.PREPARE_COMMIT, 1, 0)
    [body] = harness.write_markers()
    assert body["markers"][0]["producer_epoch"] == 1, "the marker fences the old epoch on the partition"
    assert body["markers"][0]["transaction_version"] == TV_2, "WriteTxnMarkers v2 says so (KIP-1228)"
    assert (harness.metadata().state, harness.metadata().producer_epoch) == (S.COMPLETE_COMMIT, 1)
    assert harness.end(pid, 0, True) == (Errors.NONE, pid, 1), "a retry by the old epoch: the same answer"
    assert harness.add(pid, 0, T1) == Errors.PRODUCER_FENCED, "the epoch that committed is gone"
    assert harness.add(pid, 1, T1) == Errors.NONE
    assert harness.end(pid, 1, False) == (Errors.NONE, pid, 2)
    harness.write_markers()
    assert harness.metadata().state == S.COMPLETE_ABORT


def test_an_abort_with_nothing_begun_bumps_the_epoch_and_a_commit_of_nothing_is_refused(harness):
    pid = harness.init().producer_id
    assert harness.end(pid, 0, True)[0] == Errors.INVALID_TXN_STATE
    assert harness.end(pid, 0, False) == (Errors.NONE, pid, 1)
    assert harness.write_markers() == [], "no partition: no marker"
    assert (harness.metadata().state, harness.metadata().producer_epoch) == (S.COMPLETE_ABORT, 1)


def test_a_tv0_client_on_a_tv2_cluster_keeps_its_epoch_and_the_log_value_is_version_1(harness,
                                                                                      replica_manager_log):
    pid = harness.init().producer_id
    assert harness.add(pid, 0, T0, tv=TV_0) == Errors.NONE
    assert harness.end(pid, 0, True, tv=TV_0) == (Errors.NONE, pid, 0)
    [body] = harness.write_markers()
    assert body["markers"][0]["transaction_version"] == TV_0, "the client's version, not the cluster's"
    assert (harness.metadata().state, harness.metadata().producer_epoch) == (S.COMPLETE_COMMIT, 0)
    versions = {int.from_bytes(bytes(record.value[:2]), "big") for record in replica_manager_log(harness)}
    assert versions == {1}, "transaction.version >= 1 writes the flexible TransactionLogValue"


def test_the_epoch_running_out_moves_to_a_new_producer_id_after_the_markers(harness):
    pid = harness.init().producer_id
    metadata = harness.metadata()
    metadata.producer_epoch = SHORT_MAX - 1  # as after 32766 transactions
    assert harness.add(pid, SHORT_MAX - 1, T0) == Errors.NONE
    error, new_pid, new_epoch = harness.end(pid, SHORT_MAX - 1, True)
    assert (error, new_pid, new_epoch) == (Errors.NONE, metadata.next_producer_id, 0) and new_pid != pid
    [body] = harness.write_markers()
    assert (body["markers"][0]["producer_id"], body["markers"][0]["producer_epoch"]) == (pid, SHORT_MAX)
    assert (metadata.producer_id, metadata.producer_epoch, metadata.last_producer_id) == (new_pid, 0, pid)
    assert harness.end(pid, SHORT_MAX - 1, True) == (Errors.NONE, new_pid, 0), "a retry after the rotation"
    harness.reload()
    reloaded = harness.metadata()
    assert (reloaded.producer_id, reloaded.producer_epoch, reloaded.state) == (new_pid, 0, S.COMPLETE_COMMIT)


def test_a_coordinator_failover_between_prepare_and_complete_finishes_with_the_bumped_epoch(harness):
    pid = harness.init().producer_id
    harness.add(pid, 0, T0, T1)
    harness.end(pid, 0, True)
    harness.sender.requests.clear()  # the markers never left: the coordinator moved
    harness.reload()
    loaded = harness.metadata()
    assert (loaded.state, loaded.producer_epoch, loaded.client_transaction_version) == (S.PREPARE_COMMIT, 1,
                                                                                        TV_2)
    [body] = harness.write_markers()
    assert body["markers"][0]["producer_epoch"] == 1
    assert harness.metadata().state == S.COMPLETE_COMMIT


@pytest.fixture
def replica_manager_log():
    def records(harness):
        data = harness.state_manager.replica_manager.read_partition_log(TXN_TP, 0, 1 << 20)
        return [r for batch in iter_batches(data.records) for r in batch]
    return records


# ---------------------------------------------------------------------- random sequences, from a seed
SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_sequences_keep_kafkas_tv2_invariants(tmp_path, seed):
    """Each step one of: begin and add partitions, commit, abort, retry the last EndTxn, a zombie (the
    epoch before) adding a partition, a coordinator reload, InitProducerId (a new instance). After each:
    the epoch moved by exactly one per successful commit or abort, a zombie is fenced, and a reload finds
    what the cache held."""
    rng = random.Random(seed)
    time = MockTime()
    with replica_manager_leading(tmp_path, time, TXN_TP, leader_epoch=3) as manager:
        h = Tv2Harness(manager, time)
        pid, epoch = h.init().producer_id, 0
        last_end = None
        try:
            for step in range(40):
                action = rng.choice(["add", "add", "commit", "abort", "retry", "zombie", "reload", "init"])
                time.sleep(rng.randint(1, 50))
                state = h.metadata().state
                if action == "add":
                    partitions = rng.sample([T0, T1, TopicPartition("u", 0)], rng.randint(1, 2))
                    assert h.add(pid, epoch, *partitions) == Errors.NONE, (step, action)
                elif action in ("commit", "abort"):
                    committed = action == "commit"
                    answer = h.end(pid, epoch, committed)
                    if state == S.ONGOING or (not committed and state in (S.EMPTY, S.COMPLETE_COMMIT,
                                                                          S.COMPLETE_ABORT)):
                        assert answer == (Errors.NONE, pid, epoch + 1), (step, action, state)
                        last_end, epoch = (committed, epoch), epoch + 1
                        markers = h.write_markers()
                        assert all(m["producer_epoch"] == epoch for b in markers for m in b["markers"])
                    else:
                        assert answer[0] == Errors.INVALID_TXN_STATE, (step, action, state, answer)
                elif action == "retry" and last_end is not None:
                    committed, old_epoch = last_end
                    answer = h.end(pid, old_epoch, committed)
                    done = S.COMPLETE_COMMIT if committed else S.COMPLETE_ABORT
                    if old_epoch == epoch - 1 and state == done:  # nothing begun since: a retry
                        assert answer == (Errors.NONE, pid, epoch), (step, action)
                    else:  # a new transaction began, or an older EndTxn: the epoch is not the current one
                        assert answer[0] == Errors.PRODUCER_FENCED, (step, action, state, answer)
                elif action == "zombie" and epoch > 0:
                    assert h.add(pid, epoch - 1, T0) == Errors.PRODUCER_FENCED, (step, action)
                elif action == "reload":
                    before = h.metadata()
                    snapshot = (before.producer_id, before.producer_epoch, before.state,
                                set(before.topic_partitions))
                    h.reload()
                    h.write_markers()
                    after = h.metadata()
                    assert (after.producer_id, after.producer_epoch, after.state,
                            set(after.topic_partitions)) == snapshot, (step, action)
                elif action == "init":
                    result = h.init(expected=(pid, epoch))
                    if result.error == Errors.CONCURRENT_TRANSACTIONS:  # it aborted the open one first
                        h.write_markers()
                        result = h.init(expected=(pid, h.metadata().producer_epoch))
                    assert result.error == Errors.NONE, (step, action, result)
                    pid, epoch, last_end = result.producer_id, result.producer_epoch, None
                assert h.metadata().producer_epoch == epoch, (step, action)
        except AssertionError:
            print(f"failing seed: {seed}")
            raise
