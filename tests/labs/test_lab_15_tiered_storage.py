"""Lab 15, tiered storage (docs/labs/15-tiered-storage.md): `ReplicaManager._handle_offset_out_of_range_error`
in kafka/server/replica_manager.py, Kafka's handleOffsetOutOfRangeError, which decides that an offset the
local log no longer holds is in remote storage rather than out of range. First on the ReplicaManager of a
real broker whose topic's old segments were copied to a LocalTieredStorage and deleted locally, then as the
page runs it: a consumer reading from offset 0 (a cold read on the remote-log-reader threads, through the
RemoteFetch purgatory) and one reading the tail (a hot read on the I/O thread), seen in the request trace.

Seed 002: "But sometimes if you are accessing the old data, the data may need to be retrieved from disk. This
can cause a network thread to be blocked. [...] the Tiered Storage capability is able to address this issue"
"""

from __future__ import annotations

import urllib.request

import pytest

from kafka.metrics.remote_storage_metrics import REMOTE_FETCH_ERRORS, REMOTE_FETCH_REQUESTS
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request
from kafka.server.fetch_params import FetchParams
from kafka.server.fetch_partition_data import FetchPartitionInfo
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import InProcessBroker, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_long_poll import fetch_body
from tests.integration.test_tiered_storage_copy import tiered_broker
from tests.integration.test_tiered_storage_fetch import (
    EARLIEST_LOCAL,
    LATEST_TIERED,
    TIERED_TOPIC,
    consume,
    list_offset,
    produce,
    tiered_past,
)
from tests.wire import WireClient

TOPIC = "lab15"
RECORDS = 300
CONSUMER, FOLLOWER = -1, 2  # replica ids: a consumer's fetch, and broker 2's as a follower's would be


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    data = tmp_path_factory.mktemp("lab15")
    configs = {**tiered_broker(data / "remote"), "request.trace.enable": "true"}
    started = InProcessBroker(data / "data", configs)
    create_topic(started.bootstrap, TOPIC, 1, TIERED_TOPIC)
    produce(started, TOPIC, RECORDS)
    tiered_past(started, TOPIC, 100)  # the copier and local retention moved the local log start past 100
    yield started
    started.stop()


def handle(broker, offset: int, replica_id: int = CONSUMER, max_bytes: int = 1 << 20):
    """What the exercise answers for a fetch at `offset` that the local log could not serve."""
    replica_manager = broker.server.replica_manager
    tp = TopicPartition(TOPIC, 0)
    params = FetchParams(replica_id=replica_id, max_wait_ms=500, min_bytes=1, max_bytes=1 << 20)
    info = FetchPartitionInfo(offset, max_bytes)
    return replica_manager._handle_offset_out_of_range_error(tp, info, params, max_bytes, True,
                                                             replica_manager.get_partition(tp))


def fetch(broker, offset: int, client_id: str = "lab15"):
    """One Fetch v12 at `offset` of partition 0, as a consumer with this client id sends it."""
    client = WireClient(broker.port)
    try:
        body = fetch_body(TOPIC, offset, 5000)
        client.send_frame(encode_request(APIS[ApiKey.FETCH], 12, 1, client_id, body))
        _, response = decode_response(APIS[ApiKey.FETCH], 12, client.read_frame())
    finally:
        client.close()
    return response.responses[0].partitions[0]


def local_log_start(broker) -> int:
    return broker.server.log_manager.get_log(TOPIC, 0).local_log_start_offset


def test_an_offset_below_the_local_log_is_read_from_remote_storage(broker):
    """a consumer's fetch at an offset between the log start and the local log start becomes a remote read:
    no error, no records yet, and a RemoteStorageFetchInfo for the reader pool at that offset"""
    for offset in (0, local_log_start(broker) - 1):
        data = handle(broker, offset)
        assert data.error == Errors.NONE, (
            f"offset {offset} got {data.error.name}: it is below the local log start "
            f"({local_log_start(broker)}) but not below the log start (0), so it is in remote storage")
        remote = data.delayed_remote_storage_fetch
        assert remote is not None, (
            f"offset {offset}: no delayed_remote_storage_fetch, so nobody reads it from remote storage "
            "(a consumer's fetch carries a RemoteStorageFetchInfo)")
        assert (remote.topic_partition, remote.fetch_offset) == (TopicPartition(TOPIC, 0), offset), (
            f"the remote read is for {remote.topic_partition} at {remote.fetch_offset}, "
            f"not {TOPIC}-0 at {offset}")
        assert data.records == b"" and data.high_watermark == RECORDS, (
            "the answer has no records yet (the reader pool reads them) and the partition's high watermark")


def test_a_follower_is_told_the_offset_moved_to_tiered_storage(broker):
    """a follower's fetch at a remote offset answers OFFSET_MOVED_TO_TIERED_STORAGE with the log start
    offset, so the follower builds its state from remote storage instead of fetching the records"""
    data = handle(broker, 0, replica_id=FOLLOWER)
    assert data.error == Errors.OFFSET_MOVED_TO_TIERED_STORAGE, (
        f"a follower's fetch at 0 got {data.error.name}: followers do not read remote storage through the "
        "leader (params.is_from_follower)")
    assert data.log_start_offset == 0 and data.delayed_remote_storage_fetch is None


def test_an_offset_outside_the_log_is_still_out_of_range(broker):
    """an offset past the log end, or below the log start, is OFFSET_OUT_OF_RANGE, never a remote read"""
    for offset in (RECORDS + 10, -5):
        data = handle(broker, offset)
        assert data.error == Errors.OFFSET_OUT_OF_RANGE, (
            f"offset {offset} got {data.error.name}: only log start <= offset < local log start is remote")
        assert data.delayed_remote_storage_fetch is None


def test_a_fetch_at_offset_0_answers_the_first_records_from_remote_storage(broker):
    """a Fetch at offset 0 of the tiered topic answers the first records, read from remote storage"""
    partition = fetch(broker, 0)
    assert partition.error_code == Errors.NONE, (
        f"the fetch at offset 0 answered {Errors(partition.error_code).name}, "
        "not records from remote storage")
    assert partition.records, "the fetch at offset 0 answered no records"
    assert list_offset(broker, TOPIC, -2).offset == 0, "the log still starts at 0"
    assert list_offset(broker, TOPIC, EARLIEST_LOCAL).offset == local_log_start(broker) > 100
    assert list_offset(broker, TOPIC, LATEST_TIERED).offset >= local_log_start(broker) - 1


def test_a_consumer_reads_every_record_from_offset_0(broker):
    """a consumer reading from offset 0 gets every record in order, the old ones from remote storage, the
    new ones from the local log, and the broker counts its remote reads"""
    rlm = broker.server.replica_manager.remote_log_manager
    before = rlm.stats.count(REMOTE_FETCH_REQUESTS, TOPIC)
    cold = consume(broker, TOPIC, 0, RECORDS)
    assert [offset for offset, _ in cold] == list(range(RECORDS))
    assert rlm.stats.count(REMOTE_FETCH_REQUESTS, TOPIC) > before, "RemoteFetchRequestsPerSec did not count"
    assert rlm.stats.count(REMOTE_FETCH_ERRORS, TOPIC) == 0


def traced_fetches(broker, client_id: str) -> list[str]:
    url = f"{broker.server.metrics_endpoint.url}/requests?api=FetchConsumer&client_id={client_id}&limit=50"
    with urllib.request.urlopen(url, timeout=10) as page:
        return [block for block in page.read().decode().split("\n\n") if block.startswith("FetchConsumer")]


def test_the_request_trace_shows_a_cold_fetch_on_a_reader_thread_and_a_hot_one_on_an_io_thread(broker):
    """in the request trace, a cold fetch waits in the purgatory and leaves it on a remote-log-reader
    thread; a hot fetch from the tail is answered by the I/O thread without waiting"""
    for client_id, offset in (("lab15-cold", 0), ("lab15-hot", RECORDS - 5)):
        error = fetch(broker, offset, client_id).error_code
        assert error == Errors.NONE, f"the fetch at offset {offset} answered {Errors(error).name}"
    cold = wait_until(lambda: traced_fetches(broker, "lab15-cold"), message="the cold fetch in the trace")[-1]
    assert "waiting in purgatory" in cold and "remote-log-reader" in cold.split("out of purgatory", 1)[-1], (
        f"the cold fetch should leave the purgatory on a remote-log-reader thread:\n{cold}")
    hot = wait_until(lambda: traced_fetches(broker, "lab15-hot"), message="the hot fetch in the trace")[-1]
    assert "purgatory" not in hot, f"the hot fetch had its records locally and should not wait:\n{hot}"
