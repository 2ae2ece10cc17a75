"""Lab 05, the producer (docs/labs/05-producer.md): `murmur2` in kafka/clients/producer/partitioner.py,
the hash that sends a keyed record to its partition, checked against the Java client's own vectors,
then against librdkafka's murmur2_random partitioner on a real broker.

Seed 002: "If the record has a key, then the default partitioner will use a hash of the key to
determine the correct partition. After that, any records with the same key will always be assigned
to the same partition." Every client of a topic must agree on that hash, or one key's records end
up in two partitions and lose their order.
"""

from __future__ import annotations

from confluent_kafka import Producer

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.producer import KafkaProducer
from kafka.clients.producer.partitioner import murmur2, partition_for_key
from tests.helpers import unique_topic

# Kafka's UtilsTest.testMurmur2: what the Java client computes for these keys.
JAVA_VECTORS = {b"21": -973932308, b"foobar": -790332482, b"a-little-bit-long-string": -985981536,
                b"a-little-bit-longer-string": -1486304829,
                b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, b"abc": 479470107}


def test_murmur2_gives_the_java_clients_hash():
    """murmur2 gives the Java client's hash for the vectors of Kafka's own UtilsTest"""
    for key, expected in JAVA_VECTORS.items():
        got = murmur2(key)
        assert got == expected, f"murmur2({key!r}): expected {expected} (Java), got {got}"


def test_murmur2_handles_every_tail_length():
    """keys of every length mod 4 (0, 1, 2 or 3 bytes left after the 4-byte words) hash as in Java"""
    # The hashes librdkafka's murmur2_random computes too (the page's step 1 shows where they land).
    by_tail = {0: (b"dave", 1727131798), 1: (b"alice", 1951417749), 2: (b"21", -973932308),
               3: (b"abc", 479470107)}
    for tail, (key, expected) in by_tail.items():
        got = murmur2(key)
        assert got == expected, (
            f"murmur2({key!r}), {tail} byte(s) after the words: expected {expected}, got {got}")
    assert murmur2(b"") == 275646681, "the empty key hashes too: no words, no tail, only the final shifts"


def test_murmur2_returns_a_signed_32_bit_int():
    """the hash is a signed 32-bit int, as Java's int is: negative for some keys, never wider than 32 bits"""
    hashes = [murmur2(f"key-{i}".encode()) for i in range(1000)]
    assert all(-(1 << 31) <= h < (1 << 31)
               for h in hashes), "a value outside Java's int range: mask to 32 bits"
    assert any(h < 0 for h in hashes), "no negative hash: Java's int is signed (the top bit is the sign)"
    assert murmur2(b"bob") == -2048144690, (
        "bob hashes to -2048144690 in Java (docs/labs/05-producer.md, step 1)")


def test_the_lab_keys_land_on_the_partitions_the_page_shows():
    """alice, bob, carol and dave land on partitions 3, 0, 2 and 4 of six, as in the page's step 1"""
    got = {key: partition_for_key(key.encode(), 6) for key in ("alice", "bob", "carol", "dave")}
    assert got == {"alice": 3, "bob": 0, "carol": 2, "dave": 4}


def test_keys_land_where_librdkafka_murmur2_random_puts_them_on_a_real_broker(broker):
    """on a real broker, our producer puts 2,000 keys on the same partitions as librdkafka's murmur2_random"""
    topic = unique_topic("lab05")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 6, 1)]) == {topic: None}
    keys = [f"lab05-key-{i}".encode() for i in range(2000)]
    theirs: dict[bytes, int] = {}
    producer = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random",
                         "linger.ms": 5})
    for key in keys:
        producer.produce(topic, b"", key, on_delivery=lambda err,
                         msg: theirs.__setitem__(msg.key(), msg.partition()))
        producer.poll(0)
    assert producer.flush(60) == 0, "librdkafka did not deliver every record"
    with KafkaProducer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5}) as ours:
        futures = {key: ours.send(topic, b"", key=key) for key in keys}
        ours.flush(60)
    mismatched = [key for key in keys if futures[key].get(10).partition != theirs[key]]
    assert not mismatched, (
        f"{len(mismatched)} of {len(keys)} keys on another partition than librdkafka's, "
        f"e.g. {mismatched[:3]}")
