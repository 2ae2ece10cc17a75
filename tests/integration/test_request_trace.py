"""Acceptance: with request.trace.enable the broker shows each request's journey, hand-off by
hand-off and thread by thread, at /requests and through kafka-request-trace."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request
from tests.helpers import REPO, wait_until
from tests.integration.test_long_poll import background, create, fetch_body, produce
from tests.wire import WireClient

JOURNEY = ["read by network thread", "into request queue", "taken by I/O thread", "I/O thread done",
           "into response queue", "taken by network thread", "response sent"]


def requests_page(broker, query: str = "") -> str:
    with urllib.request.urlopen(f"{broker.server.metrics_endpoint.url}/requests?{query}", timeout=10) as r:
        return r.read().decode()


def traced(broker, api: str) -> str:
    """The newest traced request of a type. The client may read its response a moment before the
    network thread, having sent it, records the journey: so wait for it."""
    return wait_until(lambda: (page := requests_page(broker, f"api={api}&limit=1")).startswith(api) and page,
                      message=f"a {api} request in the trace")


def steps_of(block: str) -> list[str]:
    """The step names of one rendered request, in order."""
    return [line.split("]  ", 1)[1].rsplit(" ", 1)[0].strip() for line in block.splitlines() if "]  " in line]


def test_a_produce_and_a_long_poll_show_their_journeys(start_broker):
    broker = start_broker(overrides={"request.trace.enable": "true"})
    client = WireClient(broker.port)
    create(client, "trace")
    produce(client, "trace", b"acks=all")

    [block] = traced(broker, "Produce").split("\n\n")
    assert block.startswith("Produce v9  correlation_id=2  client_id='wire-test'")
    assert steps_of(block) == JOURNEY
    assert "data-plane-kafka-network-thread-" in block and "data-plane-kafka-request-handler-" in block
    assert "queue " in block and "| remote " in block

    # A consumer long-polls an empty partition; a produce on another connection wakes it.
    consumer = WireClient(broker.port, timeout=30)
    thread, result = background(lambda: consumer.request(ApiKey.FETCH, 12, fetch_body("trace", 1, 60_000)))
    wait_until(lambda: broker.server.replica_manager.delayed_fetch_purgatory.num_delayed() == 1,
               message="the fetch to wait in the purgatory")
    produce(client, "trace", b"wake up")
    thread.join(15)
    assert result["value"].responses[0].partitions[0].records

    [block] = traced(broker, "FetchConsumer").split("\n\n")
    assert block.startswith("FetchConsumer v12")
    assert steps_of(block) == ["read by network thread", "into request queue", "taken by I/O thread",
                               "I/O thread done; waiting in purgatory", "out of purgatory",
                               "into response queue", "taken by network thread", "response sent"]
    # Completed by the produce: on the I/O thread that appended, not on the one that parked the fetch.
    out_of_purgatory = next(line for line in block.splitlines() if "out of purgatory" in line)
    assert "data-plane-kafka-request-handler-" in out_of_purgatory


def test_kafka_request_trace_prints_the_page_and_filters_by_request_time(start_broker):
    broker = start_broker(overrides={"request.trace.enable": "true"})
    client = WireClient(broker.port)
    create(client, "slow")
    client.request(ApiKey.FETCH, 12, fetch_body("slow", 0, 200))  # expires after max.wait.ms
    client.request(ApiKey.METADATA, 12, {"topics": None})
    traced(broker, "Metadata")
    tool = [sys.executable, "-m", "kafka.tools.request_trace_command",
            "--metrics-url", broker.server.metrics_endpoint.url]
    out = subprocess.run([*tool, "--min-ms", "150"], capture_output=True, text=True, cwd=REPO, timeout=30)
    assert out.returncode == 0, out.stderr
    blocks = out.stdout.split("\n\n")
    assert len(blocks) == 1 and blocks[0].startswith("FetchConsumer v12")
    assert "ExpirationReaper-1-Fetch" in blocks[0], "an expired fetch is answered by the reaper thread"
    everything = subprocess.run(tool, capture_output=True, text=True, cwd=REPO, timeout=30).stdout
    assert [b.split()[0] for b in everything.split("\n\n")] == ["CreateTopics", "FetchConsumer", "Metadata"]


def test_tracing_is_off_by_default_and_the_tool_says_where_it_failed(broker, tmp_path):
    assert "request.trace.enable is false" in requests_page(broker)
    assert broker.server.request_channel.request_logger is None
    out = subprocess.run([sys.executable, "-m", "kafka.tools.request_trace_command", "--metrics-url",
                          "http://127.0.0.1:1"], capture_output=True, text=True, cwd=REPO, timeout=30)
    assert out.returncode == 1 and "cannot read http://127.0.0.1:1/requests" in out.stderr


def test_the_request_you_just_sent_is_found_by_its_client_id_and_correlation_id(start_broker):
    broker = start_broker(overrides={"request.trace.enable": "true"})
    other = WireClient(broker.port)  # client_id 'wire-test', correlation ids 1, 2, 3
    for _ in range(3):
        other.request(ApiKey.METADATA, 12, {"topics": None})
    mine = WireClient(broker.port)
    mine.send_frame(encode_request(APIS[ApiKey.METADATA], 12, 4242, "lab-student", {"topics": None}))
    assert decode_response(APIS[ApiKey.METADATA], 12, mine.read_frame())[0] == 4242
    wait_until(lambda: "lab-student" in requests_page(broker), message="the student's request in the trace")

    [block] = requests_page(broker, "client_id=lab-student").split("\n\n")
    assert block.startswith("Metadata v12  correlation_id=4242  client_id='lab-student'")
    [block] = requests_page(broker, "correlation_id=4242").split("\n\n")
    assert "client_id='lab-student'" in block
    [block] = requests_page(broker, "client_id=wire-test&correlation_id=2").split("\n\n")
    assert block.startswith("Metadata v12  correlation_id=2  client_id='wire-test'")
    assert requests_page(broker, "client_id=nobody") == "no traced requests match (yet)\n"
    assert "correlation_id must be" in requests_page(broker, "correlation_id=x")

    tool = [sys.executable, "-m", "kafka.tools.request_trace_command", "--metrics-url",
            broker.server.metrics_endpoint.url]
    by_client = subprocess.run([*tool, "--client-id", "lab-student"], capture_output=True, text=True,
                               cwd=REPO,
                               timeout=30)
    by_correlation = subprocess.run([*tool, "--correlation-id", "4242"], capture_output=True, text=True,
                                    cwd=REPO,
                                    timeout=30)
    for out in (by_client, by_correlation):
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("Metadata v12  correlation_id=4242  client_id='lab-student'")
        assert out.stdout.count("correlation_id=") == 1
    other.close()
    mine.close()
