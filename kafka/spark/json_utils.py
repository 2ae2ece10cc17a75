"""JsonUtils: the JSON that names topic-partitions and their offsets (Spark's kafka010.JsonUtils).

Spark's Kafka source writes offsets as ``{"topic":{"0":23,"1":-2}}``: a topic, then each partition
number as a string key. Spark stores the offsets of every micro-batch in the checkpoint's offset
log and decides whether a batch has new data by comparing those offsets *as strings*. So the same
offsets must always become the same text: topics in name order, partitions in number order. That
ordering is the only job of ``partition_offsets_json``; everything else here is parsing with
errors that say which option was wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from kafka.utils.topic_partition import TopicPartition

PartitionOffsetMap = dict[TopicPartition, int]


def _load(text: str, option: str) -> dict:
    try:
        parsed = json.loads(text)
    except ValueError as e:
        raise ValueError(f"option {option!r}: expected JSON like {{\"topic\":{{\"0\":23}}}}, "
                         f"got {text!r} ({e})") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"option {option!r}: expected a JSON object, got {text!r}")
    return parsed


def partitions(text: str, option: str = "assign") -> list[TopicPartition]:
    """``{"topicA":[0,1],"topicB":[2]}`` -> the topic-partitions it names (the ``assign`` option)."""
    result = []
    for topic, numbers in _load(text, option).items():
        if not isinstance(numbers, list) or not all(isinstance(n, int) for n in numbers):
            raise ValueError(f"option {option!r}: topic {topic!r} needs a "
                             f"list of partition numbers, got {numbers!r}")
        result += [TopicPartition(topic, n) for n in numbers]
    return sorted(result)


def partition_offsets(text: str | Mapping, option: str) -> PartitionOffsetMap:
    """``{"topic":{"0":23,"1":-2}}`` (text or already parsed) -> {TopicPartition: offset}."""
    parsed = _load(text, option) if isinstance(text, str) else text
    result: PartitionOffsetMap = {}
    for topic, offsets in parsed.items():
        if not isinstance(offsets, Mapping):
            raise ValueError(f"option {option!r}: topic {topic!r} needs an "
                             f"object of partition: offset, got {offsets!r}")
        for partition, offset in offsets.items():
            try:
                result[TopicPartition(topic, int(partition))] = int(offset)
            except (TypeError, ValueError):
                raise ValueError(f"option {option!r}: bad partition/offset {partition!r}: {offset!r} "
                                 f"for topic {topic!r}") from None
    return result


def partition_offsets_json(offsets: Mapping[TopicPartition, int]) -> dict[str, dict[str, int]]:
    """{TopicPartition: offset} -> the offset dict Spark checkpoints, keys in a fixed order."""
    result: dict[str, dict[str, int]] = {}
    for tp in sorted(offsets):  # (topic, partition) order: the same offsets always print the same
        result.setdefault(tp.topic, {})[str(tp.partition)] = int(offsets[tp])
    return result
