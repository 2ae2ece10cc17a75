"""Acceptance: a share group's dead-letter queue (KIP-1191, share.version 2) with confluent-kafka's
ShareConsumer (librdkafka) against the broker as `make run` starts it. The group names its DLQ topic
(errors.deadletterqueue.topic.name, a group config set with confluent-kafka's AdminClient); a poison
record is released until group.share.delivery.count.limit is reached, another is rejected; both land on
the DLQ topic, created by the broker (errors.deadletterqueue.auto.create.topics.enable) with Kafka's
__dlq.errors.* headers, and a plain consumer reads them there. docs/share_groups.md, "Dead-letter queue".
"""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import AcknowledgeType, Consumer
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

from kafka.clients.admin import AdminClient as OurAdminClient
from kafka.clients.admin.feature_admin import UPGRADE
from tests.helpers import BrokerProcess, unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.integration.test_share_groups import SHARE_SETTINGS, Member, produce, producer, warm_up

pytestmark = pytest.mark.broker

LIMIT = 2  # group.share.delivery.count.limit of the group


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    started = BrokerProcess(tmp_path_factory.mktemp("share-dlq") / "data",
                            {**SHARE_SETTINGS, "errors.deadletterqueue.auto.create.topics.enable": "true"})
    admin = OurAdminClient({"bootstrap.servers": started.bootstrap})
    try:  # a new cluster starts at share.version 2 (DEFAULT_FEATURE_LEVELS); the DLQ needs it
        if admin.describe_features().finalized.get("share.version", 0) < 2:
            assert admin.update_features({"share.version": (2, UPGRADE)}) == {"share.version": None}
        wait_until(lambda: admin.describe_features().finalized.get("share.version") == 2, timeout=15,
                   message="share.version 2 to be finalized")
    finally:
        admin.close()
    yield started
    started.stop()


def set_group_configs(bootstrap: str, group: str, configs: dict[str, str]) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in configs.items()]
    for done in admin.incremental_alter_configs([ConfigResource(ResourceType.GROUP, group,
                                                                incremental_configs=entries)]).values():
        assert done.result(10) is None


def dlq_records(bootstrap: str, topic: str, count: int) -> list:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{uuid.uuid4()}",
                         "auto.offset.reset": "earliest", "topic.metadata.refresh.interval.ms": 500})
    consumer.subscribe([topic])
    got: list = []
    try:
        def read() -> bool:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                got.append(message)
            return len(got) >= count
        wait_until(read, timeout=60, message=f"{count} records on the DLQ topic {topic}")
    finally:
        consumer.close()
    return got


def test_a_poison_record_past_the_delivery_limit_and_a_rejected_one_land_in_the_dlq(broker):
    topic, group = unique_topic("orders"), f"g-{uuid.uuid4()}"
    dlq = f"dlq.{topic}"
    create_topic(broker.bootstrap, topic, 1)
    set_group_configs(broker.bootstrap, group, {"errors.deadletterqueue.topic.name": dlq,
                                                "errors.deadletterqueue.copy.record.enable": "true",
                                                "share.delivery.count.limit": str(LIMIT)})
    member = Member(broker.bootstrap, group, topic, explicit=True)
    p = producer(broker.bootstrap)
    try:
        warm_up([member], p, topic, 1)
        produce(p, topic, ["poison", "rejected", "fine"], 1)
        seen: list[tuple[str, int, int]] = []

        def handle() -> bool:
            for m in member.poll():
                value = m.value().decode()
                seen.append((value, m.offset(), m.delivery_count()))
                kind = {"poison": AcknowledgeType.RELEASE, "rejected": AcknowledgeType.REJECT}
                member.consumer.acknowledge(m, kind.get(value, AcknowledgeType.ACCEPT))
            return [v for v, _, _ in seen].count("poison") == LIMIT and "fine" in [v for v, _, _ in seen]
        wait_until(handle, timeout=60, message="the poison record's last delivery")
    finally:
        member.close()
    offsets = {value: offset for value, offset, _ in seen}
    records = dlq_records(broker.bootstrap, dlq, 2)
    landed = {m.value().decode(): dict((k, v.decode()) for k, v in m.headers()) for m in records}
    assert landed == {
        "poison": {"__dlq.errors.topic": topic, "__dlq.errors.partition": "0",
                   "__dlq.errors.offset": str(offsets["poison"]), "__dlq.errors.group": group,
                   "__dlq.errors.delivery.count": str(LIMIT),
                   "__dlq.errors.message": "Offset delivery count exceeded the threshold."},
        "rejected": {"__dlq.errors.topic": topic, "__dlq.errors.partition": "0",
                     "__dlq.errors.offset": str(offsets["rejected"]), "__dlq.errors.group": group,
                     "__dlq.errors.delivery.count": "1",
                     "__dlq.errors.message": "Offset rejected by client."}}
