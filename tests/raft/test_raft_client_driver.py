"""KafkaRaftClientDriver: the raft thread owns the core, and nobody waits for its disk (issue 39).

A real one-voter quorum: a KafkaRaftClient over a KafkaMetadataLog and a quorum-state file in a temporary
directory, stepped by its driver thread with a real KafkaNetworkChannel (a quorum of one sends nothing).
Only the storage edge is changed: the log's flush (its fsync) can be held, so the test knows the raft
thread is inside a write. While it is, the controller's appends go into the BatchAccumulator and get
their offsets, and the other threads' reads come from the published state, at once; a request queued
to the raft thread is answered once the write is done.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import Future

import pytest

from kafka.log.log_config import LogConfig
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.raft.batch import NotLeaderError
from kafka.raft.file_quorum_state_store import FileQuorumStateStore
from kafka.raft.kafka_metadata_log import KafkaMetadataLog
from kafka.raft.kafka_raft_client import KafkaRaftClient
from kafka.raft.kafka_raft_client_driver import KafkaRaftClientDriver
from kafka.raft.raft_config import RaftConfig
from kafka.raft.voter_set import VoterSet
from kafka.server.kafka_network_channel import KafkaNetworkChannel
from kafka.utils.time import Time
from tests.helpers import free_port, wait_until

NODE = 1


class HeldFlushLog(KafkaMetadataLog):
    """The metadata log, whose flush waits while `release` is clear: a disk that is slow on demand."""

    def __init__(self, directory: str, config: LogConfig, time: Time) -> None:
        super().__init__(directory, config, time)
        self.release = threading.Event()
        self.release.set()
        self.held = threading.Event()  # a flush is waiting for `release`

    def flush(self, force_flush_active_segment: bool = True) -> None:
        if not self.release.is_set():
            self.held.set()
            self.release.wait(timeout=30)  # never forever, whatever the test does
            self.held.clear()
        super().flush(force_flush_active_segment)


def start_quorum_of_one(tmp_path) -> tuple[KafkaRaftClientDriver, HeldFlushLog]:
    time = Time()
    directory = tmp_path / "__cluster_metadata-0"
    log = HeldFlushLog(str(directory), LogConfig(), time)
    client = KafkaRaftClient(NODE, VoterSet.from_static({NODE: ("127.0.0.1", free_port())}), log,
                             FileQuorumStateStore(str(directory / "quorum-state")), time, random.Random(7),
                             RaftConfig(), cluster_id="driver-test")
    channel = KafkaNetworkChannel(NODE, {}, 2000, 20, time)
    driver = KafkaRaftClientDriver(client, channel, time, NODE)
    driver.start()
    wait_until(lambda: driver.published.leader_id == NODE, timeout=10,
               message="the quorum of one to elect itself")
    return driver, log


def committed_values(log: KafkaMetadataLog) -> list[bytes]:
    records = log.read(0, 1 << 20).records
    return [r.value for batch in iter_batches(records) if not batch.is_control_batch for r in batch]


def test_appends_and_reads_do_not_wait_for_the_raft_threads_fsync(tmp_path):
    driver, log = start_quorum_of_one(tmp_path)
    try:
        epoch = driver.published.epoch
        first = driver.schedule_append(epoch, [b"first"])
        wait_until(lambda: driver.published.high_watermark > first, timeout=10,
                   message="the first record committed")

        log.release.clear()  # the next flush is slow: the raft thread will sit in it
        second = driver.schedule_append(epoch, [b"second"])
        wait_until(log.held.is_set, timeout=10, message="the raft thread inside the metadata log's flush")

        described: Future = Future()
        # for the raft thread to answer
        driver.handle_request(ApiKey.DESCRIBE_QUORUM, {}, described.set_result)
        seen: dict = {}

        def controller_and_metrics() -> None:  # what the controller's and the metrics' threads do meanwhile
            seen["third"] = driver.schedule_append(epoch, [b"third"])
            seen["log_end_offset"] = driver.log_end_offset()
            seen["published"] = driver.published
            seen["metrics"] = dict(driver.published.raft_metrics)

        other = threading.Thread(target=controller_and_metrics, name="controller-and-metrics")
        other.start()
        other.join(timeout=5)
        assert not other.is_alive(), "an append or a read waited for the raft thread's fsync"
        assert log.held.is_set(), "the raft thread is still in its flush: nothing above waited for it"
        assert seen["third"] == second + 1 and seen["log_end_offset"] == second + 2
        assert seen["published"].leader_id == NODE and seen["published"].epoch == epoch
        assert seen["metrics"]["current-state"] == "leader" and seen["metrics"]["current-leader"] == NODE
        assert not described.done(), "DescribeQuorum is answered by the raft thread, after its write"

        log.release.set()
        wait_until(lambda: driver.published.high_watermark > seen["third"], timeout=10,
                   message="the records appended during the slow flush committed")
        body = described.result(timeout=10)
        partition = body["topics"][0]["partitions"][0]
        assert partition["error_code"] == Errors.NONE and partition["leader_id"] == NODE
    finally:
        log.release.set()
        driver.shutdown()
    assert committed_values(log) == [b"first", b"second", b"third"]
    log.close()


def test_a_resignation_asked_from_another_thread_happens_on_the_raft_thread(tmp_path):
    driver, log = start_quorum_of_one(tmp_path)
    try:
        epoch = driver.published.epoch
        driver.resign(epoch)  # what the controller does when it renounces
        wait_until(lambda: driver.published.epoch > epoch and driver.published.leader_id == NODE, timeout=10,
                   message="a new epoch (a quorum of one elects itself again)")
        with pytest.raises(NotLeaderError):
            driver.schedule_append(epoch, [b"late"])
    finally:
        driver.shutdown()
        log.close()
