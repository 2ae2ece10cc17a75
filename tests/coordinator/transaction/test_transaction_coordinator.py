"""The TransactionCoordinator over a real ReplicaManager and log, a mock clock and a fake marker
sender: Kafka's state machine (TransactionMetadata), InitProducerId with a transactional id, fencing,
AddPartitionsToTxn, EndTxn and its markers, timeouts, expiry and the reload of __transaction_state."""

from __future__ import annotations

import pytest

from kafka.coordinator.transaction import transaction_log
from kafka.coordinator.transaction.producer_id_manager import RPCProducerIdManager
from kafka.coordinator.transaction.transaction_coordinator import InitProducerIdResult, TransactionCoordinator
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.coordinator.transaction.transaction_marker_channel_manager import (
    NO_NODE,
    MarkerDestination,
    TransactionMarkerChannelManager,
)
from kafka.coordinator.transaction.transaction_metadata import (
    IllegalTransitionError,
    TransactionMetadata,
    TxnTransitMetadata,
)
from kafka.coordinator.transaction.transaction_state import TransactionState as S
from kafka.coordinator.transaction.transaction_state_manager import TransactionConfig, TransactionStateManager
from kafka.protocol.errors import Errors
from kafka.protocol.schema import Record
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import replica_manager_leading, wait_until

TXN_TP = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, 0)
T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)
GONE = TopicPartition("gone", 0)
LEADER = MarkerDestination(2, "127.0.0.1", 9999)
TID = "orders-tx"


# ---------------------------------------------------------------------- the state machine alone
def test_each_state_has_kafkas_id_name_and_valid_previous_states():
    assert [(s.id, str(s)) for s in S] == [(0, "Empty"), (1, "Ongoing"), (2, "PrepareCommit"),
                                           (3, "PrepareAbort"),
                                           (4, "CompleteCommit"), (5, "CompleteAbort"), (6, "Dead"),
                                           (7, "PrepareEpochFence")]
    assert S.PREPARE_ABORT.valid_previous_states == {S.ONGOING, S.PREPARE_EPOCH_FENCE, S.EMPTY,
                                                     S.COMPLETE_COMMIT, S.COMPLETE_ABORT}  # Kafka 4.4 (TV_2)
    assert S.COMPLETE_COMMIT.valid_previous_states == {S.PREPARE_COMMIT}
    assert {s for s in S if s.is_expiration_allowed} == {S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}


def test_a_transition_waits_for_its_completion_and_blocks_a_second_one():
    metadata = TransactionMetadata(TID, 7, -1, 0, -1, 60_000, S.EMPTY, txn_last_update_timestamp=1)
    transit = metadata.prepare_add_partitions({T0}, now_ms=100)
    assert metadata.pending_state == S.ONGOING and metadata.state == S.EMPTY
    with pytest.raises(IllegalTransitionError):
        metadata.prepare_add_partitions({T1}, now_ms=101)
    metadata.complete_transition_to(transit)
    assert (metadata.state, metadata.topic_partitions, metadata.txn_start_timestamp) == (S.ONGOING, {T0}, 100)
    with pytest.raises(IllegalTransitionError):  # CompleteCommit only follows PrepareCommit
        metadata._prepare_transition_to(S.COMPLETE_COMMIT, 7, 0, -1, 60_000, frozenset(), 100, 102)


def test_transaction_log_records_round_trip_and_a_null_value_is_a_tombstone():
    transit = TxnTransitMetadata(5, -1, 3, -1, 60_000, S.PREPARE_COMMIT, frozenset({T0, T1}), 100, 200)
    key = transaction_log.key_to_bytes(TID)
    assert key[:2] == b"\x00\x00" and transaction_log.read_txn_record_key(key).transactional_id == TID
    loaded = transaction_log.read_txn_record_value(TID, transaction_log.value_to_bytes(transit))
    assert (loaded.producer_id, loaded.producer_epoch, loaded.state, loaded.topic_partitions,
            loaded.txn_start_timestamp, loaded.txn_last_update_timestamp) == (5, 3, S.PREPARE_COMMIT,
                                                                              {T0, T1}, 100, 200)
    assert transaction_log.read_txn_record_value(TID, None) is None


# ---------------------------------------------------------------------- the coordinator
class FakeMarkerSender:
    """Keeps each WriteTxnMarkers until the test answers it, as the inter-broker channel would later."""

    def __init__(self) -> None:
        self.requests: list[tuple[MarkerDestination, dict, object]] = []

    def send_request(self, destination, body, callback) -> None:
        self.requests.append((destination, body, callback))

    def answer(self, error: Errors = Errors.NONE) -> dict:
        destination, body, callback = self.requests.pop(0)
        callback(Record(markers=[Record(producer_id=m["producer_id"], topics=[
            Record(name=t["name"], partitions=[Record(partition_index=p, error_code=error)
                                               for p in t["partition_indexes"]])
            for t in m["topics"]]) for m in body["markers"]]), Errors.NONE)
        return body

    def disconnect(self) -> None:
        _, _, callback = self.requests.pop(0)
        callback(None, Errors.NETWORK_EXCEPTION)


@pytest.fixture
def time():
    return MockTime()


@pytest.fixture
def replica_manager(tmp_path, time):
    with replica_manager_leading(tmp_path, time, TXN_TP, leader_epoch=3) as manager:
        yield manager


class Harness:
    def __init__(self, replica_manager, time) -> None:
        self.time = time
        self.sender = FakeMarkerSender()
        self.blocks: list = []
        self.producer_ids = RPCProducerIdManager(1, time, lambda: 1, lambda body, cb: cb(
            Record(error_code=0, producer_id_start=len(self.blocks) * 1000 + 1000, producer_id_len=1000),
            Errors.NONE))
        config = TransactionConfig(transaction_log_num_partitions=1, transaction_max_timeout_ms=120_000,
                                   transactional_id_expiration_ms=3_600_000)
        self.state_manager = TransactionStateManager(1, config, replica_manager, time)
        self.markers = TransactionMarkerChannelManager(1, self.state_manager, self.leader_for,
                                                       self.sender.send_request, time, retry_backoff_ms=100)
        self.coordinator = TransactionCoordinator(self.producer_ids, self.state_manager, self.markers,
                                                  time=time,
                                                  group_partition_for=lambda group_id: 7)
        self.coordinator.is_active.set()
        self.coordinator.on_election(0, coordinator_epoch=3, load_now=True)

    @staticmethod
    def leader_for(tp):
        return None if tp.topic == "gone" else NO_NODE if tp.topic == "nowhere" else LEADER

    def init(self, timeout_ms=60_000, tid=TID, expected=None) -> InitProducerIdResult:
        results = []
        self.coordinator.handle_init_producer_id(tid, timeout_ms, expected, results.append)
        return results[0]

    def add(self, pid, epoch, *tps, tid=TID) -> Errors:
        results = []
        self.coordinator.handle_add_partitions_to_transaction(tid, pid, epoch, set(tps), results.append)
        return results[0]

    def end(self, pid, epoch, committed: bool, tid=TID):
        results = []
        self.coordinator.handle_end_transaction(tid, pid, epoch, committed, lambda *r: results.append(r))
        return results[0]

    def metadata(self, tid=TID) -> TransactionMetadata:
        return self.state_manager.get_transaction_state(tid)[1].transaction_metadata


@pytest.fixture
def harness(replica_manager, time):
    return Harness(replica_manager, time)


def test_init_producer_id_gives_a_new_id_at_epoch_0_then_bumps_the_epoch(harness):
    first = harness.init()
    assert (first.error, first.producer_epoch) == (Errors.NONE, 0) and first.producer_id >= 1000
    again = harness.init()
    assert (again.error, again.producer_id, again.producer_epoch) == (Errors.NONE, first.producer_id, 1)
    assert harness.init(timeout_ms=120_001).error == Errors.INVALID_TRANSACTION_TIMEOUT
    assert harness.init(tid="").error == Errors.INVALID_REQUEST


def test_commit_writes_prepare_answers_sends_markers_then_completes(harness):
    pid = harness.init().producer_id
    assert harness.add(pid, 0, T0, T1) == Errors.NONE
    assert harness.metadata().state == S.ONGOING
    assert harness.end(pid, 0, True) == (Errors.NONE, pid, 0), "answered once PrepareCommit is written"
    assert harness.metadata().state == S.PREPARE_COMMIT
    harness.markers.do_work()
    body = harness.sender.answer()
    assert body["markers"] == [dict(producer_id=pid, producer_epoch=0, transaction_result=True,
                                    coordinator_epoch=3, transaction_version=0,  # the client's (v2)
                                    topics=[dict(name="t", partition_indexes=[0, 1])])]
    metadata = harness.metadata()
    assert (metadata.state, metadata.topic_partitions) == (S.COMPLETE_COMMIT, set())
    assert harness.end(pid, 0, True) == (Errors.NONE, pid, 0), "a retried EndTxn is answered again"
    assert harness.end(pid, 0, False)[0] == Errors.INVALID_TXN_STATE


def test_end_txn_with_nothing_begun_and_bad_ids_get_kafkas_errors(harness):
    pid = harness.init().producer_id
    assert harness.end(pid, 0, True)[0] == Errors.INVALID_TXN_STATE
    assert harness.end(pid + 1, 0, True)[0] == Errors.INVALID_PRODUCER_ID_MAPPING
    assert harness.end(pid, 0, True, tid="never-seen")[0] == Errors.INVALID_PRODUCER_ID_MAPPING
    assert harness.add(pid, 5, T0) == Errors.PRODUCER_FENCED
    assert harness.metadata().state == S.EMPTY, "nothing changed"


def test_a_leader_verifies_a_partition_is_in_the_open_transaction_before_appending(harness):
    """KIP-890 part 1: what a partition leader asks before a transactional batch is appended."""
    pid = harness.init().producer_id
    verify = harness.coordinator.handle_verify_partitions_in_transaction
    assert verify(TID, pid, 0, {T0}) == {T0: Errors.TRANSACTION_ABORTABLE}, "nothing added yet (Kafka 4.4)"
    assert harness.add(pid, 0, T0) == Errors.NONE
    assert verify(TID, pid, 0, {T0, T1}) == {T0: Errors.NONE, T1: Errors.TRANSACTION_ABORTABLE}
    assert verify(TID, pid, 1, {T0}) == {T0: Errors.PRODUCER_FENCED}
    assert verify(TID, pid + 1, 0, {T0}) == {T0: Errors.INVALID_PRODUCER_ID_MAPPING}
    assert verify("never-seen", pid, 0, {T0}) == {T0: Errors.INVALID_PRODUCER_ID_MAPPING}
    harness.end(pid, 0, True)
    assert verify(TID, pid, 0, {T0}) == {T0: Errors.CONCURRENT_TRANSACTIONS}, "markers on their way"
    assert harness.metadata().state == S.PREPARE_COMMIT, "verifying changes nothing"


def test_a_second_producer_fences_the_first_and_aborts_its_open_transaction(harness):
    pid = harness.init().producer_id
    assert harness.add(pid, 0, T0) == Errors.NONE
    # The newcomer's InitProducerId aborts the open transaction under epoch 1, and is told to retry.
    assert harness.init().error == Errors.CONCURRENT_TRANSACTIONS
    assert harness.metadata().state == S.PREPARE_ABORT and harness.metadata().producer_epoch == 1
    assert harness.init().error == Errors.CONCURRENT_TRANSACTIONS, "still completing"
    harness.markers.do_work()
    body = harness.sender.answer()
    assert body["markers"][0]["transaction_result"] is False and body["markers"][0]["producer_epoch"] == 1
    assert harness.metadata().state == S.COMPLETE_ABORT
    retried = harness.init()
    assert (retried.error, retried.producer_id, retried.producer_epoch) == (Errors.NONE, pid, 2)
    # The old instance, still at epoch 0, is fenced everywhere.
    assert harness.add(pid, 0, T0) == Errors.PRODUCER_FENCED
    assert harness.end(pid, 0, True)[0] == Errors.PRODUCER_FENCED


def test_markers_are_retried_after_a_failure_and_a_deleted_partition_is_dropped(harness, time):
    pid = harness.init().producer_id
    assert harness.add(pid, 0, T0, GONE) == Errors.NONE
    harness.end(pid, 0, False)
    harness.markers.do_work()
    harness.sender.answer(Errors.NOT_LEADER_OR_FOLLOWER)
    harness.markers.do_work()
    assert harness.sender.requests == [], "not before the backoff"
    time.advance(100)
    harness.markers.do_work()
    harness.sender.disconnect()
    time.advance(100)
    harness.markers.do_work()
    assert harness.metadata().state == S.PREPARE_ABORT
    harness.sender.answer()
    assert harness.metadata().state == S.COMPLETE_ABORT


def test_add_offsets_adds_the_groups_offsets_partition(harness):
    pid = harness.init().producer_id
    results = []
    harness.coordinator.handle_add_offsets_to_transaction(TID, pid, 0, "group", results.append)
    assert results == [Errors.NONE]
    assert harness.metadata().topic_partitions == {TopicPartition("__consumer_offsets", 7)}


def test_a_transaction_open_past_its_timeout_is_aborted_and_its_producer_fenced(harness, time):
    pid = harness.init(timeout_ms=1000).producer_id
    assert harness.add(pid, 0, T0) == Errors.NONE
    time.advance(999)
    harness.coordinator.abort_timed_out_transactions()
    assert harness.metadata().state == S.ONGOING
    time.advance(2)
    harness.coordinator.abort_timed_out_transactions()
    harness.markers.do_work()
    harness.sender.answer()
    assert (harness.metadata().state, harness.metadata().producer_epoch) == (S.COMPLETE_ABORT, 1)
    assert harness.end(pid, 0, True)[0] == Errors.PRODUCER_FENCED


def test_describe_and_list_show_the_state(harness):
    pid = harness.init().producer_id
    harness.add(pid, 0, T1, T0)
    described = harness.coordinator.handle_describe_transactions(TID)
    assert described["transaction_state"] == "Ongoing" and described["topics"] == [dict(topic="t",
                                                                                        partitions=[0, 1])]
    unknown = harness.coordinator.handle_describe_transactions("nope")
    assert unknown["error_code"] == Errors.TRANSACTIONAL_ID_NOT_FOUND
    listed = harness.coordinator.handle_list_transactions(set(), {"Ongoing", "Bogus"})
    assert listed["unknown_state_filters"] == ["Bogus"]
    assert listed["transaction_states"] == [dict(transactional_id=TID, producer_id=pid,
                                                 transaction_state="Ongoing")]
    assert harness.coordinator.handle_list_transactions({pid + 1}, set())["transaction_states"] == []
    # KIP-1152: the whole id must match; a pattern RE2/J refuses fails the request with nothing listed
    listed = [harness.coordinator.handle_list_transactions(set(), set(), -1, pattern)
              for pattern in (TID[:-1] + ".", TID[:-1], "", f"(?={TID}).*")]
    assert [len(answer["transaction_states"]) for answer in listed] == [1, 0, 1, 0]
    assert [a["error_code"] for a in listed] == [Errors.NONE] * 3 + [Errors.INVALID_REGULAR_EXPRESSION]


def test_a_new_coordinator_reloads_the_log_and_finishes_a_prepared_transaction(harness, replica_manager,
                                                                               time):
    pid = harness.init().producer_id
    harness.add(pid, 0, T0)
    harness.end(pid, 0, True)  # PrepareCommit is in the log; the markers never go out
    harness.coordinator.on_resignation(0, 3)
    assert harness.state_manager.get_transaction_state(TID)[0] == Errors.NOT_COORDINATOR
    successor = Harness(replica_manager, time)  # loads the partition at epoch 3 again
    assert successor.metadata().state == S.PREPARE_COMMIT
    successor.markers.do_work()
    successor.sender.answer()
    assert successor.metadata().state == S.COMPLETE_COMMIT


def test_an_idle_transactional_id_expires(harness, time):
    harness.init()
    time.advance(3_600_001)
    harness.state_manager.remove_expired_transactional_ids()
    assert harness.state_manager.get_transaction_state(TID) == (Errors.NONE, None)


def test_the_marker_sender_sleeps_when_idle_and_retries_an_unknown_leader_once_per_backoff(harness, time):
    nowhere = TopicPartition("nowhere", 0)  # its leader is unknown: the marker waits for one
    asked: list[int] = []  # the injected clock each time the sender looked for that leader
    backoff_ms = 60_000  # far longer than the test: only the injected clock can end it

    def leader_for(tp: TopicPartition):
        if tp != nowhere:
            return harness.leader_for(tp)
        asked.append(time.hi_res_clock_ms())
        return NO_NODE

    harness.markers.leader_for = leader_for
    harness.markers.retry_backoff_ms = backoff_ms
    assert not harness.markers._anything_to_retry(), "nothing to retry: the sender sleeps until woken"
    pid = harness.init().producer_id
    assert harness.add(pid, 0, nowhere) == Errors.NONE
    harness.end(pid, 0, True)
    assert harness.markers._anything_to_retry(), "a marker without a leader: try again after the backoff"
    harness.markers.start()
    try:
        # asked[0] is EndTxn's own routing; its wake-up, already pending when the thread starts, runs
        # the sender's first two rounds back to back (asked[1] and asked[2]). From then on, one a
        # backoff of the injected clock: the MockTime moves, the sender retries.
        wait_until(lambda: len(asked) >= 3, timeout=10, message="the sender's first rounds")
        for _ in range(3):
            retries = len(asked)
            time.advance(backoff_ms)
            wait_until(lambda n=retries: len(asked) > n, timeout=10,
                       message="a retry once the MockTime passed retry_backoff_ms")
    finally:
        harness.markers.shutdown()
    assert len(asked) == 6, f"one retry per backoff of the injected clock, not more: {asked}"
    assert [later - earlier for earlier, later in zip(asked[2:], asked[3:], strict=False)] == [backoff_ms] * 3
    assert harness.metadata().state == S.PREPARE_COMMIT, "still waiting for the partition's leader"
