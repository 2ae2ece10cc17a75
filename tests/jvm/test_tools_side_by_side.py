"""Our Python tools beside Kafka's own, on one state (issue 28, part 2): each tool of the same name
(pyproject.toml's [project.scripts]) and Kafka's main class behind the same bin/kafka-*.sh are run with
the same arguments against one broker process, and must print the same, line for line. Only what
changes from one run to the next is normalised, each with its reason; what is still different is in
docs/clients.md ("Our Python tools beside Kafka's").
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from kafka.clients.consumer import KafkaConsumer
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import REPO, BrokerProcess, wait_until
from tests.jvm.jvm import classpath
from tests.jvm.test_kafka_tools import (
    CONFIGS,
    CONSOLE_CONSUMER,
    CONSOLE_PRODUCER,
    CONSUMER_GROUPS,
    CONSUMER_PERF,
    GET_OFFSETS,
    LEADER_ELECTION,
    METADATA_QUORUM,
    PRODUCER_PERF,
    REASSIGN,
    TOPICS,
    TRANSACTIONS,
    Tools,
)

pytestmark = pytest.mark.timeout(180)
CLIENT_METRICS = "org.apache.kafka.tools.ClientMetricsCommand"

# Our module for each of Kafka's main classes (the console scripts of pyproject.toml).
OURS = {TOPICS: "topics", CONSUMER_GROUPS: "consumer_groups", CONFIGS: "config_command",
        GET_OFFSETS: "get_offsets",
        TRANSACTIONS: "transactions_command", LEADER_ELECTION: "leader_election_command",
        METADATA_QUORUM: "metadata_quorum_command", REASSIGN: "reassign_partitions_command",
        PRODUCER_PERF: "producer_perf_test", CONSUMER_PERF: "consumer_perf_test",
        CLIENT_METRICS: "client_metrics_command"}


def run_ours(bootstrap: str, main: str, *args: str) -> str:
    """Our tool, as its console script runs it; a failure shows as its exit status and standard error."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", f"kafka.tools.{OURS[main]}", "--bootstrap-server", bootstrap,
                           *args],
                          capture_output=True, text=True, timeout=60, cwd=REPO, env=env)
    return done.stdout if done.returncode == 0 else f"ours exited {done.returncode}:\n{done.stderr[-3000:]}"


def digits_in(pattern: str):
    """A normaliser: every digit inside what the pattern matches becomes 9, so a value that moves between
    the two runs compares by its shape."""
    return lambda text: re.sub(pattern, lambda m: re.sub(r"\d", "9", m.group(0)), text, flags=re.M)


def cells_that_move(*columns: int):
    """A normaliser for a tab-separated table whose values in these columns move between the two runs:
    those cells become N in every row but the header, and every cell loses the spaces it is padded with
    (a column is as wide as its widest value, so a value that gains a digit, 9,724 ms against 10,673,
    moves the padding; the other cases compare the padding)."""
    def normalise(text: str) -> str:
        rows = [[cell.strip() for cell in line.split("\t")] for line in text.splitlines()]
        return "\n".join("\t".join("N" if n and i in columns else cell for i, cell in enumerate(row))
                         for n, row in enumerate(rows))  # row 0 is the header
    return normalise


# What moves between our run and Kafka's (they run at the same time, not at the same instant), by case:
NORMALISE = {
    # TransactionDurationMs is now minus the transaction's start: the clock moved between the two runs.
    "txn-describe": cells_that_move(7),
    # The metadata log grows on its own (the controller appends a NoOpRecord every 500 ms, as Kafka's
    # metadata.max.idle.interval.ms), so the high watermark, each replica's log end offset and lag and the
    # last fetch and caught-up times move from one run to the next.
    "quorum-status": digits_in(r"^HighWatermark:.*"),
    "quorum-replication": cells_that_move(2, 3, 4, 5),
    # The perf tests print times and rates: only the words and the record counts are the same each run.
    "producer-perf": lambda text: re.sub(r"(?<=[ (])\d+(\.\d+)?", "N", text),  # all but the count
    "consumer-perf": lambda text: re.sub(r"(?m)^\d{4}-.*", lambda m: ", ".join(  # all but MB and records read
        cell if i in (2, 4) else "N" for i, cell in enumerate(m.group(0).split(", "))), text),
}


class SideBySide:
    """Both tools with the same arguments, at the same time. The cases that only read the state are all
    started at once (four processes at a time: a JVM spends most of its second starting), and each
    test waits for its own pair."""

    def __init__(self, tools: Tools, plan: str) -> None:
        self.tools, self.plan, self.pool = tools, plan, ThreadPoolExecutor(4)
        self.started = {}

    def start(self, case: str) -> None:
        main, *args = (self.plan if arg == "PLAN" else arg for arg in CASES[case])
        self.started[case] = (self.pool.submit(run_ours, self.tools.broker.bootstrap, main, *args),
                              self.pool.submit(self.tools, main, *args))

    def __call__(self, case: str) -> tuple[str, str]:
        if case not in self.started:
            self.start(case)
        ours, theirs = self.started.pop(case)
        return ours.result(), theirs.result()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """One broker process and the state every case reads, built once (with Kafka's tools, as a user would):
    "keyed", three partitions of keyed records; "overridden", with two topic configs set; "perf", empty;
    "txn", written by a committed transaction (perf-txn); the classic group "readers", which read
    "keyed" and committed and sets two group configs; "idle", an empty group with offsets only; "live",
    with one member."""
    broker = BrokerProcess(tmp_path_factory.mktemp("side-broker") / "data",
                           {"group.initial.rebalance.delay.ms": "0"})
    member = None
    try:
        tools = Tools(broker, classpath("tools"), tmp_path_factory.mktemp("side-files"))
        tools(TOPICS, "--create", "--topic", "keyed", "--partitions", "3", "--replication-factor", "1")
        tools(TOPICS, "--create", "--topic", "overridden", "--partitions", "1", "--config",
              "retention.ms=3600000",
              "--config", "cleanup.policy=compact")
        tools(TOPICS, "--create", "--topic", "perf", "--partitions", "1")
        tools(CONSOLE_PRODUCER, "--topic", "keyed", "--reader-property", "parse.key=true",
              "--reader-property", "key.separator=:",
              stdin="".join(f"key{i % 5}:value-{i}\n" for i in range(30)))
        tools(CONSOLE_CONSUMER, "--topic", "keyed", "--from-beginning", "--max-messages", "30", "--group",
              "readers")
        tools(CONFIGS, "--entity-type", "groups", "--entity-name", "readers", "--alter", "--add-config",
              "consumer.heartbeat.interval.ms=6000,share.auto.offset.reset=earliest")
        # the client-metrics subscription "producers" (KIP-714)
        tools(CLIENT_METRICS, "--alter", "--name", "producers", "--metrics", "org.apache.kafka.producer.",
              "--interval", "10000", "--match", "client_software_name=apache-kafka-java")
        # "idle": the case repeats it, to the same offsets
        tools(CONSUMER_GROUPS, *CASES["groups-reset-exec"][1:])
        tools(PRODUCER_PERF, "--topic", "txn", "--num-records", "20", "--record-size", "10", "--throughput",
              "-1",
              "--transactional-id", "perf-txn", "--transaction-duration-ms", "100", "--bootstrap-server",
              broker.bootstrap, bootstrap_flag="")
        # A member that stays: our consumer joins "live" and its heartbeat thread keeps it there. A static
        # one (KIP-345), so kafka-consumer-groups --members shows the GROUP-INSTANCE-ID column too.
        member = KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": "live",
                                "client.id": "live-member",
                                "group.instance.id": "live-1", "enable.auto.commit": False})
        member.subscribe(["keyed"])
        wait_until(lambda: member.poll(100) is not None and len(member.assignment()) == 3, timeout=30,
                   message="the live member to own the three partitions")
        member.commit({TopicPartition("keyed", p): 1 for p in range(3)})
        plan = tools.file("reassign.json", json.dumps(
            {"version": 1,
             "partitions": [{"topic": "keyed", "partition": p, "replicas": [1]} for p in range(3)]}))
        both = SideBySide(tools, plan)
        for case in CASES:
            if case not in WRITERS:
                both.start(case)
        yield both
        both.pool.shutdown(cancel_futures=True)
    finally:
        if member is not None:
            member.close()
        broker.stop()


CASES = {
    "topics-list": (TOPICS, "--list"),
    "topics-describe-one": (TOPICS, "--describe", "--topic", "keyed"),
    "topics-describe-all": (TOPICS, "--describe"),
    "groups-list": (CONSUMER_GROUPS, "--list"),
    "groups-list-type-state": (CONSUMER_GROUPS, "--list", "--type", "--state"),
    "groups-describe-live": (CONSUMER_GROUPS, "--describe", "--group", "live"),
    "groups-members-live": (CONSUMER_GROUPS, "--describe", "--group", "live", "--members"),
    "groups-members-live-verbose": (CONSUMER_GROUPS, "--describe", "--group", "live", "--members",
                                    "--verbose"),
    "groups-state-live-verbose": (CONSUMER_GROUPS, "--describe", "--group", "live", "--state", "--verbose"),
    "groups-describe": (CONSUMER_GROUPS, "--describe", "--group", "readers"),
    "groups-describe-verbose": (CONSUMER_GROUPS, "--describe", "--group", "readers", "--group", "live",
                                "--verbose"),
    "groups-state": (CONSUMER_GROUPS, "--describe", "--group", "readers", "--state"),
    "groups-members-verbose": (CONSUMER_GROUPS, "--describe", "--group", "readers", "--members", "--verbose"),
    "groups-reset-dry": (CONSUMER_GROUPS, "--reset-offsets", "--group", "readers", "--topic", "keyed",
                         "--to-earliest", "--dry-run"),
    "groups-reset-exec": (CONSUMER_GROUPS, "--reset-offsets", "--group", "idle", "--topic", "keyed",
                          "--to-offset", "4", "--execute"),
    "configs-topic-all": (CONFIGS, "--entity-type", "topics", "--entity-name", "overridden", "--describe",
                          "--all"),
    "configs-broker-all": (CONFIGS, "--entity-type", "brokers", "--entity-name", "1", "--describe", "--all"),
    "configs-broker-default": (CONFIGS, "--entity-type", "brokers", "--entity-default", "--describe"),
    "configs-every-topic": (CONFIGS, "--entity-type", "topics", "--describe"),
    "configs-every-broker": (CONFIGS, "--entity-type", "brokers", "--describe"),
    "configs-group": (CONFIGS, "--entity-type", "groups", "--entity-name", "readers", "--describe"),
    "configs-group-all": (CONFIGS, "--group", "readers", "--describe", "--all"),
    "configs-every-group": (CONFIGS, "--entity-type", "groups", "--describe"),
    "client-metrics-list": (CLIENT_METRICS, "--list"),
    "client-metrics-describe": (CLIENT_METRICS, "--describe", "--name", "producers"),
    "client-metrics-describe-every": (CLIENT_METRICS, "--describe"),
    "client-metrics-describe-missing": (CLIENT_METRICS, "--describe", "--name", "nobody"),
    "configs-client-metrics": (CONFIGS, "--entity-type", "client-metrics", "--entity-name", "producers",
                               "--describe"),
    "configs-client-metrics-all": (CONFIGS, "--entity-type", "client-metrics", "--entity-name", "producers",
                                   "--describe", "--all"),
    "configs-every-client-metrics": (CONFIGS, "--entity-type", "client-metrics", "--describe"),
    "offsets-earliest": (GET_OFFSETS, "--topic", "keyed", "--partitions", "0,2", "--time", "earliest"),
    "offsets-regex": (GET_OFFSETS, "--topic", "k.*|o.*"),
    "txn-list": (TRANSACTIONS, "list"),
    "txn-list-pattern": (TRANSACTIONS, "list", "--transactional-id-pattern", "perf-.*"),  # KIP-1152
    "txn-list-no-match": (TRANSACTIONS, "list", "--transactional-id-pattern", "perf"),  # a whole-id match
    "txn-describe": (TRANSACTIONS, "describe", "--transactional-id", "perf-txn"),
    "txn-producers": (TRANSACTIONS, "describe-producers", "--topic", "txn", "--partition", "0"),
    "election": (LEADER_ELECTION, "--election-type", "preferred", "--topic", "keyed", "--partition", "0"),
    "election-all": (LEADER_ELECTION, "--election-type", "preferred", "--all-topic-partitions"),
    "quorum-status": (METADATA_QUORUM, "describe", "--status"),
    "quorum-replication": (METADATA_QUORUM, "describe", "--replication"),
    "reassign-list": (REASSIGN, "--list"),
    "reassign-verify": (REASSIGN, "--reassignment-json-file", "PLAN", "--verify"),
    # The perf tests add records to "perf" (created with the state, so the topic lists stay the same); the
    # consumer's reads the producer's, so these two run in this order, when their tests come.
    "producer-perf": (PRODUCER_PERF, "--topic", "perf", "--num-records", "500", "--record-size", "50",
                      "--throughput", "-1"),
    "consumer-perf": (CONSUMER_PERF, "--topic", "perf", "--num-records", "500"),
}


WRITERS = ("producer-perf", "consumer-perf")


@pytest.mark.parametrize("case", list(CASES))
def test_same_output(both, case):
    ours, theirs = both(case)
    normalise = NORMALISE.get(case, lambda text: text)
    print("---- ours\n" + ours + "---- kafka\n" + theirs)
    assert normalise(ours).splitlines() == normalise(theirs).splitlines()
