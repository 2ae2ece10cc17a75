"""Helpers the client tools share (Kafka's org.apache.kafka.server.util.CommandLineUtils):
``key=value`` properties from the command line or a file, and the error exit Kafka's tools use."""

from __future__ import annotations

import logging
import sys

from kafka.clients.errors import ConfigError, KafkaError
from kafka.utils.logging import configure_logging


def parse_key_values(items: list[str] | None, flag: str) -> dict[str, str]:
    """``["a=1", "b=2"]`` -> ``{"a": "1", "b": "2"}``; a missing '=' is an error naming the flag."""
    props = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{flag} expects key=value, got {item!r}")
        props[key.strip()] = value
    return props


def load_props(path: str | None) -> dict[str, str]:
    """A Java .properties file (``--producer.config``, ``--consumer.config``, ``--command-config``)."""
    if not path:
        return {}
    props = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(("#", "!")):
                key, _, value = line.partition("=")
                props[key.strip()] = value.strip()
    return props


def run(main_body, argv=None) -> int:
    """Run a tool's body; a bad flag or config, or a broker error, prints 'ERROR ...' and exits 1.
    Client log lines go to stderr, warnings and up only, so stdout carries just the tool's output."""
    configure_logging("console", logging.WARNING, sys.stderr)
    try:
        return main_body(argv) or 0
    except (ConfigError, KafkaError, ValueError, OSError) as e:
        print(f"ERROR {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def pretty_table(headers: list[str], rows: list[list[str]]) -> str:
    """Kafka's ToolsUtils.prettyPrintTable: every value left-aligned to its column's width, then a tab."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    return "\n".join("".join(value.ljust(width) + "\t" for value, width in zip(row, widths, strict=True))
                     for row in [headers, *rows])


def pretty_print_table(headers: list[str], rows: list[list[str]]) -> None:
    print(pretty_table(headers, rows))


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
