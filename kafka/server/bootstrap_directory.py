"""BootstrapDirectory: the metadata records a new cluster starts with (Kafka's
org.apache.kafka.metadata.bootstrap.BootstrapDirectory and BootstrapMetadata).

`kafka-storage format --add-scram ...` writes them to `bootstrap.checkpoint` in metadata.log.dir;
the first active controller of an empty metadata log appends them after metadata.version, so the
first SCRAM users exist before any broker can be reached (a SASL_SSL cluster's brokers log in to each
other with them). The file holds each record framed as in the metadata log, each after its int32
length (Kafka writes a snapshot file; the records inside are the same).
"""

from __future__ import annotations

import os
import struct

from kafka.protocol.metadata_records import ApiMessageAndVersion, deserialize, serialize

BOOTSTRAP_FILE = "bootstrap.checkpoint"
_LENGTH = struct.Struct(">i")


def write_bootstrap_records(metadata_log_dir: str, records: list[ApiMessageAndVersion]) -> str:
    path = os.path.join(metadata_log_dir, BOOTSTRAP_FILE)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for r in records:
            data = serialize(r)
            f.write(_LENGTH.pack(len(data)) + data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def read_bootstrap_records(metadata_log_dir: str) -> list[ApiMessageAndVersion]:
    """The records of bootstrap.checkpoint; none when the directory has no such file."""
    path = os.path.join(metadata_log_dir, BOOTSTRAP_FILE)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    records, pos = [], 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise ValueError(f"{path} is truncated at byte {pos}")
        (size,) = _LENGTH.unpack_from(data, pos)
        if size < 0 or pos + 4 + size > len(data):
            raise ValueError(f"{path} is truncated at byte {pos}")
        records.append(deserialize(data[pos + 4: pos + 4 + size]))
        pos += 4 + size
    return records
