"""Acceptance: docs/debugging.md's debugpy recipe, followed by a DAP client as VS Code follows it.

The broker runs as the page starts it, `python -Xfrozen_modules=off -m debugpy --listen
127.0.0.1:<port> -m kafka config/debug.properties --debug`, in its own process. The test attaches
over the Debug Adapter Protocol (tests/dap_client.py), sets a breakpoint on the first line of
`KafkaApis.handle_produce_request`, and sends a record with librdkafka. The record must stop on the
one I/O thread, `data-plane-kafka-request-handler-0`, under its Kafka name, with the produce still
unanswered; after `continue` it must be acknowledged at offset 0. That is the promise of the recipe:
attach to a running broker, whenever you like, and step through a real request.
"""

from __future__ import annotations

import ast
import inspect
import socket
import subprocess
import sys
import textwrap

import pytest
from confluent_kafka import Producer

from kafka.server.kafka_apis import KafkaApis
from tests.dap_client import DapClient
from tests.helpers import REPO, free_port, unique_topic, wait_until

pytest.importorskip("debugpy", reason="debugpy is in the test extra: pip install -e '.[test]'")

IO_THREAD = "data-plane-kafka-request-handler-0"


def first_body_line(function) -> int:
    """The line of the first statement of ``function`` after its docstring: where an IDE's breakpoint
    in the body stops (a breakpoint on the `def` line fires when the class is defined, not called)."""
    lines, start = inspect.getsourcelines(function)
    body = ast.parse(textwrap.dedent("".join(lines))).body[0].body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return start + body[0].lineno - 1


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


@pytest.fixture
def broker_under_debugpy(tmp_path):
    port, debug_port = free_port(), free_port()
    args = [sys.executable, "-Xfrozen_modules=off", "-m", "debugpy", "--listen", f"127.0.0.1:{debug_port}",
            "-m", "kafka", str(REPO / "config" / "debug.properties"), "--debug",
            "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"advertised.listeners=PLAINTEXT://127.0.0.1:{port}",
            "--override", f"log.dirs={tmp_path / 'data'}", "--override",
            "metrics.listener=http://127.0.0.1:0"]
    output = open(tmp_path / "debugpy-broker.out", "wb")
    process = subprocess.Popen(args, cwd=tmp_path, stdout=output, stderr=subprocess.STDOUT)

    def up() -> bool:
        assert process.poll() is None, (tmp_path / "debugpy-broker.out").read_text(errors="replace")
        return listening(port)

    try:
        # Not a probe of debug_port: debugpy's adapter takes one client, and a probe would be it.
        # debugpy listens before it runs the module, so a broker that serves means an adapter that waits.
        wait_until(up, timeout=60, message="the broker under debugpy to listen")
        yield f"127.0.0.1:{port}", debug_port
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        output.close()


def test_attach_break_in_handle_produce_request_on_the_io_thread_and_continue(broker_under_debugpy):
    bootstrap, debug_port = broker_under_debugpy
    dap = DapClient("127.0.0.1", debug_port, timeout=60)
    try:
        dap.request("initialize", clientID="kafka-teaching-tests", adapterID="debugpy", pathFormat="path",
                    linesStartAt1=True, columnsStartAt1=True)
        attach = dap.send("attach", justMyCode=False)
        dap.wait_for_event("initialized")
        source = inspect.getsourcefile(KafkaApis)
        line = first_body_line(KafkaApis.handle_produce_request)
        verified = dap.request("setBreakpoints", source={"path": source}, breakpoints=[{"line": line}])
        assert [b["line"] for b in verified["breakpoints"]] == [line]
        dap.request("configurationDone")
        dap.response(attach)

        topic = unique_topic("debugpy")
        delivered: list[tuple] = []
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "request.timeout.ms": 120_000})
        producer.produce(topic, b"stepped through", on_delivery=lambda err,
                         msg: delivered.append((err, msg.offset())))
        producer.poll(0)

        stopped = dap.wait_for_event("stopped", where=lambda body: body.get("reason") == "breakpoint")
        thread_id = stopped["threadId"]
        names = {t["id"]: t["name"] for t in dap.request("threads")["threads"]}
        assert names[thread_id] == IO_THREAD, f"stopped on {names[thread_id]!r}"
        frame = dap.request("stackTrace", threadId=thread_id, levels=1)["stackFrames"][0]
        assert frame["name"].endswith("handle_produce_request") and frame["line"] == line, frame
        producer.poll(0.5)
        assert delivered == [], "the produce was answered while its I/O thread was stopped at the breakpoint"

        dap.request("setBreakpoints", source={"path": source}, breakpoints=[])
        dap.request("continue", threadId=thread_id)

        def acknowledged() -> bool:
            producer.poll(0.1)  # serves the delivery callback
            return bool(delivered)

        wait_until(acknowledged, timeout=60, message="the produce to be acknowledged after continue")
        assert delivered == [(None, 0)]
        dap.send("disconnect", terminateDebuggee=False)
    finally:
        dap.close()
