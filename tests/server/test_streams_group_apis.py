"""StreamsGroupApis (KIP-1071) without a broker, over a real GroupCoordinatorService whose shard of
__consumer_offsets-0 appends through a real ReplicaManager, and a real AutoTopicCreationManager whose
CreateTopics waits in the (never started) channel to the controller: a word count's member joins, hears
its internal topics are missing and this broker sends their creation; once the metadata shows them it
gets every task. Kafka 4.4's refusals come before the coordinator, in its order (streams.version off,
READ on the group, internal or invalid topic names, DESCRIBE on the topology's topics), and a creation
the principal may not make, or that failed, is named in the MISSING_INTERNAL_TOPICS status."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group.streams.topics.topic_configuration_exception import Status
from kafka.protocol.acl import AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.error_responses import error_response
from kafka.server.streams_group_apis import StreamsGroupApis
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration, topic_records

ALICE = KafkaPrincipal(USER_TYPE, "alice")
APP = "app"
REPARTITION, CHANGELOG = f"{APP}-counts-repartition", f"{APP}-counts-changelog"
MEMBER = "streams-member-0001"


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path, {"offsets.topic.num.partitions": "1",
                                   "group.streams.initial.rebalance.delay.ms": "0",
                                   "group.streams.assignment.interval.ms": "0"})
    parts.coordinator, parts.timer = parts.group_coordinator()
    parts.install_publisher(group_coordinator=parts.coordinator)
    parts.publish(broker_registration(), *topic_records("words", 4, topic_id=uuid.UUID(int=7)),
                  *topic_records(GROUP_METADATA_TOPIC_NAME, 1))
    parts.creator = AutoTopicCreationManager(parts.config, parts.admin_manager)
    yield parts
    parts.close(parts.coordinator.shutdown, parts.timer.shutdown)


def streams_group_apis(parts: BrokerParts, enabled: bool = True) -> IoThread:
    family = StreamsGroupApis(parts.request_helper, parts.auth_helper, parts.coordinator, parts.creator,
                              lambda: enabled, parts.time)
    return IoThread(parts.request_helper, family)


def topology(*source_topics: str) -> dict:
    return dict(epoch=1, subtopologies=[
        dict(subtopology_id="0", source_topics=list(source_topics or ["words"]),
             repartition_sink_topics=[REPARTITION]),
        dict(subtopology_id="1", repartition_source_topics=[dict(name=REPARTITION)],
             state_changelog_topics=[dict(name=CHANGELOG)])])


def joining(member_epoch: int = 0, **fields) -> dict:
    return dict(group_id=APP, member_id=MEMBER, member_epoch=member_epoch, endpoint_information_epoch=0,
                rebalance_timeout_ms=60_000, topology=topology(), active_tasks=[], standby_tasks=[],
                warmup_tasks=[], process_id="process-a", **fields)


def beating(member_epoch: int) -> dict:
    return dict(group_id=APP, member_id=MEMBER, member_epoch=member_epoch, endpoint_information_epoch=0)


def statuses(answer) -> dict[int, str]:
    return {s.status_code: s.status_detail for s in answer.status or ()}


def describe(*groups: str) -> dict:
    return dict(group_ids=list(groups), include_authorized_operations=True)


def test_a_member_joins_and_the_broker_creates_the_internal_topics(parts):
    io_thread = streams_group_apis(parts)
    joined = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, joining())
    assert (joined.error_code, joined.member_id, joined.member_epoch) == (Errors.NONE, MEMBER, 2)
    assert statuses(joined) == {
        Status.MISSING_INTERNAL_TOPICS: f"Internal topics are missing: {REPARTITION}, {CHANGELOG}"}
    assert parts.creator.is_inflight(REPARTITION) and parts.creator.is_inflight(CHANGELOG), (
        "one CreateTopics sent to the controller for both")
    # the controller created them: the next heartbeat finds them and runs all eight tasks
    parts.publish(*topic_records(REPARTITION, 4, topic_id=uuid.UUID(int=8)),
                  *topic_records(CHANGELOG, 4, topic_id=uuid.UUID(int=9)))
    running = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, beating(joined.member_epoch))
    assert statuses(running) == {} and running.member_epoch == 3
    assert sorted((t.subtopology_id, list(t.partitions)) for t in running.active_tasks) == [
        ("0", [0, 1, 2, 3]), ("1", [0, 1, 2, 3])]

    (group,) = parts.call(io_thread, ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(APP)).groups
    assert (group.error_code, group.group_state, group.group_epoch, group.assignor_name) == (
        Errors.NONE, "Stable", 3, "sticky")
    assert [(m.member_id, m.process_id, m.member_epoch) for m in group.members] == [(MEMBER, "process-a", 3)]
    assert group.authorized_operations == 3400  # READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS
    assert [s.subtopology_id for s in group.topology.subtopologies] == ["0", "1"]


def test_a_creation_that_failed_is_named_in_the_status_until_it_expires(parts):
    io_thread = streams_group_apis(parts)
    joined = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, joining())
    parts.controller_gone()  # the CreateTopics waiting for the controller is answered BROKER_NOT_AVAILABLE
    again = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, beating(joined.member_epoch))
    detail = statuses(again)[Status.MISSING_INTERNAL_TOPICS]
    assert detail.startswith(f"Internal topics are missing: {REPARTITION}, {CHANGELOG}; Creation failed: ")
    assert REPARTITION in detail and CHANGELOG in detail
    assert not parts.creator.is_inflight(REPARTITION), "not sent again while the failure is remembered"
    parts.time.sleep(10_001)  # twice group.streams.heartbeat.interval.ms: the failure is forgotten
    later = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, beating(joined.member_epoch))
    assert statuses(later)[Status.MISSING_INTERNAL_TOPICS] == (
        f"Internal topics are missing: {REPARTITION}, {CHANGELOG}")
    assert parts.creator.is_inflight(REPARTITION), "tried again"


def test_while_streams_version_is_0_every_api_answers_unsupported_version(parts):
    io_thread = streams_group_apis(parts, enabled=False)
    refused = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, joining())
    assert (refused.error_code, refused.error_message) == (Errors.UNSUPPORTED_VERSION, None)
    groups = parts.call(io_thread, ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe("g", "h")).groups
    assert [(g.group_id, g.error_code) for g in groups] == [("g", Errors.UNSUPPORTED_VERSION),
                                                            ("h", Errors.UNSUPPORTED_VERSION)]
    update = parts.call(io_thread, ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE, 0,
                        dict(group_id=APP, member_id=MEMBER, topology_epoch=1,
                             topology_description=dict(subtopologies=[], global_stores=[])))
    assert update.error_code == Errors.UNSUPPORTED_VERSION


@pytest.mark.parametrize("source, message", [
    ("__consumer_offsets", "Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is "
                           "prohibited."),
    ("bad name!", "Topic names bad name! are not valid topic names.")])
def test_a_topology_naming_an_internal_or_invalid_topic_is_refused_before_the_coordinator(
        parts, source, message):
    answer = parts.call(streams_group_apis(parts), ApiKey.STREAMS_GROUP_HEARTBEAT, 1,
                        {**joining(), "topology": topology(source)})
    assert (answer.error_code, answer.error_message) == (Errors.STREAMS_INVALID_TOPOLOGY, message)


def test_read_on_the_group_and_describe_on_its_topics_are_needed_to_join(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.READ, ResourceType.GROUP, APP),
                          allow(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "words"))
    io_thread = streams_group_apis(parts)
    other_group = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, {**joining(), "group_id": "other"},
                             principal=ALICE)
    assert other_group.error_code == Errors.GROUP_AUTHORIZATION_FAILED
    internal_topics_hidden = parts.call(io_thread, ApiKey.STREAMS_GROUP_HEARTBEAT, 1, joining(),
                                        principal=ALICE)
    assert internal_topics_hidden.error_code == Errors.TOPIC_AUTHORIZATION_FAILED


def test_a_principal_that_may_not_create_the_internal_topics_hears_so(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.READ, ResourceType.GROUP, APP),
                          *(allow(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, t)
                            for t in ("words", REPARTITION, CHANGELOG)),
                          allow(ALICE, AclOperation.CREATE, ResourceType.TOPIC, CHANGELOG))
    joined = parts.call(streams_group_apis(parts), ApiKey.STREAMS_GROUP_HEARTBEAT, 1, joining(),
                        principal=ALICE)
    assert statuses(joined)[Status.MISSING_INTERNAL_TOPICS] == (
        f"Internal topics are missing: {REPARTITION}, {CHANGELOG}; Unauthorized to CREATE on topics "
        f"{REPARTITION}.")
    assert not parts.creator.is_inflight(CHANGELOG), "none created while one may not be"


def test_describe_answers_the_groups_the_principal_may_not_see_first(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE, ResourceType.GROUP, "g"))
    groups = parts.call(streams_group_apis(parts), ApiKey.STREAMS_GROUP_DESCRIBE, 1,
                        describe("g", "secret"), principal=ALICE).groups
    assert [(g.group_id, g.error_code) for g in groups] == [("secret", Errors.GROUP_AUTHORIZATION_FAILED),
                                                            ("g", Errors.GROUP_ID_NOT_FOUND)]


def test_the_error_response_of_streams_group_describe_names_every_group():
    class Body:
        group_ids = ["a", "b"]

    body = error_response(ApiKey.STREAMS_GROUP_DESCRIBE, 1, Body(), Errors.NOT_COORDINATOR)
    assert [(g["group_id"], g["error_code"]) for g in body["groups"]] == [("a", Errors.NOT_COORDINATOR),
                                                                          ("b", Errors.NOT_COORDINATOR)]
