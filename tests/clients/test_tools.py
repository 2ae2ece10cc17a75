"""The command-line tools against a live broker, run as a user runs them (``python -m kafka.tools.X``)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.helpers import REPO, unique_topic


def tool(name: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", f"kafka.tools.{name}", *args], input=stdin,
                          capture_output=True,
                          text=True, cwd=REPO, timeout=60)


def test_kafka_topics_create_list_describe_alter_delete(broker):
    topic = unique_topic("tool")
    bs = ["--bootstrap-server", broker.bootstrap]
    created = tool("topics", *bs, "--create", "--topic", topic, "--partitions", "2", "--config",
                   "retention.ms=60000")
    assert created.returncode == 0 and created.stdout.strip() == f"Created topic {topic}.", created.stderr
    assert topic in tool("topics", *bs, "--list").stdout.split()
    again = tool("topics", *bs, "--create", "--topic", topic)
    assert again.returncode == 1 and "TOPIC_ALREADY_EXISTS" in again.stderr
    assert tool("topics", *bs, "--alter", "--topic", topic, "--partitions", "5").returncode == 0
    described = tool("topics", *bs, "--describe", "--topic", topic).stdout
    assert f"Topic: {topic}\t" in described and "PartitionCount: 5" in described
    # with the cluster's min.insync.replicas (a dynamic default, as Kafka 4.4 writes it) beside it
    configs = described.split("Configs: ", 1)[1].split("\n", 1)[0].split(",")
    assert "retention.ms=60000" in configs
    assert len(re.findall(r"\tPartition: \d+\tLeader: 1", described)) == 5
    shrink = tool("topics", *bs, "--alter", "--topic", topic, "--partitions", "3")
    assert shrink.returncode == 1 and "INVALID_PARTITIONS" in shrink.stderr
    assert tool("topics", *bs, "--delete", "--topic", topic).returncode == 0
    assert topic not in tool("topics", *bs, "--list").stdout.split()


def test_console_producer_and_consumer_round_trip_keyed_messages(broker):
    topic = unique_topic("console")
    bs = ["--bootstrap-server", broker.bootstrap]
    assert tool("topics", *bs, "--create", "--topic", topic, "--partitions", "1").returncode == 0
    lines = [f"key{i}:value {i}" for i in range(20)]
    produced = tool("console_producer", *bs, "--topic", topic, "--property", "parse.key=true",
                    "--property", "key.separator=:", stdin="\n".join(lines) + "\n")
    assert produced.returncode == 0, produced.stderr
    consumed = tool("console_consumer", *bs, "--topic", topic, "--from-beginning", "--max-messages", "20",
                    "--property", "print.key=true", "--property", "print.offset=true",
                    "--property", "print.partition=true", "--property", "key.separator=|")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.splitlines() == [f"Partition:0|Offset:{i}|key{i}|value {i}" for i in range(20)]
    assert "Processed a total of 20 messages" in consumed.stderr
    offsets = tool("get_offsets", *bs, "--topic", topic)
    assert offsets.stdout.split() == [f"{topic}:0:20"]
    assert tool("get_offsets", *bs, "--topic", topic, "--time", "-2").stdout.split() == [f"{topic}:0:0"]


def test_a_line_without_the_key_separator_is_an_error(broker):
    topic = unique_topic("console-bad")
    result = tool("console_producer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                  "--property", "parse.key=true", stdin="no separator here\n")
    assert result.returncode == 1 and "no key separator" in result.stderr


def test_perf_tools_report_throughput(broker):
    topic = unique_topic("perf")
    produced = tool("producer_perf_test", "--topic", topic, "--num-records", "5000", "--record-size", "100",
                    "--throughput", "-1", "--producer-props", f"bootstrap.servers={broker.bootstrap}",
                    "acks=1")
    assert produced.returncode == 0, produced.stderr
    summary = produced.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"5000 records sent, [\d.]+ records/sec \([\d.]+ MB/sec\), [\d.]+ ms avg latency, "
                        r"[\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99.9th\.",
                        summary)
    assert float(summary.split(", ")[1].split()[0]) > 0
    consumed = tool("consumer_perf_test", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                    "--messages", "5000", "--timeout", "20000")
    assert consumed.returncode == 0, consumed.stderr
    header, values = consumed.stdout.strip().splitlines()[-2:]
    assert header.startswith("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg")
    fields = values.split(", ")
    megabytes = 5000 * 100 / 1024 / 1024
    assert fields[4] == "5000" and float(fields[5]) > 0 and abs(float(fields[2]) - megabytes) < 0.001


def test_the_kafka_4_flag_names_work_too(broker):
    """Kafka 4.x renamed the tools' property flags (KIP-1147): --reader-property, --formatter-property,
    --command-property, and --num-records for the consumer perf test. Ours take both spellings, so the
    command lines of tests/jvm/test_kafka_tools.py run unchanged against either tool."""
    topic = unique_topic("flags")
    bs = ["--bootstrap-server", broker.bootstrap]
    produced = tool("console_producer", *bs, "--topic", topic, "--reader-property", "parse.key=true",
                    "--reader-property", "key.separator=:", "--command-property", "acks=1", stdin="k:v\n")
    assert produced.returncode == 0, produced.stderr
    consumed = tool("console_consumer", *bs, "--topic", topic, "--from-beginning", "--max-messages", "1",
                    "--formatter-property", "print.key=true", "--command-property", "client.id=flags")
    assert consumed.stdout.splitlines() == ["k\tv"], consumed.stderr
    perf = tool("producer_perf_test", "--topic", topic, "--num-records", "10", "--record-size", "10",
                "--throughput", "-1", "--command-property", f"bootstrap.servers={broker.bootstrap}")
    assert perf.returncode == 0, perf.stderr
    read = tool("consumer_perf_test", *bs, "--topic", topic, "--num-records", "11", "--command-property",
                "client.id=p")
    assert read.returncode == 0 and read.stdout.strip().splitlines()[-1].split(", ")[4] == "11", read.stderr
