"""A fetch that fails on the broker gives the client one clear error, not a storm of retries (issue 45
item 5).

In a fresh lab handout, lab 04's exercise (`DelayedFetch.try_complete`) raises NotImplementedError, so
every fetch that reaches the end of a log fails inside its handler and is answered with Kafka's generic
error response (kafka/server/error_responses.py). When that answer carried a null record set (size -1),
librdkafka read it as a parse failure and fetched again at once: about 135,000 requests a minute. With
empty records, as Kafka sends, the client reads UNKNOWN_SERVER_ERROR for the partition and backs off.

Here the handout's TODO is put in place on a real broker, a real librdkafka consumer reads to the end of
a topic, and the broker counts the Fetch requests it receives over a bounded window.
"""

from __future__ import annotations

import threading
import time

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.protocol.api_keys import ApiKey
from kafka.server.delayed_fetch import DelayedFetch
from tests.helpers import unique_topic, wait_until

pytestmark = pytest.mark.broker

WINDOW_S = 3.0
# librdkafka waits fetch.error.backoff.ms (500 ms) after a failed partition: a handful of fetches in the
# window. A parse failure retried at once was thousands.
MAX_FETCHES = 40


def unsolved(self) -> bool:
    raise NotImplementedError("TODO (lab 04): case A, case B")  # what the handout leaves


class FetchCounter:
    """Wraps the broker's Fetch handler: how many Fetch requests reached an I/O thread."""

    def __init__(self, apis) -> None:
        self.count = 0
        self._lock = threading.Lock()
        handler = apis.handlers[ApiKey.FETCH]

        def counting(request) -> None:
            with self._lock:
                self.count += 1
            handler(request)

        apis.handlers[ApiKey.FETCH] = counting


def produce_one(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(15)
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(topic, b"hello")
    assert producer.flush(15) == 0


def test_a_fetch_failing_on_the_broker_is_one_error_not_a_storm(start_broker, monkeypatch):
    monkeypatch.setattr(DelayedFetch, "try_complete", unsolved)
    broker = start_broker()
    topic = unique_topic("failing-fetch")
    produce_one(broker.bootstrap, topic)
    counter = FetchCounter(broker.server.apis)
    errors: list[KafkaError] = []
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic("g"),
                         "enable.partition.eof": False, "error_cb": errors.append})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        record = wait_until(lambda: consumer.poll(0.2), timeout=20, message="the record before the end")
        assert record.error() is None and record.value() == b"hello"
        before = counter.count
        deadline = time.monotonic() + WINDOW_S  # a bounded window to count in, not a wait for something
        while time.monotonic() < deadline:
            message = consumer.poll(0.1)
            if message is not None and message.error() is not None:
                errors.append(message.error())
        fetches = counter.count - before
    finally:
        consumer.close()
    assert 0 < fetches <= MAX_FETCHES, f"{fetches} fetches in {WINDOW_S}s: the client is retrying at once"
    # One error, the broker's own, each time the client tries again after its back-off: no parse failures.
    assert errors and {(e.code(), e.str()) for e in errors} == {
        (KafkaError.UNKNOWN,
         "Fetch from broker 1 failed at offset 1 (leader epoch 0): Unknown broker error")}, errors
