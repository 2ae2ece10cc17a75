"""Java's String.hashCode and Kafka's Utils.abs: how Kafka picks the __consumer_offsets and
__transaction_state partition of a group or transactional id, so a tool that computes it itself
(or a JVM broker) lands on the same partition as this broker.
"""

from __future__ import annotations


def java_string_hash(s: str) -> int:
    """Java's String.hashCode (over UTF-16 code units), as a signed 32-bit int."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def kafka_abs(n: int) -> int:
    """Kafka's Utils.abs: like abs, but Integer.MIN_VALUE maps to 0 rather than overflowing."""
    return 0 if n == -(1 << 31) else abs(n)
