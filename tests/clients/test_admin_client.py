"""AdminClient against the broker, including the broker side of CreatePartitions and DescribeCluster,
and the consumer-group calls kafka-consumer-groups is built on."""

from __future__ import annotations

import pytest

from kafka.clients.admin import TOPIC_RESOURCE, AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer, OffsetAndMetadata
from kafka.clients.errors import KafkaError
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition
from tests.helpers import unique_topic, wait_until
from tests.wire import WireClient


def test_topics_partitions_and_cluster(broker):
    topic = unique_topic("admin")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        results = admin.create_topics([NewTopic(topic, 2, 1), NewTopic("bad name!", 1, 1)])
        assert results[topic] is None and results["bad name!"].error == Errors.INVALID_TOPIC_EXCEPTION
        assert topic in admin.list_topics()

        assert admin.create_partitions({topic: 4}) == {topic: None}
        assert len(admin.describe_topics([topic])[topic].partitions) == 4
        assert admin.create_partitions({topic: 3})[topic].error == Errors.INVALID_PARTITIONS
        unknown = admin.create_partitions({"no-such-topic": 3})["no-such-topic"]
        assert unknown.error == Errors.UNKNOWN_TOPIC_OR_PARTITION

        cluster_id, controller_id, nodes = admin.describe_cluster()
        assert cluster_id and controller_id == 1
        assert [(n.node_id, n.port) for n in nodes] == [(1, broker.port)]

        assert admin.delete_topics([topic]) == {topic: None}
        assert topic not in admin.list_topics()


def test_new_partitions_take_writes_and_offsets_are_listed(broker):
    topic = unique_topic("grow")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1)])
        admin.create_partitions({topic: 3})
        with KafkaProducer({"bootstrap.servers": broker.bootstrap, "metadata.max.age.ms": 100}) as producer:
            assert producer.send(topic, b"x", partition=2).get(10).offset == 0
        offsets = admin.list_offsets({TopicPartition(topic, p): "latest" for p in range(3)})
        assert [offsets[TopicPartition(topic, p)][0] for p in range(3)] == [0, 0, 1]


def test_configs_and_groups(broker):
    topic, group = unique_topic("cfg"), unique_topic("g")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 1, 1, {"retention.ms": "60000"})])
        assert admin.describe_configs(TOPIC_RESOURCE, topic)["retention.ms"].value == "60000"
        admin.incremental_alter_configs(TOPIC_RESOURCE, topic, [("retention.ms", 0, "120000")])
        assert admin.describe_configs(TOPIC_RESOURCE, topic,
                                      ["retention.ms"])["retention.ms"].value == "120000"
        with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as producer:
            producer.send(topic, b"v").get(10)
        with KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                            "auto.offset.reset": "earliest"}) as consumer:
            consumer.assign([TopicPartition(topic, 0)])
            consumer.commit({TopicPartition(topic, 0): 1})
        assert admin.list_consumer_group_offsets(group) == {TopicPartition(topic, 0): 1}
        assert group in [g for g, _ in admin.list_consumer_groups()]
        assert admin.delete_consumer_groups([group]) == {group: None}
        assert group not in [g for g, _ in admin.list_consumer_groups()]


def test_create_partitions_and_describe_cluster_on_the_wire(broker):
    client = WireClient(broker.port)
    try:
        for version in (0, 3):
            response = client.request(ApiKey.CREATE_PARTITIONS, version, {
                "topics": [{"name": "absent", "count": 2, "assignments": None}], "timeout_ms": 1000,
                "validate_only": False})
            assert response.results[0].error_code == Errors.UNKNOWN_TOPIC_OR_PARTITION
        for endpoint_type, error in ((2, Errors.MISMATCHED_ENDPOINT_TYPE),
                                     (7, Errors.UNSUPPORTED_ENDPOINT_TYPE)):
            response = client.request(ApiKey.DESCRIBE_CLUSTER, 1, {
                "include_cluster_authorized_operations": False, "endpoint_type": endpoint_type})
            assert response.error_code == error  # a broker, asked for controllers; a type no one knows
    finally:
        client.close()


def test_alter_and_delete_the_offsets_of_an_empty_group(broker):
    topic, group = unique_topic("alter"), unique_topic("g")
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        admin.create_topics([NewTopic(topic, 2, 1)])
        # No member has ever joined: the "simple" commit (generation -1) creates the group.
        results = admin.alter_consumer_group_offsets(group, {tp0: OffsetAndMetadata(3, "by the admin"),
                                                             tp1: OffsetAndMetadata(1)})
        assert results == {tp0: None, tp1: None}
        assert admin.list_consumer_group_offsets(group) == {tp0: 3, tp1: 1}
        description = admin.describe_consumer_groups([group])[group]
        assert (description.state, description.members) == ("Empty", [])
        assert (group, "Empty") in admin.list_consumer_groups()
        with KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group}) as consumer:
            assert consumer.committed({tp0})[tp0] == OffsetAndMetadata(3, "by the admin")

        unknown = TopicPartition(unique_topic("absent"), 0)
        results = admin.delete_consumer_group_offsets(group, [tp0, unknown])
        assert results[tp0] is None and results[unknown].error == Errors.UNKNOWN_TOPIC_OR_PARTITION
        assert admin.list_consumer_group_offsets(group) == {tp1: 1}

        missing = unique_topic("nobody")
        with pytest.raises(KafkaError) as not_found:  # DescribeGroups v6: Kafka 4.4's Admin fails the group
            admin.describe_consumer_groups([missing])
        assert not_found.value.error == Errors.GROUP_ID_NOT_FOUND
        with pytest.raises(KafkaError) as refused:
            admin.delete_consumer_group_offsets(missing, [tp1])
        assert refused.value.error == Errors.GROUP_ID_NOT_FOUND


def test_a_group_with_a_live_member_is_described_and_protected(start_broker):
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0"})
    topic, group = unique_topic("live"), unique_topic("g")
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin, \
            KafkaConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                           "client.id": "the-member"}) as consumer:
        admin.create_topics([NewTopic(topic, 2, 1)])
        consumer.subscribe([topic])
        wait_until(lambda: consumer.poll(50) is not None and len(consumer.assignment()) == 2, timeout=30,
                   message="the member's assignment")
        consumer.commit({tp0: OffsetAndMetadata(0)})

        description = admin.describe_consumer_groups([group])[group]
        assert (description.state, description.protocol_type, description.assignor) == ("Stable", "consumer",
                                                                                        "range")
        [member] = description.members
        assert (member.client_id, member.host, sorted(member.assignment)) == ("the-member", "/127.0.0.1",
                                                                              [tp0, tp1])
        assert (group, "Stable") in admin.list_consumer_groups()

        # Only members may commit while the group has them, and their offsets stay theirs.
        results = admin.alter_consumer_group_offsets(group, {tp0: OffsetAndMetadata(5)})
        assert results[tp0].error == Errors.UNKNOWN_MEMBER_ID
        assert admin.delete_consumer_group_offsets(group,
                                                   [tp0])[tp0].error == Errors.GROUP_SUBSCRIBED_TO_TOPIC
        assert admin.delete_consumer_groups([group])[group].error == Errors.NON_EMPTY_GROUP
        assert admin.list_consumer_group_offsets(group) == {tp0: 0}
