"""Kafka's own command-line tools against the broker (issue 28, part 2): the classes behind bin/kafka-*.sh,
from the kafka-tools and kafka_2.13 4.4.0 jars, run as `java -cp <jars> <main class> ...` against one
broker process started as `make run` starts it. Each must exit 0; what each prints is checked for the
lines that carry the state (docs/clients.md shows them).
"""

from __future__ import annotations

import json

import pytest

from kafka.controller.feature_control_manager import DEFAULT_FEATURE_LEVELS
from tests.helpers import BrokerProcess
from tests.jvm.jvm import classpath, run_java

pytestmark = pytest.mark.timeout(180)

TOPICS = "org.apache.kafka.tools.TopicCommand"
CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer"
CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer"
CONSUMER_GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
CONFIGS = "org.apache.kafka.tools.ConfigCommand"
GET_OFFSETS = "org.apache.kafka.tools.GetOffsetShell"
DELETE_RECORDS = "org.apache.kafka.tools.DeleteRecordsCommand"
LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand"
PRODUCER_PERF = "org.apache.kafka.tools.ProducerPerformance"
CONSUMER_PERF = "org.apache.kafka.tools.ConsumerPerformance"
METADATA_QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand"
TRANSACTIONS = "org.apache.kafka.tools.TransactionsCommand"
LEADER_ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"
REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
FEATURES = "org.apache.kafka.tools.FeatureCommand"


class Tools:
    """Runs a tool's main class against the broker; its standard output, once it exited 0."""

    def __init__(self, broker: BrokerProcess, cp: str, workdir) -> None:
        self.broker, self.cp, self.workdir = broker, cp, workdir

    def __call__(self, main: str, *args: str, stdin: str | None = None,
                 bootstrap_flag: str = "--bootstrap-server") -> str:
        flags = (bootstrap_flag, self.broker.bootstrap) if bootstrap_flag else ()
        done = run_java(self.cp, main, *flags, *args, stdin=stdin, timeout=90)
        tool = main.rsplit(".", 1)[1]
        assert done.returncode == 0, (f"{tool} {' '.join(args)} exited {done.returncode}:\n"
                                      f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    def file(self, name: str, content: str) -> str:
        path = self.workdir / name
        path.write_text(content)
        return str(path)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    cp = classpath("tools")
    broker = BrokerProcess(tmp_path_factory.mktemp("tools-broker") / "data",
                           {"group.initial.rebalance.delay.ms": "0"})
    try:
        run = Tools(broker, cp, tmp_path_factory.mktemp("tools-files"))
        # The state every test reads: a topic of three partitions, 30 keyed records, a group that read them.
        assert run(TOPICS, "--create", "--topic", "tools", "--partitions", "3", "--replication-factor", "1") \
            == "Created topic tools.\n"
        lines = "".join(f"key{i % 3}:value-{i}\n" for i in range(30))
        run(CONSOLE_PRODUCER, "--topic", "tools", "--reader-property", "parse.key=true",
            "--reader-property", "key.separator=:", stdin=lines)
        yield run
    finally:
        broker.stop()


def test_kafka_topics(tools):
    described = tools(TOPICS, "--describe", "--topic", "tools")
    head, *partitions = described.splitlines()
    assert head.startswith("Topic: tools\tTopicId: ")
    assert "\tPartitionCount: 3\tReplicationFactor: 1\t" in head
    # Elr and LastKnownElr from DescribeTopicPartitions (KIP-966): empty, the ISR is at its minimum
    assert partitions == [f"\tTopic: tools\tPartition: {p}\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: "
                          "\tLastKnownElr: " for p in range(3)]
    assert "tools" in tools(TOPICS, "--list").split()
    tools(TOPICS, "--create", "--topic", "doomed", "--partitions", "1")
    tools(TOPICS, "--alter", "--topic", "doomed", "--partitions", "2")
    assert "PartitionCount: 2" in tools(TOPICS, "--describe", "--topic", "doomed")
    tools(TOPICS, "--delete", "--topic", "doomed")


def test_kafka_console_consumer_and_consumer_groups(tools):
    consumed = tools(CONSOLE_CONSUMER, "--topic", "tools", "--from-beginning", "--max-messages", "30",
                     "--group", "tools-group", "--formatter-property", "print.key=true")
    assert sorted(consumed.splitlines()) == sorted(f"key{i % 3}\tvalue-{i}" for i in range(30))
    assert "tools-group" in tools(CONSUMER_GROUPS, "--list").split()
    described = tools(CONSUMER_GROUPS, "--describe", "--group", "tools-group")
    rows = [line.split() for line in described.splitlines() if line.startswith("tools-group")]
    assert sum(int(r[3]) for r in rows) == 30 and all(r[3] == r[4] and r[5] == "0" for r in rows)
    state = tools(CONSUMER_GROUPS, "--describe", "--group", "tools-group", "--state")
    assert any(line.split()[-2:] == ["Empty", "0"] for line in state.splitlines()
               if line.startswith("tools-group"))
    reset = tools(CONSUMER_GROUPS, "--reset-offsets", "--group", "tools-group", "--topic", "tools",
                  "--to-earliest",
                  "--execute")
    assert sorted(line.split()[2:] for line in reset.splitlines() if line.startswith("tools-group")) == \
        [["0", "0"], ["1", "0"], ["2", "0"]]
    after = tools(CONSUMER_GROUPS, "--describe", "--group", "tools-group")
    assert all(line.split()[3] == "0" for line in after.splitlines() if line.startswith("tools-group"))


def test_kafka_configs(tools):
    assert tools(CONFIGS, "--entity-type", "topics", "--entity-name", "tools", "--alter",
                 "--add-config",
                 "retention.ms=3600000").strip() == "Completed updating config for topic tools."
    described = tools(CONFIGS, "--entity-type", "topics", "--entity-name", "tools", "--describe")
    assert described == ("Dynamic configs for topic tools are:\n  retention.ms=3600000 sensitive=false "
                         "synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000}\n")
    assert "log.retention.hours=168" in tools(CONFIGS, "--entity-type", "brokers", "--entity-name", "1",
                                              "--describe", "--all")


def test_kafka_configs_of_a_group(tools):
    """A group's own configs (KIP-848/932), set and read with Kafka's tool on a group nobody created."""
    assert tools(CONFIGS, "--entity-type", "groups", "--entity-name", "configured", "--alter", "--add-config",
                 "share.auto.offset.reset=earliest,consumer.session.timeout.ms=50000").strip() == \
        "Completed updating config for group configured."
    tools(CONFIGS, "--group", "configured", "--alter", "--delete-config", "consumer.session.timeout.ms")
    assert tools(CONFIGS, "--entity-type", "groups", "--entity-name", "configured", "--describe") == (
        "Dynamic configs for group configured are:\n  share.auto.offset.reset=earliest sensitive=false "
        "synonyms={DYNAMIC_GROUP_CONFIG:share.auto.offset.reset=earliest, "
        "DEFAULT_CONFIG:share.auto.offset.reset=latest}\n")
    every = tools(CONFIGS, "--entity-type", "groups", "--entity-name", "configured", "--describe", "--all")
    assert "  share.record.lock.duration.ms=30000 sensitive=false synonyms={DEFAULT_CONFIG:" \
           "group.share.record.lock.duration.ms=30000}" in every.splitlines()


def test_kafka_get_offsets_and_delete_records(tools):
    latest = tools(GET_OFFSETS, "--topic", "tools")
    ends = {line.rsplit(":", 2)[1]: int(line.rsplit(":", 1)[1]) for line in latest.split()}
    assert sum(ends.values()) == 30
    partition, end = max(ends.items(), key=lambda item: item[1])
    plan = tools.file("delete.json", json.dumps(
        {"version": 1, "partitions": [{"topic": "tools", "partition": int(partition), "offset": 2}]}))
    deleted = tools(DELETE_RECORDS, "--offset-json-file", plan)
    assert f"partition: tools-{partition}\tlow_watermark: 2" in deleted
    earliest = tools(GET_OFFSETS, "--topic", "tools", "--partitions", partition, "--time", "earliest")
    assert earliest.strip() == f"tools:{partition}:2"


def test_kafka_log_dirs(tools):
    out = tools(LOG_DIRS, "--describe", "--topic-list", "tools")
    report = json.loads(out.splitlines()[-1])
    (broker,) = report["brokers"]
    (log_dir,) = broker["logDirs"]
    assert broker["broker"] == 1 and log_dir["error"] is None
    assert sorted(p["partition"] for p in log_dir["partitions"]) == ["tools-0", "tools-1", "tools-2"]


def test_kafka_producer_and_consumer_perf_test(tools):
    produced = tools(PRODUCER_PERF, "--topic", "perf", "--num-records", "5000", "--record-size", "100",
                     "--throughput", "-1", "--command-property",
                     f"bootstrap.servers={tools.broker.bootstrap}",
                     bootstrap_flag="")
    assert "5000 records sent" in produced.splitlines()[-1]
    consumed = tools(CONSUMER_PERF, "--topic", "perf", "--num-records", "5000")
    header, row = consumed.strip().splitlines()[-2:]
    assert header.startswith("start.time, end.time, data.consumed.in.MB")
    assert row.split(", ")[4] == "5000"


def test_kafka_transactions(tools):
    tools(PRODUCER_PERF, "--topic", "txn", "--num-records", "100", "--record-size", "10", "--throughput",
          "-1",
          "--transactional-id", "perf-txn", "--transaction-duration-ms", "100",
          "--command-property", f"bootstrap.servers={tools.broker.bootstrap}", bootstrap_flag="")
    listed = tools(TRANSACTIONS, "list")
    assert listed.splitlines()[0].split() == ["TransactionalId", "Coordinator", "ProducerId",
                                              "TransactionState"]
    assert any(line.split()[0] == "perf-txn" and line.split()[-1] == "CompleteCommit"
               for line in listed.splitlines())
    described = tools(TRANSACTIONS, "describe", "--transactional-id", "perf-txn")
    assert "CompleteCommit" in described
    producers = tools(TRANSACTIONS, "describe-producers", "--topic", "txn", "--partition", "0")
    assert producers.splitlines()[0].split()[:2] == ["ProducerId", "ProducerEpoch"]
    assert len(producers.splitlines()) == 2


def test_kafka_metadata_quorum(tools):
    status = tools(METADATA_QUORUM, "describe", "--status")
    assert "LeaderId:               1" in status and "CurrentVoters:          [{\"id\": 1" in status
    replication = tools(METADATA_QUORUM, "describe", "--replication")
    leader_row = replication.splitlines()[1].split()
    assert leader_row[0] == "1" and leader_row[-1] == "Leader"


def test_kafka_leader_election_and_reassign_partitions(tools):
    elected = tools(LEADER_ELECTION, "--election-type", "preferred", "--topic", "tools", "--partition", "0")
    assert elected.strip() == "Valid replica already elected for partitions tools-0"
    plan = tools.file("reassign.json", json.dumps(
        {"version": 1, "partitions": [{"topic": "tools", "partition": 0, "replicas": [1]}]}))
    assert "Successfully started partition reassignment for tools-0" in tools(REASSIGN,
                                                                              "--reassignment-json-file",
                                                                              plan, "--execute")
    verified = tools(REASSIGN, "--reassignment-json-file", plan, "--verify")
    assert "Reassignment of partition tools-0 is completed." in verified
    assert "Clearing topic-level throttles on topic tools" in verified
    assert tools(REASSIGN, "--list").strip() == "No partition reassignments found."


def test_kafka_features(tools):
    """Kafka's kafka-features lists every feature this broker supports, in name order, at the levels a new
    cluster finalizes here (docs/features.md): share.version 2 turns share groups and their dead-letter
    queues on."""
    lines = tools(FEATURES, "describe").splitlines()
    assert [line.split()[1] for line in lines] == [
        "eligible.leader.replicas.version", "group.version", "kraft.version", "metadata.version",
        "share.version", "streams.version", "transaction.version"]
    finalized = [line.split("FinalizedVersionLevel:")[1].split()[0] for line in lines]
    tv = DEFAULT_FEATURE_LEVELS["transaction.version"]  # 0 until transactions v2 is built, then 2
    assert finalized == ["1", "1", "0", "4.4-IV2", "2", "1", str(tv)], lines


def test_kafka_consumer_groups_on_a_kip848_group(tools):
    """the Java consumer 4.x with group.protocol=consumer (ConsumerGroupHeartbeat), then Kafka's own
    kafka-consumer-groups showing the group as Kafka 4 shows a consumer group (docs/groups.md)"""
    # the others' topic loses records later
    tools(TOPICS, "--create", "--topic", "kip848", "--partitions", "3")
    tools(CONSOLE_PRODUCER, "--topic", "kip848", stdin="".join(f"v{i}\n" for i in range(6)))
    consumed = tools(CONSOLE_CONSUMER, "--topic", "kip848", "--from-beginning", "--max-messages", "6",
                     "--group", "tools-kip848", "--command-property", "group.protocol=consumer")
    assert sorted(consumed.splitlines()) == [f"v{i}" for i in range(6)]
    listed = tools(CONSUMER_GROUPS, "--list", "--type")
    assert ["tools-kip848", "Consumer"] in [line.split() for line in listed.splitlines()], listed
    state = tools(CONSUMER_GROUPS, "--describe", "--group", "tools-kip848", "--state", "--verbose")
    print(state)
    header = next(line.split() for line in state.splitlines() if line.startswith("GROUP"))
    assert "GROUP-EPOCH" in header and "TARGET-ASSIGNMENT-EPOCH" in header, state
    described = tools(CONSUMER_GROUPS, "--describe", "--group", "tools-kip848")
    rows = [line.split() for line in described.splitlines() if line.startswith("tools-kip848")]
    assert sum(int(r[3]) for r in rows) == 6, described
