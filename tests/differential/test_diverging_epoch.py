"""Fetch v12+ with a LastFetchedEpoch, asked of both brokers: the follower-truncation check of KIP-595 on
the fetch path, which Kafka makes for consumers too (a KIP-320 consumer may send the epoch of the last
record it read).

What Apache Kafka 4.4 answers (Partition.readRecords; each case below asserts Kafka's answer first, so a
change in Kafka shows as such, then compares ours with it field by field):

* last_fetched_epoch -1 (or any negative): no check, the fetch is read as before v12.
* Otherwise the leader looks the epoch up in its leader-epoch cache (LeaderEpochFileCache.endOffsetFor):
  the largest epoch <= it and where that epoch ends (the latest epoch ends at the log end offset; an epoch
  older than every known one is answered with itself, ending where the first known epoch starts).
  - No such epoch (one newer than the latest): OFFSET_OUT_OF_RANGE, high watermark, last stable offset and
    log start offset -1, as any out-of-range fetch. A consumer then resets; a follower asks
    OffsetsForLeaderEpoch.
  - fetch_offset below the log start offset: OFFSET_OUT_OF_RANGE, diverging or not.
  - The epoch found differs from last_fetched_epoch, or it ends before fetch_offset: error NONE, records
    empty (not null), the tagged field diverging_epoch = {epoch found, its end offset}, and the high
    watermark, last stable offset and log start offset as a read would give them. So a fetch past the log
    end with the latest epoch is not OFFSET_OUT_OF_RANGE: it is diverging at the log end offset.
  - Otherwise it is read as usual (no diverging_epoch).
* current_leader_epoch is checked before it: older than the leader's FENCED_LEADER_EPOCH, newer
  UNKNOWN_LEADER_EPOCH, whatever last_fetched_epoch says.
* A fetch with replica_id >= 0 from a broker that is not a follower of the partition (on one node, every
  broker; the node's own id included): NOT_LEADER_OR_FOLLOWER without a current_leader_epoch,
  UNKNOWN_LEADER_EPOCH with the right one (Partition.followerReplicaOrThrow); never read nor validated.
* In an incremental fetch session a diverging partition is always in the answer (CachedPartition's
  maybeUpdateResponseData), though nothing else about it changed.

A leader epoch moves only when leadership does; on one node a restart moves it (the controller takes
leadership away at shutdown and gives it back when the broker is unfenced: +2 each time on both brokers),
so the logs of several epochs come from a pair of brokers of this module's own, restarted twice.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import encode_request
from kafka.protocol.record_batch import iter_batches
from kafka.utils.free_port import free_port
from tests.differential.conftest import SHARED_SETTINGS, our_settings
from tests.differential.oracle import Pair, Side, differences
from tests.differential.test_produce_fetch import create, delete_records, list_offsets, produce, records
from tests.helpers import BrokerProcess, unique_topic, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

FIRST_VERSION = 12  # the first Fetch version with last_fetched_epoch and diverging_epoch
CONSUMER, DEBUGGING = -1, -2
NO_BROKER = 2  # the id of a broker that is in neither cluster


@dataclass(frozen=True)
class Answer:
    """The fields of a partition's answer that this check is about. `records`: the base offset of the
    first batch returned, or "empty" (a zero-length records field; null would be None)."""

    error_code: int = 0
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    diverging_epoch: tuple[int, int] = (-1, -1)
    records: int | str | None = "empty"


def read(high_watermark: int, first_batch: int | str = "empty", log_start_offset: int = 0) -> Answer:
    return Answer(0, high_watermark, high_watermark, log_start_offset, (-1, -1), first_batch)


def diverging(epoch: int, end_offset: int, high_watermark: int, log_start_offset: int = 0) -> Answer:
    return Answer(0, high_watermark, high_watermark, log_start_offset, (epoch, end_offset), "empty")


def refused(error: Errors) -> Answer:
    return Answer(error.value)


OUT_OF_RANGE = refused(Errors.OFFSET_OUT_OF_RANGE)


def answer_of(response) -> Answer:
    p = response.responses[0].partitions[0]
    batches = None if p.records is None else list(iter_batches(p.records))
    return Answer(p.error_code, p.high_watermark, p.last_stable_offset, p.log_start_offset,
                  (p.diverging_epoch.epoch, p.diverging_epoch.end_offset),
                  None if batches is None else batches[0].base_offset if batches else "empty")


def fetch_body(version: int, topic: str, offset: int, last_fetched_epoch: int, current_leader_epoch: int = -1,
               replica_id: int = CONSUMER, topic_id=None, session_id: int = 0,
               session_epoch: int = -1) -> dict:
    body = {"max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20, "isolation_level": 0,
            "session_id": session_id, "session_epoch": session_epoch, "forgotten_topics_data": [],
            "rack_id": "",
            "topics": [{"topic": topic, "topic_id": topic_id, "partitions": [{
                "partition": 0, "current_leader_epoch": current_leader_epoch, "fetch_offset": offset,
                "last_fetched_epoch": last_fetched_epoch, "log_start_offset": -1,
                "partition_max_bytes": 1 << 20}]}]}
    if version >= 15:  # KIP-903: the replica id moved into a tagged ReplicaState
        body["replica_state"] = {"replica_id": replica_id, "replica_epoch": -1}
    else:
        body["replica_id"] = replica_id
    return body


def versions(pair: Pair) -> list[int]:
    """12, and the newest Fetch version both brokers serve."""
    newest = min(next(a.max_version for a in side.request(ApiKey.API_VERSIONS, 3, {
        "client_software_name": "oracle", "client_software_version": "1"}).api_keys
        if a.api_key == ApiKey.FETCH)
        for side in pair.sides)
    return sorted({FIRST_VERSION, newest})


def topic_ids(pair: Pair, topic: str) -> dict[str, object]:
    return {side.name: side.request(ApiKey.METADATA, 12,
                                    {"topics": [{"name": topic, "topic_id": uuid.UUID(int=0)}],
                                     "allow_auto_topic_creation": False,
                                     "include_topic_authorized_operations": False}
                                    ).topics[0].topic_id for side in pair.sides}


class Table:
    """Cases asked of both brokers. Each asserts Apache Kafka's answer as stated, then our answer against
    it field by field; every case that fails is reported at the end, with how."""

    def __init__(self, pair: Pair, topic: str) -> None:
        self.pair, self.topic, self.failures = pair, topic, []
        self._ids: dict[str, object] | None = None

    def body(self, version: int, offset: int, last_fetched_epoch: int, **kwargs):
        if version < 13:
            return fetch_body(version, self.topic, offset, last_fetched_epoch, **kwargs)
        if self._ids is None:
            self._ids = topic_ids(self.pair, self.topic)
        return lambda side: fetch_body(version, self.topic, offset, last_fetched_epoch,
                                       topic_id=self._ids[side.name], **kwargs)

    def case(self, kafka: Answer, version: int, offset: int, last_fetched_epoch: int, **kwargs) -> None:
        name = " ".join([f"v{version} fetch_offset={offset} last_fetched_epoch={last_fetched_epoch}",
                         *(f"{k}={v}" for k, v in kwargs.items())])
        ours, theirs = self.pair.ask(ApiKey.FETCH, version,
                                     self.body(version, offset, last_fetched_epoch, **kwargs))
        if answer_of(theirs) != kafka:
            self.failures.append(f"{name}: Apache Kafka answers {answer_of(theirs)}, this test says {kafka}")
        elif found := differences(ours, theirs, volatile=("port",)):  # v16+ NodeEndpoints: each its own port
            self.failures.append(f"{name}: ours {answer_of(ours)}\n      " + "\n      ".join(
                line[:line.index(".records: ") + 9] + " differ" if ".records: " in line else line
                for line in found))

    def check(self) -> None:
        assert not self.failures, f"{len(self.failures)} cases:\n  " + "\n  ".join(self.failures)


@pytest.fixture
def one_epoch(pair):
    """A topic of one leader epoch (0): two batches, offsets 0-2 and 3-4."""
    topic = unique_topic("one-epoch")
    create(pair, topic)
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(3)))
    pair.same(ApiKey.PRODUCE, 9, produce(topic, records(2)))
    return topic


def test_last_fetched_epoch_on_a_log_of_one_epoch(pair, one_epoch):
    table = Table(pair, one_epoch)
    for v in versions(pair):
        table.case(read(5), v, 5, -1)                  # no epoch: as before v12
        table.case(OUT_OF_RANGE, v, 6, -1)
        table.case(read(5, 0), v, 0, 0)               # epoch 0 ends at the log end, 5: read
        table.case(read(5, 3), v, 3, 0)
        table.case(read(5), v, 5, 0)
        table.case(diverging(0, 5, 5), v, 6, 0)       # past the end of epoch 0: diverging, not out of range
        table.case(diverging(0, 5, 5), v, 10, 0)
        for newer in (1, 5):                          # an epoch this log never had
            for offset in (0, 3, 5, 10):
                table.case(OUT_OF_RANGE, v, offset, newer)
        table.case(diverging(0, 5, 5), v, 10, 0, replica_id=DEBUGGING)
        table.case(OUT_OF_RANGE, v, 3, 5, replica_id=DEBUGGING)
        table.case(diverging(0, 5, 5), v, 10, 0, current_leader_epoch=0)
        table.case(OUT_OF_RANGE, v, 3, 5, current_leader_epoch=0)
        table.case(refused(Errors.UNKNOWN_LEADER_EPOCH), v, 10, 0, current_leader_epoch=1)  # checked first
        table.case(refused(Errors.UNKNOWN_LEADER_EPOCH), v, 3, 5, current_leader_epoch=1)
    table.check()


def test_last_fetched_epoch_on_an_empty_log(pair):
    topic = unique_topic("no-records")
    create(pair, topic)
    table = Table(pair, topic)
    for v in versions(pair):
        table.case(read(0), v, 0, 0)  # the leader wrote epoch 0 at offset 0 when it took the partition
        table.case(diverging(0, 0, 0), v, 1, 0)
        table.case(OUT_OF_RANGE, v, 1, -1)
        table.case(OUT_OF_RANGE, v, 0, 5)
    table.check()


def test_last_fetched_epoch_below_the_log_start_offset(pair, one_epoch):
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(one_epoch, 3))
    table = Table(pair, one_epoch)
    for v in versions(pair):
        table.case(OUT_OF_RANGE, v, 1, 0)  # below the log start: out of range, before any epoch check
        table.case(read(5, 3, log_start_offset=3), v, 3, 0)
        table.case(diverging(0, 5, 5, log_start_offset=3), v, 10, 0)
        table.case(OUT_OF_RANGE, v, 3, 5)
    table.check()


def test_a_follower_fetch_from_a_broker_that_is_no_replica(pair, one_epoch):
    """One node, replication factor 1: no broker follows the partition, not even the node itself (id 1)."""
    table = Table(pair, one_epoch)
    for v in versions(pair):
        for replica_id in (1, NO_BROKER):
            for offset, epoch in ((3, -1), (3, 0), (10, 0), (3, 5)):
                table.case(refused(Errors.NOT_LEADER_OR_FOLLOWER), v, offset, epoch, replica_id=replica_id)
                table.case(refused(Errors.UNKNOWN_LEADER_EPOCH), v, offset, epoch, replica_id=replica_id,
                           current_leader_epoch=0)
    table.check()


def test_a_diverging_partition_is_answered_in_an_incremental_fetch_session(pair, one_epoch):
    """A new session reads from 3; the next fetch of it moves the partition past the log end with epoch 0,
    then one names no partition at all (the session remembers the offset and the epoch): the partition is in
    both answers, diverging, though its high watermark and log start did not change."""
    ours, theirs = pair.ask(ApiKey.FETCH, FIRST_VERSION,
                            fetch_body(FIRST_VERSION, one_epoch, 3, 0, session_epoch=0))
    assert answer_of(theirs) == read(5, 3) and theirs.session_id != 0
    assert not differences(ours, theirs, volatile=("session_id",))
    sessions = {"ours": ours.session_id, "apache": theirs.session_id}
    def session_fetch(session_epoch: int, topics: bool):
        def body(side: Side) -> dict:
            b = fetch_body(FIRST_VERSION, one_epoch, 10, 0, session_id=sessions[side.name],
                           session_epoch=session_epoch)
            return b if topics else {**b, "topics": []}
        return body

    failures = []
    for name, body in (("moved to 10", session_fetch(1, True)),
                       ("no partition named", session_fetch(2, False))):
        ours, theirs = pair.ask(ApiKey.FETCH, FIRST_VERSION, body)
        assert theirs.error_code == 0 and theirs.session_id == sessions["apache"]
        assert answer_of(theirs) == diverging(0, 5, 5), f"{name}: Apache Kafka answers {answer_of(theirs)}"
        if found := differences(ours, theirs, volatile=("session_id",)):
            failures.append(f"{name}:\n    " + "\n    ".join(found))
    assert not failures, "\n  ".join(failures)


def raw_answer(side: Side, version: int, body: dict) -> bytes:
    """The answer's bytes after the correlation id: the tagged fields exactly as the broker wrote them."""
    side.client.correlation_id += 1
    side.client.send_frame(encode_request(APIS[ApiKey.FETCH], version, side.client.correlation_id,
                                          "wire-test", body))
    return side.client.read_frame()[4:]


def test_the_diverging_epoch_is_written_as_kafka_writes_it(pair, one_epoch):
    """Byte for byte: diverging_epoch is tag 0 of the partition (v12+), written only when set, as Kafka's
    generated code writes a tagged struct that differs from its default."""
    differ = []
    for offset, epoch in ((10, 0), (5, 0), (10, -1)):  # diverging, a read of nothing, out of range
        body = fetch_body(FIRST_VERSION, one_epoch, offset, epoch)
        ours, theirs = (raw_answer(side, FIRST_VERSION, body) for side in pair.sides)
        if ours != theirs:
            differ.append(f"fetch_offset={offset} last_fetched_epoch={epoch}:\n    ours   {ours.hex()}\n    "
                          f"apache {theirs.hex()}")
    assert not differ, "\n  ".join(differ)


# ---------------------------------------------------------------------------- logs of several leader epochs

KAFKA_EPOCHS = [0, 2, 4]  # the partition's leader epoch when created, after one restart, after two


@dataclass
class Epochs:
    """Both brokers' partitions after two restarts: epoch 0 holds offsets 0-2, epoch 2 offsets 3-4, epoch 4
    offsets 5-6 (one batch each); `leader_epochs` as each broker's Metadata gave them after each start."""

    pair: Pair
    topic: str
    trimmed: str  # the same, for a test to move its log start offset
    leader_epochs: dict[str, list[int]]


def _wait_leading(pair: Pair, topic: str) -> None:
    for side in pair.sides:
        wait_until(lambda side=side: side.request(ApiKey.LIST_OFFSETS, 7, list_offsets(topic, -1)).topics[0]
                   .partitions[0].error_code == 0, timeout=120, message=f"{side.name} to lead {topic} again")


def _leader_epoch(side: Side, topic: str) -> int:
    return side.request(ApiKey.METADATA, 9, {"topics": [{"name": topic}], "allow_auto_topic_creation": False,
                                             "include_topic_authorized_operations": False}
                        ).topics[0].partitions[0].leader_epoch


@pytest.fixture(scope="module")
def epochs(tmp_path_factory):
    home = tmp_path_factory.mktemp("epochs")
    try:
        apache = ApacheKafka(home / "apache", overrides=SHARED_SETTINGS).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    (home / "ours").mkdir()
    port = free_port()
    settings = our_settings(port, free_port())
    ours = BrokerProcess(home / "ours" / "data", settings, port=port)
    pair = Pair(Side("ours", port), Side("apache", apache.nodes[0].port))
    try:
        topics = unique_topic("epochs"), unique_topic("epochs-trimmed")
        for topic in topics:
            create(pair, topic)
        leader_epochs: dict[str, list[int]] = {side.name: [] for side in pair.sides}
        for count in (3, 2, 2):
            if leader_epochs["ours"]:
                pair.close()
                ours.stop()  # each on its own: the two starting at once are slow on a small machine
                ours = BrokerProcess(home / "ours" / "data", settings, port=port)
                apache.restart()
                for topic in topics:
                    _wait_leading(pair, topic)
            for side in pair.sides:
                leader_epochs[side.name].append(_leader_epoch(side, topics[0]))
            for topic in topics:
                pair.same(ApiKey.PRODUCE, 9, produce(topic, records(count)))
        yield Epochs(pair, *topics, leader_epochs)
    finally:
        pair.close()
        ours.stop()
        apache.stop()


def test_each_restart_moves_the_leader_epoch_as_kafka_does(epochs):
    assert epochs.leader_epochs == {"ours": KAFKA_EPOCHS, "apache": KAFKA_EPOCHS}


def test_offsets_for_leader_epoch_after_two_restarts(epochs):
    """The leader-epoch cache the fetch path reads, as OffsetsForLeaderEpoch shows it: Kafka keeps 0@0, 2@3,
    4@5 through both restarts."""
    ours, theirs = epochs.pair.ask(ApiKey.OFFSET_FOR_LEADER_EPOCH, 4, {"replica_id": CONSUMER, "topics": [
        {"topic": epochs.topic, "partitions": [{"partition": 0, "current_leader_epoch": -1, "leader_epoch": e}
                                               for e in range(6)]}]})
    assert [(p.leader_epoch, p.end_offset) for p in theirs.topics[0].partitions] == \
        [(0, 3), (0, 3), (2, 5), (2, 5), (4, 7), (-1, -1)]
    found = differences(ours, theirs)
    assert not found, "OffsetForLeaderEpoch v4: our broker and Apache Kafka differ:\n  " + "\n  ".join(found)


def test_last_fetched_epoch_on_a_log_of_three_epochs(epochs):
    table = Table(epochs.pair, epochs.topic)
    for v in versions(epochs.pair):
        table.case(read(7, 3), v, 3, 0)               # epoch 0 ends at 3: a follower at 3 is in step
        table.case(diverging(0, 3, 7), v, 4, 0)       # one past it: truncate to 3
        table.case(diverging(0, 3, 7), v, 7, 0)
        table.case(diverging(0, 3, 7), v, 2, 1)       # epoch 1 never led: the largest epoch before it is 0
        table.case(diverging(0, 3, 7), v, 3, 1)
        table.case(read(7, 3), v, 4, 2)
        table.case(read(7, 5), v, 5, 2)
        table.case(diverging(2, 5, 7), v, 6, 2)
        table.case(diverging(2, 5, 7), v, 5, 3)
        table.case(read(7, 5), v, 5, 4)
        table.case(read(7), v, 7, 4)
        table.case(diverging(4, 7, 7), v, 8, 4)
        table.case(OUT_OF_RANGE, v, 7, 5)
        table.case(OUT_OF_RANGE, v, 8, -1)
        table.case(diverging(0, 3, 7), v, 4, 0, current_leader_epoch=4)
        table.case(refused(Errors.FENCED_LEADER_EPOCH), v, 4, 0, current_leader_epoch=2)
        table.case(refused(Errors.UNKNOWN_LEADER_EPOCH), v, 4, 0, current_leader_epoch=5)
        table.case(diverging(0, 3, 7), v, 4, 0, replica_id=DEBUGGING)
        table.case(refused(Errors.NOT_LEADER_OR_FOLLOWER), v, 4, 0, replica_id=NO_BROKER)
        table.case(refused(Errors.UNKNOWN_LEADER_EPOCH), v, 4, 0, replica_id=NO_BROKER,
                   current_leader_epoch=4)
        table.case(refused(Errors.FENCED_LEADER_EPOCH), v, 4, 0, replica_id=NO_BROKER, current_leader_epoch=2)
    table.check()


def test_last_fetched_epoch_older_than_the_log(epochs):
    """DeleteRecords to 4 leaves the cache 2@4, 4@5: an older epoch is answered with itself, ending at 4."""
    pair = epochs.pair
    pair.same(ApiKey.DELETE_RECORDS, 2, delete_records(epochs.trimmed, 4))
    table = Table(pair, epochs.trimmed)
    for v in versions(pair):
        table.case(OUT_OF_RANGE, v, 3, 0)                          # below the log start
        table.case(read(7, 3, log_start_offset=4), v, 4, 0)
        table.case(diverging(0, 4, 7, log_start_offset=4), v, 5, 0)
        table.case(diverging(1, 4, 7, log_start_offset=4), v, 5, 1)
        table.case(read(7, 5, log_start_offset=4), v, 5, 2)
        table.case(diverging(2, 5, 7, log_start_offset=4), v, 6, 2)
    table.check()
