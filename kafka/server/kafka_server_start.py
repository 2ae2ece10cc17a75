"""kafka-server-start: the command that starts a broker (Kafka's bin/kafka-server-start.sh, kafka.Kafka).

    kafka-server-start config/server.properties [--override key=value ...]
    kafka-server-start --debug [config/server.properties] [--override key=value ...]

SIGINT (Ctrl-C) and SIGTERM shut the broker down cleanly.

`--debug` is the teaching edition's debug profile (docs/debugging.md); Kafka has none. A broker
stopped at a breakpoint still has clocks running around it: its peers, its controller and its
clients count the pause against their timeouts and start failing it over. The profile raises those
timeouts (with Kafka's own keys, nothing new), runs one network thread and one I/O thread so that a
request always stops on the same, predictable thread, turns the request trace on, and sends the log
to a file so it does not print over the debugger's prompt. The same keys are in
config/debug.properties, for a debugger's launch configuration that takes a plain config file.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import NoReturn, TextIO

from kafka.server.kafka_config import ConfigError, KafkaConfig
from kafka.server.kafka_server import KafkaServer, StartupAborted
from kafka.utils.logging import configure_logging
from kafka.utils.native_memory import use_one_malloc_arena

# An hour is longer than anyone stays at one breakpoint, and short enough that a node that really
# died during a lab is still noticed the same afternoon.
_PAUSE_MS = str(60 * 60 * 1000)

# What --debug lays over the config file (and --override over it). config/debug.properties holds the
# same keys and values; tests/integration/test_debugging.py keeps the two equal.
DEBUG_PROFILE: dict[str, str] = {
    # One Processor and one request handler: every request of a connection is read, handled and
    # answered by two known threads (data-plane-kafka-network-thread-0, ...-request-handler-0), and
    # only one request at a time can reach a breakpoint in KafkaApis.
    "num.network.threads": "1",
    "num.io.threads": "1",
    # The group coordinator accepts a client's session.timeout.ms only up to this; a student raises
    # the consumer's session.timeout.ms to an hour, so the broker must allow an hour.
    # group.min.session.timeout.ms (6 s) is a floor and needs no change.
    "group.max.session.timeout.ms": _PAUSE_MS,
    # A leader drops a follower that has not caught up for this long from the ISR: a follower paused
    # in its fetcher (or a leader paused while answering it) must not shrink the ISR.
    "replica.lag.time.max.ms": _PAUSE_MS,
    # A follower gives up on its leader's answer after this and reconnects.
    "replica.socket.timeout.ms": _PAUSE_MS,
    # The active controller fences a broker whose heartbeats stop for this long, and moves its
    # leaderships away: a paused broker would come back to find it leads nothing.
    "broker.session.timeout.ms": _PAUSE_MS,
    # KRaft: a voter that has had no answer to its Fetch for this long stands for election, and a
    # leader that no majority fetched from for 1.5 times this resigns (check-quorum). A paused
    # controller keeps its leadership.
    "controller.quorum.fetch.timeout.ms": _PAUSE_MS,
    # How long a voter without a leader waits before it stands, and how long a candidate waits for
    # votes. Not an hour: a cluster whose voters all start with no leader waits this long (up to
    # twice) for its first election. Ten times Kafka's default. A quorum of one elects itself at once.
    "controller.quorum.election.timeout.ms": "10000",
    # Each request's hand-offs with their threads, on /requests and in kafka-request-trace: the
    # correlation id and client id that match what the debugger shows on either thread.
    "request.trace.enable": "true",
}

# Where --debug writes the log without --log-file: under ./data, where `make run` keeps its logs and
# which git ignores; one file per node, since the nodes of a cluster share a working directory.
DEBUG_LOG_FILE = "data/logs/server-{node_id}.log"

# The repository's config/debug.properties, for `kafka-server-start --debug` without a file.
DEBUG_PROPERTIES = Path(__file__).resolve().parents[2] / "config" / "debug.properties"


def parse_overrides(items: list[str]) -> dict[str, str]:
    overrides = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--override expects key=value, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-server-start", description="Start a teaching Kafka broker.")
    parser.add_argument("config", nargs="?",
                        help="the server.properties file (with --debug: config/debug.properties if left out)")
    parser.add_argument("--override", action="append", default=[], metavar="key=value",
                        help="override a property from the file (repeatable)")
    parser.add_argument("--log-format", choices=["console", "json"], default="console")
    parser.add_argument("--log-file", metavar="PATH",
                        help="append the log to this file instead of stderr ('-': stderr)")
    parser.add_argument("--debug", action="store_true",
                        help="the debug profile: timeouts a paused broker would trip raised to an hour, one "
                             "network and one I/O thread, the request trace on, the log in "
                             "data/logs/server-<node.id>.log (docs/debugging.md)")
    return parser


def load_config(args: argparse.Namespace) -> KafkaConfig:
    """The file's keys, then the debug profile's with --debug, then each --override: the last one wins."""
    path = args.config
    if path is None:
        if not args.debug:
            raise ConfigError("a configuration file is required (or --debug, which uses "
                              "config/debug.properties)")
        if not DEBUG_PROPERTIES.exists():
            raise ConfigError(f"--debug without a configuration file needs {DEBUG_PROPERTIES}; name a file")
        path = str(DEBUG_PROPERTIES)
    overrides = dict(DEBUG_PROFILE) if args.debug else {}
    overrides.update(parse_overrides(args.override))
    return KafkaConfig.from_file(path, overrides)


def log_file_of(args: argparse.Namespace, config: KafkaConfig) -> str | None:
    """Where the log goes: --log-file, else the debug profile's file with --debug, else stderr (None)."""
    if args.log_file is not None:
        return None if args.log_file == "-" else args.log_file
    return DEBUG_LOG_FILE.format(node_id=config.node_id) if args.debug else None


def open_log_file(path: str) -> TextIO:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    # Line-buffered: `tail -f` in another terminal shows each event as it happens.
    return open(path, "a", encoding="utf-8", buffering=1)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_one_malloc_arena()  # before any thread allocates: kafka/utils/native_memory.py says why
    try:
        config = load_config(args)
    except ConfigError as e:
        print(f"kafka-server-start: {e}", file=sys.stderr)
        return 2
    log_path = log_file_of(args, config)
    try:
        log_stream = open_log_file(log_path) if log_path else None
    except OSError as e:
        print(f"kafka-server-start: cannot open log file {log_path}: {e.strerror}", file=sys.stderr)
        return 2
    configure_logging(args.log_format, stream=log_stream)
    if log_path:
        # The one line the terminal gets: where everything else went.
        profile = " (debug profile: docs/debugging.md)" if args.debug else ""
        print(f"kafka-server-start: node {config.node_id} logging to {log_path}{profile}", file=sys.stderr)

    # The handlers only ask for a stop; the main thread does it. Shutting down inside a handler
    # would let a second Ctrl-C interrupt the first shutdown half-way, on the same thread. They are
    # installed before start-up, because clients (and impatient users) can reach us from the moment
    # the port is bound.
    # A node of a quorum waits in start-up until the others are there; a stop must end that wait too.
    # A handler runs on the main thread between two bytecodes, possibly inside Event.wait with the
    # Event's lock held: taking that lock again in the handler deadlocked a node that got SIGTERM
    # just as its once-a-second wait woke (it then ignored every later signal). So the handler only
    # writes a byte to a pipe, and a thread of its own (Kafka's "kafka-shutdown-hook") asks for the stop.
    server = KafkaServer(config)
    stop_requested = threading.Event()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)  # a handler never waits: a full pipe already holds a stop request

    def request_stop(signum, frame) -> None:
        try:
            os.write(wake_write, b"\0")
        except BlockingIOError:
            pass

    def relay_stop_requests() -> None:
        while os.read(wake_read, 1):
            stop_requested.set()
            server.request_stop()

    threading.Thread(target=relay_stop_requests, name="kafka-shutdown-hook", daemon=True).start()
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        server.startup()
    except StartupAborted:
        server.shutdown()
        return 0
    # a taken port, an unusable or unformatted log dir, a bad topic default
    except (OSError, ValueError) as e:
        print(f"kafka-server-start: {e}", file=sys.stderr)
        server.shutdown()
        return 1
    while not stop_requested.wait(timeout=1.0):
        pass
    server.shutdown()
    halt(0, log_stream)


def halt(status: int, log_stream: TextIO | None) -> NoReturn:
    """End the process now that the broker has shut down, as Kafka.main's Exit.exit does: without
    waiting for threads still at work (a controller thread busy with a long event) and without the
    interpreter's last garbage collection of the whole heap -- with many GB of objects, minutes in
    which the node looked as if it ignored SIGTERM."""
    for stream in (log_stream, sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
