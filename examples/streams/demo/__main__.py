"""``make demo-streams``: ``python -m examples.streams.demo`` against `make cluster`'s three nodes.

    make cluster            # in one terminal
    make demo-streams       # in another: builds examples/streams with Maven, then runs the steps

Each instance's lines (its state, its tasks, the stores it restores) are printed as they come, with the
seconds since the start; a summary ends the run. Exit status 0 when both outputs are exactly what the input
implies, 1 when not. Files go to --data-dir: each instance's state directory and its log (Kafka's warnings).
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path

from examples.streams.demo.local_nodes import LocalNodes
from examples.streams.demo.scenario import StreamsDemo
from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.utils.logging import configure_logging

JAR = Path(__file__).resolve().parent.parent / "target" / "streams-examples-1.0.jar"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="demo-streams", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096")
    parser.add_argument("--jar", type=Path, default=JAR, help="the examples' jar (mvn package)")
    parser.add_argument("--data-dir", type=Path, default=Path("data/streams-demo"))
    args = parser.parse_args(argv)
    configure_logging(level=logging.WARNING)  # our clients' own lines: only what went wrong
    if not args.jar.exists():
        parser.error(f"{args.jar} is missing: build it with `mvn -f examples/streams/pom.xml package`")
    problem = cluster_problem(args.bootstrap_server)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    began = time.monotonic()
    lock = threading.Lock()

    def say(line: str) -> None:
        with lock:
            print(f"{time.monotonic() - began:6.1f}s {line}", flush=True)

    demo = StreamsDemo(args.bootstrap_server, LocalNodes(args.bootstrap_server, args.data_dir), args.jar,
                       args.data_dir, say)
    result = demo.run()
    print("\n" + "\n".join(result.summary()), flush=True)
    return 0 if result.exact else 1


def cluster_problem(bootstrap: str) -> str | None:
    """Why the demo cannot run on the cluster at ``bootstrap`` (none answers, fewer than three brokers)."""
    try:
        with AdminClient({"bootstrap.servers": bootstrap, "request.timeout.ms": 5000,
                          "default.api.timeout.ms": 10000}) as admin:
            brokers = admin.describe_cluster()[2]
    except KafkaError as e:
        return f"no broker answers at {bootstrap} ({e}): start `make cluster` first, in another terminal"
    if len(brokers) < 3:
        return (f"the demo kills a broker and needs three; the cluster at {bootstrap} has {len(brokers)}: "
                "restart the missing node (or `make cluster` again)")
    return None


if __name__ == "__main__":
    sys.exit(main())
