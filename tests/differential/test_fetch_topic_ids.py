"""Fetch v13-18 asked of both brokers: topics named by id (KIP-516), an id neither knows, fetch sessions
that remember partitions by id, the follower's ReplicaState (KIP-903), and the leader hints of a
fetch the broker refuses as not the leader (KIP-951's CurrentLeader and NodeEndpoints, v16)."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import ApiKey
from tests.differential.test_diverging_epoch import topic_ids
from tests.differential.test_produce_fetch import create, produce, records
from tests.helpers import unique_topic

SESSION = ("session_id",)  # each broker picks its own session ids: compared by shape


def fetch(version: int, topic_id, offset: int = 0, session_id: int = 0, session_epoch: int = -1,
          replica_id: int = -1, forgotten=(), **partition) -> dict:
    body = {"max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20, "isolation_level": 0,
            "session_id": session_id, "session_epoch": session_epoch, "rack_id": "",
            "topics": [] if topic_id is None else [{"topic_id": topic_id, "partitions": [{
                "partition": 0, "current_leader_epoch": -1, "fetch_offset": offset, "last_fetched_epoch": -1,
                "log_start_offset": -1, "partition_max_bytes": 1 << 20, **partition}]}],
            "forgotten_topics_data": [{"topic_id": t, "partitions": [0]} for t in forgotten]}
    if version >= 15:
        body["replica_state"] = {"replica_id": replica_id, "replica_epoch": -1}
    else:
        body["replica_id"] = replica_id
    return body


@pytest.fixture
def topic(pair) -> tuple[str, dict]:
    name = unique_topic("by-id")
    create(pair, name)
    pair.same(ApiKey.PRODUCE, 9, produce(name, records(3)))
    return name, topic_ids(pair, name)


@pytest.mark.parametrize("version", [13, 14, 15, 16, 17, 18])
def test_a_fetch_by_topic_id(pair, topic, version):
    _, ids = topic
    pair.same(ApiKey.FETCH, version, lambda side: fetch(version, ids[side.name]))
    pair.same(ApiKey.FETCH, version, lambda side: fetch(version, ids[side.name], offset=3))
    pair.same(ApiKey.FETCH, version, lambda side: fetch(version, ids[side.name], offset=9))  # out of range


def test_a_fetch_with_the_high_watermark_it_knows(pair, topic):
    """v18 (KIP-1166): the fetcher says which high watermark it knows; a consumer's fetch reads alike."""
    _, ids = topic
    pair.same(ApiKey.FETCH, 18, lambda side: fetch(18, ids[side.name], high_watermark=3))


@pytest.mark.parametrize("version", [13, 16, 18])
def test_an_unknown_topic_id(pair, topic, version):
    _, ids = topic
    pair.same(ApiKey.FETCH, version, fetch(version, uuid.uuid4()))
    # one known, one not, in one request: each answered for itself
    pair.same(ApiKey.FETCH, version, lambda side: {**fetch(version, ids[side.name]), "topics": [
        *fetch(version, ids[side.name])["topics"], *fetch(version, uuid.uuid4())["topics"]]})


def test_a_session_keyed_by_topic_id(pair, topic):
    """A session opened at v13 remembers its partitions by id: an incremental fetch names none and reads
    them all; one at v12 on it is FETCH_SESSION_TOPIC_ID_ERROR, as is one at v13 on a session opened by
    name; an unknown id stays in the session, answered UNKNOWN_TOPIC_ID each time."""
    name, ids = topic
    opened = {side.name: side.request(ApiKey.FETCH, 13, fetch(13, ids[side.name], session_epoch=0))
              for side in pair.sides}
    assert all(r.session_id > 0 for r in opened.values()), opened
    pair.same(ApiKey.FETCH, 13, lambda side: fetch(13, None, session_id=opened[side.name].session_id,
                                                  session_epoch=1), volatile=SESSION)
    pair.same(ApiKey.PRODUCE, 9, produce(name, records(2)))
    pair.same(ApiKey.FETCH, 16, lambda side: fetch(16, None, session_id=opened[side.name].session_id,
                                                  session_epoch=2), volatile=SESSION)
    by_name = {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20, "isolation_level": 0,
               "session_epoch": 3, "topics": [], "forgotten_topics_data": [], "rack_id": ""}
    pair.same(ApiKey.FETCH, 12, lambda side: {**by_name, "session_id": opened[side.name].session_id},
              volatile=SESSION)
    # a session with an id neither broker knows, then forgetting it
    unknown = uuid.uuid4()
    second = {side.name: side.request(ApiKey.FETCH, 13, fetch(13, unknown, session_epoch=0))
              for side in pair.sides}
    pair.same(ApiKey.FETCH, 13, lambda side: fetch(13, None, session_id=second[side.name].session_id,
                                                  session_epoch=1), volatile=SESSION)
    pair.same(ApiKey.FETCH, 13, lambda side: fetch(13, None, session_id=second[side.name].session_id,
                                                  session_epoch=2, forgotten=[unknown]), volatile=SESSION)


def test_a_session_opened_by_name_refuses_topic_ids(pair, topic):
    name, _ = topic
    by_name = {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20, "isolation_level": 0,
               "session_id": 0, "session_epoch": 0, "rack_id": "", "forgotten_topics_data": [], "topics": [
                   {"topic": name, "partitions": [{"partition": 0, "current_leader_epoch": -1,
                                                   "fetch_offset": 0, "log_start_offset": -1,
                                                   "partition_max_bytes": 1 << 20}]}]}
    opened = {side.name: side.request(ApiKey.FETCH, 12, by_name) for side in pair.sides}
    pair.same(ApiKey.FETCH, 13, lambda side: fetch(13, None, session_id=opened[side.name].session_id,
                                                  session_epoch=1), volatile=SESSION)


@pytest.mark.parametrize("version", [15, 16, 18])
def test_a_follower_fetch_from_a_broker_that_is_not_its_leader(pair, topic, version):
    """A fetch naming replica 7, which holds no replica of the partition: NOT_LEADER_OR_FOLLOWER; from v16
    with the leader and its epoch (KIP-951); Kafka 4.4 lists no NodeEndpoints for a follower's fetch."""
    _, ids = topic
    pair.same(ApiKey.FETCH, version, lambda side: fetch(version, ids[side.name], replica_id=7),
              volatile=("port", "host"))
