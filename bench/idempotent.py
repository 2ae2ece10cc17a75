#!/usr/bin/env python3
"""The shared harness (../shared/bench/bench.py) with librdkafka's idempotent producer.

bench.py's producer is plain; this wrapper loads it unchanged and adds `enable.idempotence=true` to
its producer settings (an InitProducerId first, then every batch stamped with the producer id, epoch
and sequence, and the leader checking each one against the partition's producer state). Run with
`--acks all` both ways and compare: what idempotence costs is the ratio of the two throughputs.

    python bench/idempotent.py --harness ../shared/bench/bench.py -- --bootstrap 127.0.0.1:19092 --acks all
    ...
"""

from __future__ import annotations

import argparse
import sys

from replicated import load_harness


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", default="../shared/bench/bench.py")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="bench.py's own arguments, after --")
    a = ap.parse_args()
    harness = load_harness(a.harness)
    plain_conf = harness.producer_conf
    harness.producer_conf = lambda *args, **extra: {**plain_conf(*args, **extra), "enable.idempotence": True}
    sys.argv = ["bench.py", *[x for x in a.rest if x != "--"]]
    harness.main()


if __name__ == "__main__":
    main()
