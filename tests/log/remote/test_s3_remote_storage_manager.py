"""The RemoteStorageManager contract, on each implementation: S3RemoteStorageManager against a real S3
server (S3Proxy on a free port, tests/s3proxy.py) and LocalTieredStorage on a directory. A segment and
its indexes are copied, fetched whole and by byte range, each index fetched; a segment without aborted
transactions has no transaction index; delete, delete again, and a fetch after it finds nothing.

Then what only S3 has: the object keys (LocalTieredStorage's layout under key.prefix), a wrong secret
refused by the server's signature check and not retried, and transient errors (503 SlowDown, a dropped
connection) retried at most s3.max.attempts times with backoff on the injected clock.
"""

from __future__ import annotations

import random
import socket
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from kafka.log.remote.local_tiered_storage import LocalTieredStorage
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentId, RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import (
    IndexType,
    LogSegmentData,
    RemoteResourceNotFoundException,
    RemoteStorageException,
    RemoteStorageManager,
)
from kafka.log.remote.s3_remote_storage_manager import S3RemoteStorageManager
from kafka.utils.time import SYSTEM, MockTime
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.uuid import uuid_to_string
from tests.s3proxy import S3Proxy

TOPIC_ID = uuid.UUID("7b1e1d6e-2b4a-4a39-9f1e-0c1d2e3f4a5b")
PARTITION = TopicIdPartition(TOPIC_ID, "orders", 3)
SEGMENT_SIZE = 300_000  # several TCP windows, so a range really is cut out of a larger object
LEADER_EPOCHS = b"0\n2\n0 42\n3 90\n"


@pytest.fixture(scope="module")
def s3proxy(tmp_path_factory):
    with S3Proxy(tmp_path_factory.mktemp("s3proxy")) as server:
        yield server


def s3_store(request: pytest.FixtureRequest, tmp_path: Path) -> RemoteStorageManager:
    server: S3Proxy = request.getfixturevalue("s3proxy")
    rsm = S3RemoteStorageManager(SYSTEM)
    # One server for the module; each test in its own part of the bucket.
    rsm.configure({**server.rsm_configs(key_prefix=f"{tmp_path.name}/"), "broker.id": "0"})
    return rsm


def local_store(request: pytest.FixtureRequest, tmp_path: Path) -> RemoteStorageManager:
    rsm = LocalTieredStorage()
    rsm.configure({"dir": str(tmp_path / "remote"), "broker.id": "0"})
    return rsm


STORES = [
    pytest.param(s3_store, id="s3", marks=pytest.mark.broker),  # starts S3Proxy: never `fast`
    pytest.param(local_store, id="local"),
]


@pytest.fixture(params=STORES)
def rsm(request, tmp_path) -> RemoteStorageManager:
    store = request.param(request, tmp_path)
    yield store
    store.close()


class Segment:
    """A rolled segment's files on disk, with distinct contents, and its metadata."""

    def __init__(self, directory: Path, with_transactions: bool = True, seed: int = 0) -> None:
        rng = random.Random(seed)
        directory.mkdir(parents=True, exist_ok=True)
        self.contents = {"log": rng.randbytes(SEGMENT_SIZE), "index": rng.randbytes(80),
                         "timeindex": rng.randbytes(120), "txnindex": rng.randbytes(68),
                         "snapshot": rng.randbytes(41)}
        paths = {}
        for suffix, body in self.contents.items():
            paths[suffix] = directory / f"00000000000000000042.{suffix}"
            paths[suffix].write_bytes(body)
        self.data = LogSegmentData(paths["log"], paths["index"], paths["timeindex"],
                                   paths["txnindex"] if with_transactions else None, paths["snapshot"],
                                   LEADER_EPOCHS)
        self.metadata = RemoteLogSegmentMetadata(
            RemoteLogSegmentId.generate_new(PARTITION), start_offset=42, end_offset=99,
            max_timestamp_ms=1_700_000_000_000, broker_id=0, event_timestamp_ms=1_700_000_000_000,
            segment_size_in_bytes=SEGMENT_SIZE, segment_leader_epochs={0: 42, 3: 90})
        self.log = self.contents["log"]

    def expected_index(self, index_type: IndexType) -> bytes:
        return {IndexType.OFFSET: self.contents["index"], IndexType.TIMESTAMP: self.contents["timeindex"],
                IndexType.TRANSACTION: self.contents["txnindex"],
                IndexType.PRODUCER_SNAPSHOT: self.contents["snapshot"],
                IndexType.LEADER_EPOCH: LEADER_EPOCHS}[index_type]


def read(stream) -> bytes:
    with stream:
        return stream.read()


# --- the contract, on every store

def test_a_copied_segment_is_fetched_whole_and_each_index_as_it_was(rsm, tmp_path):
    segment = Segment(tmp_path / "segment")
    assert rsm.copy_log_segment_data(segment.metadata, segment.data) is None
    assert read(rsm.fetch_log_segment(segment.metadata, 0)) == segment.log
    for index_type in IndexType:
        assert read(rsm.fetch_index(segment.metadata, index_type)) == segment.expected_index(index_type), \
            index_type


@pytest.mark.parametrize("start, end", [(0, 0), (0, 9), (1000, 1999), (123_457, None),
                                        (SEGMENT_SIZE - 1, None), (SEGMENT_SIZE - 10, SEGMENT_SIZE - 1)])
def test_a_range_is_fetched_from_start_to_end_inclusive(rsm, tmp_path, start, end):
    segment = Segment(tmp_path / "segment")
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    expected = segment.log[start:] if end is None else segment.log[start:end + 1]
    assert read(rsm.fetch_log_segment(segment.metadata, start, end)) == expected


def test_a_stream_may_be_read_piece_by_piece(rsm, tmp_path):
    segment = Segment(tmp_path / "segment")
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    with rsm.fetch_log_segment(segment.metadata, 100) as stream:
        first, second = stream.read(61), stream.read(1000)
    assert first + second == segment.log[100:1161]


@pytest.mark.parametrize("start, end", [(-1, None), (20, 10), (0, SEGMENT_SIZE), (SEGMENT_SIZE, None)])
def test_positions_outside_the_segment_are_refused(rsm, tmp_path, start, end):
    segment = Segment(tmp_path / "segment")
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    with pytest.raises(ValueError):
        rsm.fetch_log_segment(segment.metadata, start, end)


def test_a_segment_without_aborted_transactions_has_no_transaction_index(rsm, tmp_path):
    segment = Segment(tmp_path / "segment", with_transactions=False)
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_index(segment.metadata, IndexType.TRANSACTION)
    assert read(rsm.fetch_index(segment.metadata, IndexType.OFFSET)) == segment.contents["index"]
    assert read(rsm.fetch_log_segment(segment.metadata, 0)) == segment.log


def test_delete_then_delete_again_then_nothing_is_found(rsm, tmp_path):
    segment = Segment(tmp_path / "segment")
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    rsm.delete_log_segment_data(segment.metadata)
    rsm.delete_log_segment_data(segment.metadata)  # deleting what is not there is not an error
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(segment.metadata, 0)
    for index_type in IndexType:
        with pytest.raises(RemoteResourceNotFoundException):
            rsm.fetch_index(segment.metadata, index_type)


def test_a_segment_never_copied_is_not_found_and_its_delete_is_no_error(rsm, tmp_path):
    segment = Segment(tmp_path / "segment")
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(segment.metadata, 0, 10)
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_index(segment.metadata, IndexType.OFFSET)
    rsm.delete_log_segment_data(segment.metadata)


def test_the_same_segment_copied_twice_is_two_remote_segments(rsm, tmp_path):
    first, second = Segment(tmp_path / "first", seed=1), Segment(tmp_path / "second", seed=2)
    rsm.copy_log_segment_data(first.metadata, first.data)
    rsm.copy_log_segment_data(second.metadata, second.data)  # same offsets, a new remote segment id
    rsm.delete_log_segment_data(first.metadata)
    assert read(rsm.fetch_log_segment(second.metadata, 0)) == second.log
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(first.metadata, 0)


def test_a_copy_that_fails_leaves_nothing_to_read(rsm, tmp_path):
    segment = Segment(tmp_path / "segment")
    segment.data.producer_snapshot_index.unlink()  # the copier's file vanished under it
    with pytest.raises(RemoteStorageException):
        rsm.copy_log_segment_data(segment.metadata, segment.data)
    for index_type in (IndexType.OFFSET, IndexType.TIMESTAMP, IndexType.LEADER_EPOCH):
        with pytest.raises(RemoteResourceNotFoundException):
            rsm.fetch_index(segment.metadata, index_type)
    with pytest.raises(RemoteResourceNotFoundException):
        rsm.fetch_log_segment(segment.metadata, 0)


# --- S3 only

pytest_s3 = pytest.mark.broker  # each starts or uses S3Proxy


def s3_rsm(endpoint: str, configs: dict[str, str], time=SYSTEM, **overrides: str) -> S3RemoteStorageManager:
    rsm = S3RemoteStorageManager(time)
    rsm.configure({**configs, "s3.endpoint.url": endpoint, **overrides})
    return rsm


@pytest_s3
def test_objects_are_named_as_local_tiered_storage_names_its_files(s3proxy, tmp_path):
    rsm = s3_rsm(s3proxy.endpoint, s3proxy.rsm_configs(key_prefix="cluster-a/"))
    segment = Segment(tmp_path / "segment")
    rsm.copy_log_segment_data(segment.metadata, segment.data)
    partition = f"cluster-a/orders-3-{uuid_to_string(TOPIC_ID)}/"
    fileset = f"00000000000000000042-{uuid_to_string(segment.metadata.remote_log_segment_id.id)}"
    assert sorted(s3proxy.client().list_objects(partition)) == sorted(
        partition + fileset + suffix for suffix in (".log", ".index", ".timeindex", ".txnindex", ".snapshot",
                                                    ".leader_epoch_checkpoint"))
    rsm.delete_log_segment_data(segment.metadata)
    assert list(s3proxy.client().list_objects(partition)) == []


@pytest_s3
def test_a_wrong_secret_is_refused_by_the_server_and_not_retried(s3proxy, tmp_path):
    clock = MockTime(start_ms=SYSTEM.milliseconds())  # signatures carry the time: the server checks it
    rsm = s3_rsm(s3proxy.endpoint, s3proxy.rsm_configs(), clock, **{"aws.secret.access.key": "wrong"})
    segment = Segment(tmp_path / "segment")
    with pytest.raises(RemoteStorageException, match="SignatureDoesNotMatch"):
        rsm.copy_log_segment_data(segment.metadata, segment.data)
    assert clock.hi_res_clock_ms() == 0, "no backoff slept"


@pytest_s3
def test_transient_errors_are_retried_with_backoff_and_then_succeed(s3proxy, tmp_path):
    clock = MockTime(start_ms=SYSTEM.milliseconds())
    with FlakyFront(s3proxy.port, failures=2) as front:
        rsm = s3_rsm(front.endpoint, s3proxy.rsm_configs(key_prefix=f"{tmp_path.name}/"), clock)
        segment = Segment(tmp_path / "segment")
        rsm.copy_log_segment_data(segment.metadata, segment.data)  # its first PUT: 503, 503, then through
        assert read(rsm.fetch_log_segment(segment.metadata, 5, 14)) == segment.log[5:15]
    assert front.refused == 2
    assert 0.8 * (100 + 200) <= clock.hi_res_clock_ms() <= 1.2 * (100 + 200)  # s3.retry.backoff.ms, doubled


@pytest_s3
@pytest.mark.parametrize("answer", ["503 SlowDown", "dropped connection"])
def test_retries_are_bounded_by_max_attempts(s3proxy, tmp_path, answer):
    clock = MockTime(start_ms=SYSTEM.milliseconds())
    with FlakyFront(s3proxy.port, failures=1000, drop=answer == "dropped connection") as front:
        rsm = s3_rsm(front.endpoint, s3proxy.rsm_configs(), clock, **{"s3.max.attempts": "4"})
        segment = Segment(tmp_path / "segment")
        with pytest.raises(RemoteStorageException) as raised:
            rsm.fetch_index(segment.metadata, IndexType.OFFSET)
    assert not isinstance(raised.value, RemoteResourceNotFoundException)
    assert front.refused == 4
    assert 0.8 * (100 + 200 + 400) <= clock.hi_res_clock_ms() <= 1.2 * (100 + 200 + 400)


def test_configure_needs_a_bucket_and_credentials_and_happens_once(monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    unconfigured = S3RemoteStorageManager(SYSTEM)
    with pytest.raises(RemoteStorageException, match="not configured"):
        unconfigured.fetch_log_segment(_metadata(), 0)
    with pytest.raises(ValueError, match="s3.bucket.name"):
        S3RemoteStorageManager(SYSTEM).configure({"aws.access.key.id": "a", "aws.secret.access.key": "s"})
    with pytest.raises(ValueError, match="aws.access.key.id"):
        S3RemoteStorageManager(SYSTEM).configure({"s3.bucket.name": "kafka-tiered-storage"})
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "from-env")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "from-env-secret")
    rsm = S3RemoteStorageManager(SYSTEM)
    rsm.configure({"s3.bucket.name": "kafka-tiered-storage", "s3.region": "eu-west-1"})
    assert rsm.client is not None and rsm.client.config.endpoint == "https://s3.eu-west-1.amazonaws.com"
    assert rsm.client.config.credentials.access_key_id == "from-env"
    with pytest.raises(RemoteStorageException, match="configured"):
        rsm.configure({"s3.bucket.name": "another"})


def _metadata() -> RemoteLogSegmentMetadata:
    return RemoteLogSegmentMetadata(RemoteLogSegmentId.generate_new(PARTITION), 0, 9, 0, 0, 0, 100, {0: 0})


class FlakyFront:
    """A loopback server in front of S3Proxy whose first `failures` connections fail as S3 fails under
    load: answered `503 SlowDown` (or, with drop, closed without an answer); later connections are
    passed through to the server. Counts the connections it failed."""

    SLOW_DOWN = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                 b"<Message>Please reduce your request rate.</Message></Error>")

    def __init__(self, target_port: int, failures: int, drop: bool = False) -> None:
        self.target_port = target_port
        self.failures = failures
        self.drop = drop
        self.refused = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        self._spawn(self._accept_loop)

    def __enter__(self) -> FlakyFront:
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept loop (close alone does not, on Linux)
        self._server.close()
        for thread in self._threads:
            thread.join(10)

    def _spawn(self, target: Callable[..., None], *args) -> None:
        thread = threading.Thread(target=target, args=args, name="flaky-front", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            if self.refused < self.failures:
                self.refused += 1
                self._fail(client)
            else:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
                self._spawn(_pipe, client, upstream)
                self._spawn(_pipe, upstream, client)

    def _fail(self, client: socket.socket) -> None:
        with client:
            client.settimeout(10)
            request = b""
            while b"\r\n\r\n" not in request:  # the request's head; a body is left unread
                chunk = client.recv(65536)
                if not chunk:
                    return
                request += chunk
            if not self.drop:
                head = (f"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nConnection: close\r\n"
                        f"Content-Length: {len(self.SLOW_DOWN)}\r\n\r\n")
                client.sendall(head.encode() + self.SLOW_DOWN)


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass
    finally:  # one side closed: end both directions, which wakes the other pipe's recv
        for s in (source, target):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
