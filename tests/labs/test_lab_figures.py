"""The figures the lab pages print stay in step with the code they describe.

A page copies its outputs from a real run, and the run goes stale when a default changes: these
checks compare what a page says with what the code (or the client the page uses) gives today. Only
figures that do not vary from run to run are checked; docs/labs/README.md says which ones do.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from kafka.server.kafka_config import CONFIG_KEYS, KafkaConfig
from kafka.server.request_trace import DEFAULT_CAPACITY
from kafka.tools.lab import LABS, REPO
from tests.wire import WireClient

PAGES = {lab.number: REPO / lab.page for lab in LABS if lab.status == "ready"}
UNITS = {"ms": 1, "s": 1000, "minute": 60_000, "minutes": 60_000, "": 1}
# "`broker.session.timeout.ms` (9 s)", "`log.index.interval.bytes`\n(4096)", "(`broker.session.timeout.ms`, 9
# s)"
KEY_AND_FIGURE = re.compile(r"`([a-z]+(?:\.[a-z]+)+)`(?:\s*\(|,\s*)(\d[\d,]*)\s*(ms|s|minutes?|)\)")


def page(number: str) -> str:
    return PAGES[number].read_text(encoding="utf-8")


def broker_defaults_named_on_the_pages():
    for number in PAGES:
        for key, figure, unit in KEY_AND_FIGURE.findall(page(number)):
            if key in CONFIG_KEYS:
                yield pytest.param(number, key, int(figure.replace(",", "")) * UNITS[unit],
                                   id=f"lab {number} {key}")


@pytest.mark.parametrize(("lab", "key", "figure"), list(broker_defaults_named_on_the_pages()))
def test_a_broker_default_a_page_names_is_the_code_default(lab, key, figure):
    default = KafkaConfig({}).values[key]
    assert figure == default, (
        f"docs/labs page of lab {lab} says {key} is {figure}; the code's default is {default}")


def test_lab_11_names_the_request_traces_capacity():
    assert f"the last {DEFAULT_CAPACITY} requests" in page("11")


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (make test installs it)")
def test_lab_02_prints_the_acks_and_timeout_its_kcat_command_sends():
    """Step 4's `p req.acks, req.timeout_ms` shows librdkafka's defaults: its command sets only the
    client's own waits (socket.timeout.ms, message.timeout.ms), which never travel in the request."""
    shown = re.search(r"\(Pdb\) p req\.acks, req\.timeout_ms\n\((-?\d+), (\d+)\)", page("02"))
    command = re.search(r"^ +echo \"k:v\" \| (kcat .*)$", page("02"), re.M).group(1)
    assert "request.timeout.ms" not in command and "acks" not in command
    dump = subprocess.run(["kcat", "-X", "dump"], capture_output=True, text=True, timeout=30).stdout
    defaults = dict(line.split(" = ", 1) for line in dump.splitlines() if " = " in line)
    assert (shown.group(1), shown.group(2)) == (defaults["request.required.acks"],
                                                defaults["request.timeout.ms"])


def test_lab_03_step_6_sends_from_the_batch_step_2_found_to_each_segments_end():
    text = page("03")
    batch_of_1000 = re.search(r"baseOffset: 994 lastOffset: 1000 .*? position: (\d+) ", text).group(1)
    segment_sizes = [int(s) for s in re.findall(r"^-rw-r--r-- 1 root root +(\d+) .*\.log$", text, re.M)]
    calls = [tuple(map(int, c))
             for c in re.findall(r"sendfile\(\d+, \d+, \[(\d+)\] => \[(\d+)\], (\d+)\) = (\d+)",
                                                    text)]
    assert calls[0][0] == int(batch_of_1000), "the first fetch starts at the batch holding offset 1000"
    assert all(start + count == end and sent == count for start, end, count, sent in calls)
    assert [end for _, end, _, _ in calls] == segment_sizes[1:], "one fetch a segment, each to its end"


def test_lab_12_finds_each_nodes_ports_as_make_cluster_configures_them():
    text = page("12")
    assert "node_port() { echo $((9090 + 2 * $1)); }" in text and "$((9403 + LEADER))" in text
    for node in (1, 2, 3):
        props = (REPO / "config" / "cluster" / f"node-{node}.properties").read_text(encoding="utf-8")
        assert f"listeners=PLAINTEXT://127.0.0.1:{9090 + 2 * node}," in props
        assert f"metrics.listener=http://127.0.0.1:{9403 + node}" in props


def test_lab_09_step_2_prints_what_the_page_shows_after_step_1(start_broker, tmp_path):
    """On a fresh broker, after step 1's two idempotent producers, step 2's program gets the next
    producer id and its five sends are answered as the page shows."""
    broker = start_broker(tmp_path / "data")
    client = WireClient(broker.port)
    for _ in range(2):  # step 1: two kcat producers with enable.idempotence=true
        client.request(22, 4, {"transactional_id": None, "transaction_timeout_ms": -1,
                               "producer_id": -1, "producer_epoch": -1})
    client.close()
    text = page("09")
    program = re.search(r"^```python\n(.*?)^```", text, re.S | re.M).group(1)
    script = tmp_path / "lab09_retry.py"
    script.write_text(program.replace("9092", str(broker.port)), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    shown = re.search(r"^```text\n(InitProducerId: .*?)^Dumping", text, re.S | re.M).group(1)
    assert done.stdout == shown
