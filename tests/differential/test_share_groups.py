"""Share groups (KIP-932), asked of both brokers: a member's ShareGroupHeartbeat from its join to its leave,
ShareGroupDescribe along the way, the refusals of bad heartbeats, ListGroups of share groups, FindCoordinator
for a share partition's key (key type 2), and DeleteGroups; each answer compared field by field with Apache
Kafka 4.4's (member ids are the client's own here, so both brokers get the same bytes)."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.uuid import uuid_to_string
from tests.differential.group_steps import Script, create_topic, find_coordinator
from tests.differential.oracle import Intended, differences
from tests.helpers import unique_topic, wait_until

GROUP, SHARE = 0, 2  # FindCoordinator's key types
HEARTBEAT, DESCRIBE = 1, 1  # ShareGroupHeartbeat and ShareGroupDescribe: Kafka 4.4 serves v1 only


def heartbeat(group: str, member: str, epoch: int, *topics: str) -> dict:
    return {"group_id": group, "member_id": member, "member_epoch": epoch, "rack_id": None,
            "subscribed_topic_names": list(topics) if topics else None}


def describe(*groups: str) -> dict:
    return {"group_ids": list(groups), "include_authorized_operations": False}


def assigned(answer: dict) -> list[int]:
    assignment = answer["assignment"]
    return [] if assignment is None else sorted(p for topic in assignment["topic_partitions"]
                                                for p in topic["partitions"])


def heartbeat_until(script: Script, template: dict, done) -> tuple[dict, dict]:
    """Each broker's ShareGroupHeartbeat asked on its own until ``done(answer)``, as a member keeps
    heartbeating: a partition is handed out only once the share coordinator holds its state, which each
    broker creates on its own time after the join."""
    answers = []
    for side in script.pair.sides:
        def ask(side=side):
            answer = script._named(side.request(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, template).to_dict(),
                                   side.name)
            return answer if done(answer) else None
        answers.append(wait_until(ask, timeout=60, interval=0.2, message=f"{side.name}'s share assignment"))
    return answers[0], answers[1]


def test_a_share_group_member_from_join_to_leave(pair):
    script, topic, group = Script(pair), unique_topic("shared"), unique_topic("share-group")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)
    member = "wire-test-share-member-0001"

    # The join: a group epoch, no partitions yet (their share state is being initialized).
    ours, apache = script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, 0, topic))
    assert ours["error_code"] == Errors.NONE, ours
    # Once the share coordinator holds both partitions' state, the next heartbeat gives them out.
    ours, apache = heartbeat_until(script, heartbeat(group, member, ours["member_epoch"]),
                                   lambda answer: assigned(answer) == [0, 1])
    assert not (found := differences(ours, apache)), found
    epoch = ours["member_epoch"]
    assert epoch == apache["member_epoch"], (ours, apache)
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, epoch))  # nothing new
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group, unique_topic("nobody"), ""))

    # Refusals: a stale epoch, a member nobody knows, a join without topics, an empty member id.
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, epoch + 5))
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, "wire-test-share-nobody", 3))
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, "wire-test-share-member-0002", 0))
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, "", 0, topic))
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, "x" * 37, 0, topic))

    listed = [(side, side.request(ApiKey.LIST_GROUPS, 5, {"states_filter": [], "types_filter": ["share"]}))
              for side in pair.sides]
    for side, answer in listed:
        assert (group, "share", "Stable") in [(g.group_id, g.group_type, g.group_state)
                                              for g in answer.groups], side.name

    # The leave, and the empty group it leaves; then DeleteGroups.
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, -1))
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group))
    script.same(ApiKey.DELETE_GROUPS, 2, {"groups_names": [group]})
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group))


def test_find_coordinator_for_a_share_partition(pair):
    """What a broker's persister asks to find the share coordinator of group:topicId:partition."""
    topic, group = unique_topic("share-key"), unique_topic("share-key-group")
    create_topic(pair, topic)
    ids = {side.name: side.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}]}).topics[0].topic_id
           for side in pair.sides}

    def key(partition: int):
        return lambda side: {"key_type": SHARE,
                             "coordinator_keys": [f"{group}:{uuid_to_string(ids[side.name])}:{partition}"]}

    def found() -> bool:  # the first ask creates __share_group_state on each broker
        answers = pair.ask(ApiKey.FIND_COORDINATOR, 6, key(0))
        return all(c.error_code == Errors.NONE for answer in answers for c in answer.coordinators)
    wait_until(found, timeout=60, interval=0.1, message="both brokers to name a share coordinator")
    for version in (4, 5):  # before v6, key type SHARE is INVALID_REQUEST
        pair.same(ApiKey.FIND_COORDINATOR, version, key(0), intended=(OWN_TOPIC_ID,))
    for partition in range(3):
        ours = pair.same(ApiKey.FIND_COORDINATOR, 6, key(partition), intended=(OWN_TOPIC_ID, OWN_PORT))
        assert ours.coordinators[0].error_code == Errors.NONE, ours
    for bad in ("no-colons", f"{group}:not-a-topic-id:0", f"{group}:{uuid_to_string(ids['ours'])}:x", ":a:b"):
        pair.same(ApiKey.FIND_COORDINATOR, 6, {"key_type": SHARE, "coordinator_keys": [bad]})


OWN_TOPIC_ID = Intended("coordinators[*].key", "the key holds each broker's own id of the topic")
OWN_PORT = Intended("coordinators[*].port", "each broker's own port")
