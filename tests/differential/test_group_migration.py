"""A group id used by both protocols, asked of both brokers: a rolling upgrade's mixed group. A classic
group with a member is upgraded online when a member of the KIP-848 protocol joins it; the classic
member then lives in the consumer group (Heartbeat, JoinGroup, SyncGroup, OffsetCommit with its member
epoch as generation); when the last member of the new protocol leaves, the group is downgraded to a
classic group and rebalances. Each answer is compared field by field with Apache Kafka 4.4's, whose
default group.consumer.migration.policy is bidirectional (docs/groups.md)."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.differential.group_steps import Script, Sym, assignment, create_topic, find_coordinator
from tests.differential.test_groups import (
    COMMIT,
    DESCRIBE,
    HEARTBEAT,
    JOIN,
    LIST,
    SYNC,
    commit,
    describe,
    heartbeat,
    join,
    only,
    sync,
)
from tests.differential.test_transactions import HEARTBEAT_848, consumer_group_heartbeat
from tests.helpers import unique_topic

GROUP = 0
CONSUMER_DESCRIBE = 1


def generation(delta: int = 0):
    """A generation id field: the one this side's broker last gave the classic member, moved by delta."""
    return lambda value: value("generation") + delta


def test_a_classic_group_upgraded_online_and_downgraded_back(pair):
    script, topic, group = Script(pair), unique_topic("migrate"), unique_topic("migrating")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)

    # a classic group with one member holding both partitions, generation 1
    script.same(ApiKey.JOIN_GROUP, JOIN, join(group, "", topic), learn=("member_id", "classic-1"))
    classic = Sym("classic-1")
    ours, _ = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, classic, topic))
    assert ours["generation_id"] == 1
    script.same(ApiKey.SYNC_GROUP, SYNC, sync(group, 1, classic, [{"member_id": classic,
                                                                  "assignment": assignment(topic, 0, 1)}]))

    # a member of the new protocol joins: the group is upgraded, and the newcomer waits for a partition
    member = "wire-test-member-upgrade"
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(group, member, 0, topic))
    assert ours["error_code"] == Errors.NONE and ours["member_epoch"] == 2, ours
    script.same(ApiKey.CONSUMER_GROUP_DESCRIBE, CONSUMER_DESCRIBE,
                {"group_ids": [group], "include_authorized_operations": False})
    ours, apache = script.ask(ApiKey.LIST_GROUPS, LIST, {"states_filter": [], "types_filter": []})
    assert only(ours, {group}) == only(apache, {group})
    assert only(ours, {group})["groups"][0]["group_type"] == "consumer"

    # the classic member hears of the rebalance, rejoins (its generation is its member epoch now) and syncs
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 1, classic))  # REBALANCE_IN_PROGRESS
    # its epoch is still 1
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, 1, classic, {topic: {0: 3}}))
    ours, apache = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, classic, topic))
    assert (ours["error_code"], ours["leader"], ours["members"]) == (Errors.NONE, "", []), ours
    script.learn("generation", ours["generation_id"], apache["generation_id"])
    script.same(ApiKey.SYNC_GROUP, SYNC, sync(group, generation(), classic, []))
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, generation(), classic))
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, generation(-1), classic))  # ILLEGAL_GENERATION
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, generation(), classic, {topic: {0: 4}}))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, generation(-1), classic, {topic: {0: 5}}))
    script.same(ApiKey.CONSUMER_GROUP_DESCRIBE, CONSUMER_DESCRIBE,
                {"group_ids": [group], "include_authorized_operations": False})

    # the newcomer leaves: only a classic member is left, and the group is a classic group again
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848, consumer_group_heartbeat(group, member, -1))
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # PreparingRebalance
    ours, apache = script.ask(ApiKey.LIST_GROUPS, LIST, {"states_filter": [], "types_filter": []})
    assert only(ours, {group}) == only(apache, {group})
    assert only(ours, {group})["groups"][0]["group_type"] == "classic"
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, generation(), classic))  # REBALANCE_IN_PROGRESS
    ours, _ = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, classic, topic))
    assert ours["error_code"] == Errors.NONE and ours["leader"] == "classic-1", ours
    script.same(ApiKey.SYNC_GROUP, SYNC, sync(group, generation(1), classic,
                                              [{"member_id": classic,
                                                  "assignment": assignment(topic, 0, 1)}]))
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Stable
