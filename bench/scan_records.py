#!/usr/bin/env python3
"""What the LogValidator's pass over a batch's records costs (`scan_records`), per record, on the
shapes producers send: ns of CPU per record, the best of several rounds.

    python bench/scan_records.py [--rounds 7]

The records of one batch each: a value of N bytes, keys and headers or none, timestamp deltas of
0, of i ms (the batch spans a second), of i // 30, or of i % 50 ms (out of order); uncompressed, or lz4 and
zstd read through RecordsReader. `--loop` runs the record loop alone (runs=False), for comparison.
"""

from __future__ import annotations

import argparse
import random
import time

from kafka.protocol.compression import CompressionType, compress
from kafka.protocol.record_batch import DefaultRecord, Header, encode_records
from kafka.protocol.record_stream import RecordsReader, scan_records


def records(n: int, size: int, timestamps: str = "i", key: bool = False, headers: bool = False,
            mixed: bool = False) -> list[DefaultRecord]:
    rng = random.Random(n)
    out = []
    for i in range(n):
        ts = {"0": 0, "i": i, "i//30": i // 30, "i%50": i % 50}[timestamps]
        value = b"x" * (rng.randrange(size // 2, size * 3 // 2) if mixed else size)
        out.append(DefaultRecord(i, ts, b"key-%06d" % i if key else None, value,
                                 [Header("trace", b"0123456789abcdef")] if headers else []))
    return out


CASES = {
    "1000 x 100 B, ts delta i (scanbench)": (records(1000, 100), CompressionType.NONE),
    "1000 x 100 B, ts delta 0": (records(1000, 100, "0"), CompressionType.NONE),
    "1000 x 100 B, ts delta i % 50": (records(1000, 100, "i%50"), CompressionType.NONE),
    "1000 x 10 B": (records(1000, 10), CompressionType.NONE),
    "100 x 1 KiB": (records(100, 1024), CompressionType.NONE),
    "9000 x 100 B, ts delta i // 30 (librdkafka's 1 MB batch)": (records(9000, 100, "i//30"),
                                                                 CompressionType.NONE),
    "1000 x 100 B with keys": (records(1000, 100, key=True), CompressionType.NONE),
    "1000 x 100 B with a header": (records(1000, 100, headers=True), CompressionType.NONE),
    "1000 x 50-150 B (mixed sizes)": (records(1000, 100, mixed=True), CompressionType.NONE),
    "1000 x 100 B lz4": (records(1000, 100), CompressionType.LZ4),
    "1000 x 100 B zstd": (records(1000, 100), CompressionType.ZSTD),
    "1000 x 50-150 B zstd (mixed sizes)": (records(1000, 100, mixed=True), CompressionType.ZSTD),
}


def ns_per_record(recs: list[DefaultRecord], codec: CompressionType, rounds: int, runs: bool) -> float:
    section = compress(codec, encode_records(recs, 0, 0)) if codec != CompressionType.NONE else \
        encode_records(recs, 0, 0)
    repeat = max(1, 200_000 // len(recs))
    options = {} if runs else {"runs": False}
    best = float("inf")
    for _ in range(rounds):
        started = time.thread_time()
        for _ in range(repeat):
            scan_records(RecordsReader(codec, section, 0, len(section)), len(recs), 1 << 20, **options)
        best = min(best, (time.thread_time() - started) / repeat / len(recs) * 1e9)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--loop", action="store_true", help="the record loop alone (runs=False)")
    a = ap.parse_args()
    for name, (recs, codec) in CASES.items():
        print(f"SCAN_RECORDS {name}: {ns_per_record(recs, codec, a.rounds, not a.loop):.0f} ns/record")


if __name__ == "__main__":
    main()
