"""Acceptance: the broker still works under a debugger (docs/debugging.md).

A debugger stops a thread by installing a trace function (pdb, VS Code's and PyCharm's debugpy and
pydevd all do, through sys.settrace and threading.settrace) and, at a breakpoint, blocking that
thread inside it until the student continues. The test does the same at
`KafkaApis.handle_produce_request`, on a broker running the debug profile (`--debug`): the produce
is held on the one I/O thread while the client waits, then released, and it must complete and be
readable, with nothing lost or answered twice. Also: config/debug.properties is the profile
`--debug` applies, and `--debug` sends the log to a file instead of the terminal.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading

from confluent_kafka import Producer

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_server_start import DEBUG_PROFILE, build_parser, load_config
from tests.helpers import REPO, free_port, unique_topic, wait_until
from tests.integration.test_long_poll import create, fetch_body
from tests.wire import WireClient

IO_THREAD = "data-plane-kafka-request-handler-0"  # the only one, with num.io.threads=1
NETWORK_THREAD = "data-plane-kafka-network-thread-0"
HOLD_AT_MOST_S = 60  # a broken test releases the broker by itself rather than hang it


class Breakpoint:
    """A trace function that stops an I/O thread on entering one function, as a debugger would.

    Installed with threading.settrace before the broker starts its threads; every thread that is not
    an I/O thread removes it from itself on its first call, so only the I/O thread pays for it."""

    def __init__(self, function_name: str, filename_end: str) -> None:
        self.function_name = function_name
        self.filename_end = filename_end
        self.hit = threading.Event()  # a thread is stopped here
        self.released = threading.Event()  # "continue"
        self.removed = threading.Event()  # the I/O thread no longer traces
        self.thread_name: str | None = None
        self.request = None  # the `request` argument of the stopped call
        self.hits = 0

    def trace(self, frame, event, arg):
        thread = threading.current_thread()
        if not thread.name.startswith("data-plane-kafka-request-handler-") or self.released.is_set():
            sys.settrace(None)  # this thread runs untraced from now on (for an I/O thread: after the release)
            if self.released.is_set():
                self.removed.set()
            return None
        code = frame.f_code
        called = event == "call" and code.co_name == self.function_name
        if called and code.co_filename.endswith(self.filename_end):
            self.hits += 1
            self.thread_name = thread.name
            self.request = frame.f_locals.get("request")
            self.hit.set()
            self.released.wait(HOLD_AT_MOST_S)  # stopped at the breakpoint
        return None  # no line events: only calls are looked at


def test_a_produce_held_at_a_breakpoint_on_the_io_thread_completes_after_continue(start_broker):
    breakpoint_ = Breakpoint("handle_produce_request", "kafka/server/kafka_apis.py")
    threading.settrace(breakpoint_.trace)
    try:
        broker = start_broker(overrides={**DEBUG_PROFILE})
    finally:
        threading.settrace(None)  # threads started from here on (other tests' too) are not traced
    topic = unique_topic("debug")
    create(WireClient(broker.port), topic)

    delivered = []
    producer = Producer({"bootstrap.servers": broker.bootstrap, "client.id": "debugged-producer",
                         "acks": "all", "enable.idempotence": "false", "linger.ms": 0,
                         # The client's own timers run on while the broker is paused (docs/debugging.md):
                         # socket.timeout.ms bounds librdkafka's wait for the produce response (5 min at
                         # most).
                         "socket.timeout.ms": 300_000, "message.timeout.ms": 600_000,
                         "request.timeout.ms": 600_000})
    try:
        producer.produce(topic, key=b"k", value=b"stepped through",
                         on_delivery=lambda err, msg: delivered.append((err, msg)))
        producer.poll(0)
        wait_until(breakpoint_.hit.is_set, timeout=30, message="the produce to stop at the breakpoint")

        # Stopped: on the one I/O thread, the request read by the one network thread, not answered.
        assert breakpoint_.thread_name == IO_THREAD
        request = breakpoint_.request
        assert request.header.api_key == ApiKey.PRODUCE
        assert request.header.client_id == "debugged-producer"
        assert [(step, thread) for step, _, thread in request.journey] == [
            ("read by network thread", NETWORK_THREAD), ("into request queue", NETWORK_THREAD),
            ("taken by I/O thread", IO_THREAD)], "the request trace names the two sides of the queue"
        [processor] = broker.server.socket_server.processors
        # Earlier responses (Metadata) may still be on their way out; once they are, nothing follows.
        wait_until(lambda: processor.response_queue_size == 0, message="the response queue to drain")
        channel = processor.selector.channels[request.connection_id]
        assert channel.muted and processor.in_flight[channel.id] is request, (
            "the connection waits for this one response")
        producer.poll(0)
        assert delivered == [], "the client has no answer while the I/O thread is stopped"

        breakpoint_.released.set()  # continue
        assert producer.flush(30) == 0, "the produce is answered after continue"
    finally:
        breakpoint_.released.set()
    [(err, msg)] = delivered
    assert err is None, err
    assert msg.offset() == 0
    assert breakpoint_.hits == 1, "one produce, stopped once: librdkafka did not have to retry it"
    wait_until(breakpoint_.removed.is_set, timeout=10, message="the I/O thread to drop its trace function")
    assert threading.gettrace() is None

    # The record is in the log and readable.
    response = WireClient(broker.port).request(ApiKey.FETCH, 12, fetch_body(topic, 0, 0))
    partition = response.responses[0].partitions[0]
    assert partition.error_code == Errors.NONE
    [batch] = list(iter_batches(partition.records))
    assert [(r.key, r.value) for r in batch] == [(b"k", b"stepped through")]


def test_config_debug_properties_is_the_debug_profile():
    from_file = KafkaConfig.from_file(str(REPO / "config" / "debug.properties"))
    assert {key: from_file.originals.get(key) for key in DEBUG_PROFILE} == DEBUG_PROFILE


def test_debug_lays_the_profile_over_any_file_and_override_over_it():
    args = build_parser().parse_args([str(REPO / "config" / "cluster" / "node-2.properties"), "--debug",
                                      "--override", "num.io.threads=2"])
    config = load_config(args)
    assert config.node_id == 2, "the file's own keys stay"
    assert config.broker_session_timeout_ms == 3_600_000 and config.num_network_threads == 1
    assert config.num_io_threads == 2, "--override wins over --debug"


def test_debug_sends_the_log_to_a_file_and_not_over_the_prompt(tmp_path):
    port = free_port()
    args = [sys.executable, "-m", "kafka", "--debug", "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"log.dirs={tmp_path / 'data'}", "--override",
            "metrics.listener=http://127.0.0.1:0"]
    process = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = tmp_path / "data" / "logs" / "server-1.log"
    try:
        started = re.compile(r"\] started +\[kafka\.server\.KafkaServer\]")
        wait_until(lambda: (log.exists() and started.search(log.read_text())) or process.poll() is not None,
                   timeout=30, message="the broker to start")
        assert process.poll() is None, process.communicate()
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out == ""
    assert err.strip() == "kafka-server-start: node 1 logging to data/logs/server-1.log " \
                          "(debug profile: docs/debugging.md)"
    assert "shut down completed" in log.read_text()
