"""Fetch sessions (KIP-227) against a real broker: after one full request the broker remembers a
fetcher's partitions, an incremental request names only what changed and its response carries
only partitions with news; a lost session is answered with Kafka's error codes; our consumer
reads through a session, and clients without sessions (librdkafka) are unaffected."""

from __future__ import annotations

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic, wait_until
from tests.metrics.scrape import scrape
from tests.wire import WireClient

PARTITIONS = 20


def create(broker, partitions: int = PARTITIONS) -> str:
    topic = unique_topic("fs")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, partitions, 1)])[topic] is None
    return topic


def produce(broker, topic: str, partitions: list[int], count: int = 1) -> None:
    with KafkaProducer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5}) as producer:
        for p in partitions:
            for i in range(count):
                producer.send(topic, f"{p}-{i}".encode(), partition=p)
        producer.flush(15)


def fetch(client: WireClient, session_id: int, epoch: int, topic: str, offsets: dict[int, int],
          forget: list[int] = ()) -> tuple[object, int]:
    """One Fetch v12 with max_wait 0; returns (response, size of the response frame in bytes)."""
    body = dict(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=1 << 20, isolation_level=0,
                session_id=session_id, session_epoch=epoch, rack_id="",
                topics=[dict(topic=topic,
                             partitions=[dict(partition=p, current_leader_epoch=-1, fetch_offset=o,
                                                           last_fetched_epoch=-1, log_start_offset=-1,
                                                           partition_max_bytes=1 << 16)
                                         for p, o in offsets.items()])] if offsets else [],
                forgotten_topics_data=[dict(topic=topic, partitions=list(forget))] if forget else [])
    client.correlation_id += 1
    client.send_frame(encode_request(APIS[ApiKey.FETCH], 12, client.correlation_id, "session-test", body))
    frame = client.read_frame()
    _, response = decode_response(APIS[ApiKey.FETCH], 12, frame)
    return response, len(frame) + 4


def partitions_in(response) -> list[int]:
    return sorted(p.partition_index for t in response.responses for p in t.partitions)


def test_an_incremental_fetch_answers_only_the_partitions_with_news(broker):
    topic = create(broker)
    client = WireClient(broker.port)
    try:
        full, full_size = fetch(client, 0, 0, topic, {p: 0 for p in range(PARTITIONS)})
        assert full.error_code == Errors.NONE and full.session_id != 0
        assert partitions_in(full) == list(range(PARTITIONS))

        quiet, quiet_size = fetch(client, full.session_id, 1, topic, {})  # nothing moved, nothing new
        assert (quiet.error_code, quiet.session_id, partitions_in(quiet)) == (Errors.NONE, full.session_id,
                                                                              [])

        produce(broker, topic, [7])
        news, _ = fetch(client, full.session_id, 2, topic, {})
        assert partitions_in(news) == [7]
        (data,) = news.responses[0].partitions
        assert data.high_watermark == 1 and len(data.records) > 0

        moved, _ = fetch(client, full.session_id, 3, topic, {7: 1}, forget=[0, 1])  # our position moved
        assert partitions_in(moved) == []
        print(f"full response {full_size} bytes for {PARTITIONS} partitions, incremental with no news "
              f"{quiet_size}")
        assert quiet_size < full_size / 5
    finally:
        client.close()


def test_a_lost_session_gets_kafkas_error_codes_and_a_full_fetch_starts_again(broker):
    topic = create(broker, 2)
    client = WireClient(broker.port)
    try:
        full, _ = fetch(client, 0, 0, topic, {0: 0, 1: 0})
        wrong_epoch, _ = fetch(client, full.session_id, 9, topic, {})
        assert (wrong_epoch.error_code, wrong_epoch.responses) == (Errors.INVALID_FETCH_SESSION_EPOCH, [])
        unknown, _ = fetch(client, full.session_id + 1, 1, topic, {})
        assert unknown.error_code == Errors.FETCH_SESSION_ID_NOT_FOUND
        still, _ = fetch(client, full.session_id, 1, topic, {})  # the errors did not harm the session
        assert still.error_code == Errors.NONE

        again, _ = fetch(client, full.session_id, 0, topic, {0: 0, 1: 0})  # closes it, opens another
        assert again.session_id not in (0, full.session_id)
        assert fetch(client, full.session_id, 2, topic, {})[0].error_code == Errors.FETCH_SESSION_ID_NOT_FOUND
        sessionless, _ = fetch(client, again.session_id, -1, topic, {0: 0})  # epoch -1: close, no new one
        assert (sessionless.session_id, partitions_in(sessionless)) == (0, [0])
        assert broker.server.fetch_manager.cache.size == 0
    finally:
        client.close()


def consume_all(broker, topic: str, expected: int) -> int:
    with KafkaConsumer({"bootstrap.servers": broker.bootstrap, "auto.offset.reset": "earliest"}) as consumer:
        consumer.assign([TopicPartition(topic, p) for p in range(PARTITIONS)])
        seen: set[tuple[int, int]] = set()

        def drained():
            seen.update((r.partition, r.offset) for r in consumer.poll(100))
            return len(seen) >= expected

        wait_until(drained, timeout=60, message=f"{expected} records at our consumer")
        return len(seen)


def test_our_consumer_reads_20_partitions_through_one_session(broker):
    topic = create(broker)
    produce(broker, topic, list(range(PARTITIONS)), count=50)
    assert consume_all(broker, topic, PARTITIONS * 50) == PARTITIONS * 50
    metrics = scrape(broker)
    assert metrics.value("kafka_server_fetchsessioncache_numincrementalfetchsessions") == 1
    assert metrics.value("kafka_server_fetchsessioncache_numincrementalfetchpartitionscached") == PARTITIONS


def test_with_no_session_slots_our_consumer_carries_on_with_full_fetches(start_broker):
    broker = start_broker(overrides={"max.incremental.fetch.session.cache.slots": "0"})
    topic = create(broker)
    produce(broker, topic, [0, 19], count=30)
    assert consume_all(broker, topic, 60) == 60
    assert broker.server.fetch_manager.cache.size == 0


def test_librdkafka_fetches_without_a_session(broker):
    from confluent_kafka import Consumer

    topic = create(broker, 3)
    produce(broker, topic, [0, 1, 2], count=10)
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic("g"),
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        got = []
        wait_until(lambda: got.extend(m for m in consumer.consume(10, 0.2) if not m.error())
                   or len(got) >= 30,
                   timeout=60, message="30 records at librdkafka")
    finally:
        consumer.close()
    assert broker.server.fetch_manager.cache.size == 0


