"""java.util.HashMap's iteration order, for output and decisions that must come in Kafka's order.

Kafka iterates some maps as they come: its tools print kafka-topics --describe's topics and each
topic's `Configs:` in HashMap order, and its controller meets the updates of an UpdateFeatures request
in HashMap order (so which of several bad updates a refusal names depends on it).
"""

from __future__ import annotations


def java_hash_map_order(keys: list[str], initial_capacity: int | None = None) -> list[str]:
    """The order in which a java.util.HashMap of these string keys (put in this order) iterates.

    Kafka's tools print some maps as they come, e.g. kafka-topics --describe its topics
    (DescribeTopicsResult.allTopicNames(), a ``new HashMap<>(n)``) and the ``Configs:`` of each (a
    Config's entries, a ``new HashMap<>()``). To print the same lines in the same order, we sort as a
    HashMap does: by bucket, the low bits of the key's String.hashCode() mixed with its high bits
    (HashMap.hash), and by insertion within a bucket. The table starts at 16 buckets, or at
    initial_capacity rounded up to a power of two, and doubles whenever it is more than 3/4 full.
    """
    buckets = 16 if initial_capacity is None else max(1, 1 << max(0, initial_capacity - 1).bit_length())
    while len(keys) > buckets * 0.75:
        buckets *= 2

    def bucket(key: str) -> int:
        utf16 = key.encode("utf-16-be")
        h = 0
        for i in range(0, len(utf16), 2):  # String.hashCode: h = 31 * h + c over the UTF-16 code units
            h = (31 * h + int.from_bytes(utf16[i:i + 2], "big")) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (buckets - 1)  # HashMap.hash spreads the high bits into the index

    return sorted(keys, key=bucket)  # a stable sort: insertion order within a bucket
