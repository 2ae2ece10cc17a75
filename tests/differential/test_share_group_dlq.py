"""Share groups' dead-letter queue (KIP-1191, share.version 2) on both brokers: the configs (a group's
errors.deadletterqueue.topic.name and copy.record.enable, refused under "__"; the broker's
errors.deadletterqueue.auto.create.topics.enable and topic.name.prefix; a topic's
errors.deadletterqueue.group.enable) described alike, and the same scenario run by confluent-kafka's
ShareConsumer against each -- a poison record released until the group's delivery count limit, another
rejected -- with the records each broker wrote to the DLQ topic compared: their headers, keys and values.

Both finalize share.version 2 on a new cluster; were ours formatted lower (DEFAULT_FEATURE_LEVELS), the
scenario raises it to 2 and puts it back."""

from __future__ import annotations

import uuid

from confluent_kafka import AcknowledgeType, Consumer, Producer, ShareConsumer

from kafka.controller.feature_control_manager import DEFAULT_FEATURE_LEVELS
from kafka.protocol.api_keys import ApiKey
from tests.differential.group_steps import create_topic
from tests.differential.oracle import Pair
from tests.differential.test_configs import BROKER, SET, TOPIC, describe
from tests.differential.test_group_configs import GROUP, alter_group, described
from tests.helpers import unique_topic, wait_until

UPGRADE, SAFE_DOWNGRADE = 1, 2
LIMIT = 2
DLQ_BROKER_KEYS = ["errors.deadletterqueue.auto.create.topics.enable",
                   "errors.deadletterqueue.topic.name.prefix"]


def test_the_dlq_configs_of_a_group_a_broker_and_a_topic(pair):
    group, topic = unique_topic("dlq-group"), unique_topic("dlq.described")
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(BROKER, "1", DLQ_BROKER_KEYS))
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(GROUP, group, ["errors.deadletterqueue.topic.name",
                                                                  "errors.deadletterqueue.copy.record.enable"]))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("errors.deadletterqueue.topic.name", SET, "dlq.orders"),
        ("errors.deadletterqueue.copy.record.enable", SET, "true")))
    described(pair, group)
    for value in ("__orders", "dlq.orders", "yes"):  # "__" and "yes" (no boolean) are refused
        key = "errors.deadletterqueue.copy.record.enable" if value == "yes" else \
            "errors.deadletterqueue.topic.name"
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(group, (key, SET, value)))
    for answer in pair.ask(ApiKey.CREATE_TOPICS, 7, {"topics": [{
            "name": topic, "num_partitions": 1, "replication_factor": 1, "assignments": [],
            "configs": [{"name": "errors.deadletterqueue.group.enable", "value": "true"}]}],
            "timeout_ms": 30000, "validate_only": False}):
        assert [t["error_code"] for t in answer["topics"]] == [0], answer
    wait_until(lambda: all(a.results[0].error_code == 0 for a in pair.ask(
        ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["errors.deadletterqueue.group.enable"]))),
        timeout=15, message="both brokers to know the topic")
    pair.same(ApiKey.DESCRIBE_CONFIGS, 4, describe(TOPIC, topic, ["errors.deadletterqueue.group.enable"]))


def set_share_version(side, level: int) -> None:
    kind = UPGRADE if level >= 2 else SAFE_DOWNGRADE
    answer = side.request(ApiKey.UPDATE_FEATURES, 1, {"timeout_ms": 60000, "feature_updates": [
        {"feature": "share.version", "max_version_level": level, "upgrade_type": kind}],
        "validate_only": False})
    assert answer["error_code"] == 0, answer

    def finalized() -> bool:
        features = side.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "oracle",
                                                         "client_software_version": "1"})
        return any(f["name"] == "share.version" and f["max_version_level"] == level
                   for f in features["finalized_features"])
    wait_until(finalized, timeout=15, message=f"{side.name}: share.version {level}")


def run_the_scenario(side, topic: str, dlq: str, group: str) -> list[dict]:
    """Produce a poison record and one to reject, share-consume them, and read what the DLQ topic got."""
    producer = Producer({"bootstrap.servers": side.bootstrap, "linger.ms": 0})
    for value in (b"poison", b"rejected", b"fine"):
        producer.produce(topic, value, key=value[:1], partition=0)
    assert producer.flush(10) == 0
    member = ShareConsumer({"bootstrap.servers": side.bootstrap, "group.id": group,
                            "share.acknowledgement.mode": "explicit"})
    member.subscribe([topic])
    seen: list[str] = []
    try:
        def handled() -> bool:
            for m in member.poll(0.3):
                assert m.error() is None, m.error()
                seen.append(m.value().decode())
                kind = {"poison": AcknowledgeType.RELEASE, "rejected": AcknowledgeType.REJECT}
                member.acknowledge(m, kind.get(seen[-1], AcknowledgeType.ACCEPT))
            return seen.count("poison") == LIMIT and "fine" in seen
        wait_until(handled, timeout=60, message=f"{side.name}: the poison record's last delivery")
    finally:
        member.close()
    reader = Consumer({"bootstrap.servers": side.bootstrap, "group.id": f"reader-{uuid.uuid4()}",
                       "auto.offset.reset": "earliest"})
    reader.subscribe([dlq])
    got: list[dict] = []
    try:
        def read() -> bool:
            m = reader.poll(0.5)
            if m is not None and m.error() is None:
                got.append({"key": m.key(), "value": m.value(), "partition": m.partition(),
                            "headers": [(k, v.decode()) for k, v in m.headers() or []]})
            return len(got) >= 2
        wait_until(read, timeout=60, message=f"{side.name}: two records on the DLQ topic")
    finally:
        reader.close()
    return sorted(got, key=lambda r: r["value"] or b"")


def test_the_records_each_broker_writes_to_the_dlq_topic(pair: Pair):
    topic = unique_topic("dlq-source")
    dlq, group = f"dlq.{topic}", unique_topic("dlq-share-group")
    create_topic(pair, topic)
    for answer in pair.ask(ApiKey.CREATE_TOPICS, 7, {"topics": [{
            "name": dlq, "num_partitions": 1, "replication_factor": 1, "assignments": [],
            "configs": [{"name": "errors.deadletterqueue.group.enable", "value": "true"}]}],
            "timeout_ms": 30000, "validate_only": False}):
        assert [t["error_code"] for t in answer["topics"]] == [0], answer
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        group, ("errors.deadletterqueue.topic.name", SET, dlq), ("share.auto.offset.reset", SET, "earliest"),
        ("errors.deadletterqueue.copy.record.enable", SET, "true"),
        ("share.delivery.count.limit", SET, str(LIMIT))))
    default = DEFAULT_FEATURE_LEVELS["share.version"]
    if default < 2:
        set_share_version(pair.ours, 2)
    try:
        ours = run_the_scenario(pair.ours, topic, dlq, group)
    finally:
        if default < 2:
            set_share_version(pair.ours, default)
    theirs = run_the_scenario(pair.apache, topic, dlq, group)
    assert ours == theirs
    assert [dict(r["headers"])["__dlq.errors.message"] for r in ours] == [
        "Offset delivery count exceeded the threshold.", "Offset rejected by client."]
