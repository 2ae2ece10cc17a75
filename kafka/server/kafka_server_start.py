"""kafka-server-start: the command that starts a broker (Kafka's bin/kafka-server-start.sh, kafka.Kafka).

    kafka-server-start config/server.properties [--override key=value ...]

SIGINT (Ctrl-C) and SIGTERM shut the broker down cleanly.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from kafka.server.kafka_config import ConfigError, KafkaConfig
from kafka.server.kafka_server import KafkaServer, StartupAborted
from kafka.utils.logging import configure_logging
from kafka.utils.native_memory import use_one_malloc_arena


def parse_overrides(items: list[str]) -> dict[str, str]:
    overrides = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--override expects key=value, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-server-start", description="Start a teaching Kafka broker.")
    parser.add_argument("config", help="the server.properties file")
    parser.add_argument("--override", action="append", default=[], metavar="key=value",
                        help="override a property from the file (repeatable)")
    parser.add_argument("--log-format", choices=["console", "json"], default="console")
    args = parser.parse_args(argv)
    use_one_malloc_arena()  # before any thread allocates: kafka/utils/native_memory.py says why
    configure_logging(args.log_format)
    try:
        config = KafkaConfig.from_file(args.config, parse_overrides(args.override))
    except ConfigError as e:
        print(f"kafka-server-start: {e}", file=sys.stderr)
        return 2

    # The handlers only ask for a stop; the main thread does it. Shutting down inside a handler
    # would let a second Ctrl-C interrupt the first shutdown half-way, on the same thread. They are
    # installed before start-up, because clients (and impatient users) can reach us from the moment
    # the port is bound.
    # A node of a quorum waits in start-up until the others are there; a stop must end that wait too.
    server = KafkaServer(config)
    stop_requested = threading.Event()

    def request_stop(signum, frame) -> None:
        stop_requested.set()
        server.request_stop()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        server.startup()
    except StartupAborted:
        server.shutdown()
        return 0
    except (OSError, ValueError) as e:  # a taken port, an unusable or unformatted log dir, a bad topic default
        print(f"kafka-server-start: {e}", file=sys.stderr)
        server.shutdown()
        return 1
    while not stop_requested.wait(timeout=1.0):
        pass
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
