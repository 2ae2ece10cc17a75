"""Helpers the client tools share (Kafka's org.apache.kafka.server.util.CommandLineUtils):
``key=value`` properties from the command line or a file, and the error exit Kafka's tools use."""

from __future__ import annotations

import sys

from kafka.clients.errors import ConfigError, KafkaError
from kafka.utils.java_hash_map import java_hash_map_order  # noqa: F401  (the tools import it from here)
from kafka.utils.logging import configure_tool_logging


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
    configure_tool_logging()
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
