"""The default partitioner: Java's murmur2 bit for bit, and sticky partitions for keyless records."""

from kafka.clients.producer.partitioner import DefaultPartitioner, murmur2, partition_for_key


def test_murmur2_matches_the_java_client():
    # The vectors of Kafka's UtilsTest.testMurmur2.
    cases = {b"21": -973932308, b"foobar": -790332482, b"a-little-bit-long-string": -985981536,
             b"a-little-bit-longer-string": -1486304829,
             b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, b"abc": 479470107}
    for data, expected in cases.items():
        assert murmur2(data) == expected, data


def test_keyed_records_always_land_on_the_same_partition():
    partitioner = DefaultPartitioner()
    for key in (b"", b"a", b"user-42", bytes(range(256))):
        first = partitioner.partition("t", key, 7, list(range(7)))
        assert first == partition_for_key(key, 7)
        assert all(partitioner.partition("t", key, 7, list(range(7))) == first for _ in range(5))


def test_keyless_records_stick_until_a_new_batch_then_move():
    partitioner = DefaultPartitioner()
    first = partitioner.partition("t", None, 3, [0, 1, 2])
    assert {partitioner.partition("t", None, 3, [0, 1, 2]) for _ in range(20)} == {first}
    moved = partitioner.on_new_batch("t", 3, [0, 1, 2], first)
    assert moved != first
    assert partitioner.partition("t", None, 3, [0, 1, 2]) == moved
