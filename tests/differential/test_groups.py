"""Consumer groups and their offsets, asked of both brokers: a classic group's life from its first
JoinGroup to its deletion, simple commits, and a KIP-848 member's OffsetCommit v9, OffsetFetch v9 and
OffsetDelete, each answer compared field by field with Apache Kafka's (member ids by name and shape,
see group_steps.Script)."""

from __future__ import annotations

import uuid

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.differential.group_steps import (
    MEMBER_ID_SHAPE,
    Script,
    Sym,
    assignment,
    create_topic,
    find_coordinator,
    subscription,
)
from tests.differential.test_transactions import (
    FIRST_EPOCH,
    HEARTBEAT_848,
    consumer_group_heartbeat,
    member_epoch,
)
from tests.helpers import unique_topic, wait_until

GROUP, TRANSACTION = 0, 1  # FindCoordinator's key types

JOIN, SYNC, HEARTBEAT, LEAVE = 7, 5, 4, 4
DESCRIBE, LIST, COMMIT, FETCH, DELETE = 5, 5, 8, 8, 2


def join(group: str, member, topic: str) -> dict:
    return {"group_id": group, "session_timeout_ms": 30000, "rebalance_timeout_ms": 30000,
            "member_id": member,
            "group_instance_id": None, "protocol_type": "consumer",
            "protocols": [{"name": "range", "metadata": subscription(topic)}]}


def sync(group: str, generation: int, member, assignments: list) -> dict:
    return {"group_id": group, "generation_id": generation, "member_id": member, "group_instance_id": None,
            "protocol_type": "consumer", "protocol_name": "range", "assignments": assignments}


def heartbeat(group: str, generation: int, member) -> dict:
    return {"group_id": group, "generation_id": generation, "member_id": member, "group_instance_id": None}


def commit(group: str, generation: int, member, offsets: dict[str, dict[int, int]]) -> dict:
    return {"group_id": group, "generation_id_or_member_epoch": generation, "member_id": member,
            "group_instance_id": None, "topics": [
                {"name": t,
                 "partitions": [{"partition_index": p, "committed_offset": o, "committed_leader_epoch": -1,
                                 "committed_metadata": "m"} for p, o in parts.items()]}
                for t, parts in offsets.items()]}


def fetch(group: str, topics: dict[str, list[int]] | None) -> dict:
    return {"groups": [{"group_id": group, "topics": None if topics is None else [
        {"name": t, "partition_indexes": ps} for t, ps in topics.items()]}], "require_stable": False}


def describe(*groups: str) -> dict:
    return {"groups": list(groups), "include_authorized_operations": False}


def only(answer: dict, groups: set[str]) -> dict:
    """A ListGroups answer narrowed to this scenario's groups: each broker also holds the other tests'."""
    return {**answer, "groups": [g for g in answer["groups"] if g["group_id"] in groups]}


def test_find_coordinator_for_a_group_and_a_transaction(pair):
    script = Script(pair)
    for key_type, key in ((GROUP, unique_topic("group")), (TRANSACTION, unique_topic("txn"))):
        find_coordinator(pair, key, key_type)
        script.same(ApiKey.FIND_COORDINATOR, 4, {"key_type": key_type, "coordinator_keys": [key]})
        script.same(ApiKey.FIND_COORDINATOR, 3, {"key": key, "key_type": key_type})


def test_a_group_from_first_join_to_leave(pair):
    script, topic, group = Script(pair), unique_topic("groups"), unique_topic("group")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # never heard of: Dead
    script.same(ApiKey.DESCRIBE_GROUPS, 6, describe(group))  # v6 (KIP-1043): Dead, GROUP_ID_NOT_FOUND

    ours, _ = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, "", topic), learn=("member_id", "member-1"))
    assert ours["error_code"] == Errors.MEMBER_ID_REQUIRED  # KIP-394: ask again with this id
    me = Sym("member-1")
    assert all(MEMBER_ID_SHAPE.match(script.value(side, "member-1")) for side in ("ours", "apache"))

    script.same(ApiKey.JOIN_GROUP, JOIN, join(group, "wire-test-not-a-member", topic))  # UNKNOWN_MEMBER_ID
    ours, _ = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, me, topic))
    assert (ours["error_code"], ours["generation_id"], ours["leader"]) == (0, 1, "member-1")
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # CompletingRebalance
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 1, me))  # REBALANCE_IN_PROGRESS while syncing
    mine = assignment(topic, 0, 1)
    ours, _ = script.same(ApiKey.SYNC_GROUP, SYNC,
                          sync(group, 1, me, [{"member_id": me, "assignment": mine}]))
    assert ours["assignment"] == mine
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Stable
    script.same(ApiKey.DESCRIBE_GROUPS, 6, describe(group))
    ours, apache = script.ask(ApiKey.LIST_GROUPS, LIST, {"states_filter": ["Stable"], "types_filter": []})
    assert only(ours, {group}) == only(apache, {group}) and only(ours, {group})["groups"]

    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 1, me))
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 0, me))  # ILLEGAL_GENERATION
    # UNKNOWN_MEMBER_ID
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 1, "wire-test-not-a-member"))
    script.same(ApiKey.SYNC_GROUP, SYNC, sync(group, 0, me, []))  # ILLEGAL_GENERATION

    ours, _ = script.same(ApiKey.JOIN_GROUP, JOIN, join(group, me, topic))  # the leader rejoins: generation 2
    assert ours["generation_id"] == 2
    script.same(ApiKey.SYNC_GROUP, SYNC, sync(group, 2, me, [{"member_id": me, "assignment": mine}]))
    # the old generation: ILLEGAL_GENERATION
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 1, me))

    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, 2, me, {topic: {0: 5, 1: 7}}))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, 1, me, {topic: {0: 6}}))  # ILLEGAL_GENERATION
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, 2, "wire-test-not-a-member", {topic: {0: 6}}))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT,
                commit(group, 2, me, {topic: {9: 1}, unique_topic("no"): {0: 1}}))
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, None))
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, {topic: [1, 5], unique_topic("no"): [0]}))
    delete_offsets = {"group_id": group, "topics": [{"name": topic, "partitions": [{"partition_index": 0}]}]}
    script.same(ApiKey.OFFSET_DELETE, 0, delete_offsets)  # GROUP_SUBSCRIBED_TO_TOPIC
    script.same(ApiKey.DELETE_GROUPS, DELETE, {"groups_names": [group]})  # NON_EMPTY_GROUP

    leave = {"group_id": group, "members": [{"member_id": me, "group_instance_id": None},
                                            {"member_id": "wire-test-not-a-member",
                                             "group_instance_id": None}]}
    script.same(ApiKey.LEAVE_GROUP, LEAVE, leave)  # one left, one UNKNOWN_MEMBER_ID
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Empty
    ours, apache = script.ask(ApiKey.LIST_GROUPS, LIST,
                              {"states_filter": ["Empty"], "types_filter": ["classic"]})
    assert only(ours, {group}) == only(apache, {group}) and only(ours, {group})["groups"]
    script.same(ApiKey.HEARTBEAT, HEARTBEAT, heartbeat(group, 2, me))  # gone: UNKNOWN_MEMBER_ID

    script.same(ApiKey.OFFSET_DELETE, 0, delete_offsets)
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, None))
    script.same(ApiKey.DELETE_GROUPS, DELETE, {"groups_names": [group, unique_topic("never")]})
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Dead again


def test_simple_commits_without_a_group_generation(pair):
    """What an assign()-ing consumer does: commit with generation -1 and no member, and fetch back."""
    script, topic, group = Script(pair), unique_topic("simple"), unique_topic("simple-group")
    create_topic(pair, topic, partitions=3)
    find_coordinator(pair, group, GROUP)
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, None))  # a group nobody ever used
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, {topic: [0]}))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, -1, "", {topic: {0: 1, 2: 3}}))
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, -1, "", {topic: {3: 1}}))  # no such partition
    # a made-up member
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(group, 4, "wire-test-x", {topic: {0: 1}}))
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, None))
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, {topic: [0, 1]}))
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Empty, protocol type ""
    ours, apache = script.ask(ApiKey.LIST_GROUPS, LIST, {"states_filter": [], "types_filter": []})
    assert only(ours, {group}) == only(apache, {group}) and only(ours, {group})["groups"]
    script.same(ApiKey.DELETE_GROUPS, DELETE, {"groups_names": [group]})
    script.same(ApiKey.OFFSET_FETCH, FETCH, fetch(group, None))


def commit_v9(group: str, member: str, epoch, topic: str, offset: int, partitions=(0, 1)) -> dict:
    """OffsetCommit v9 of these partitions: `epoch` an int, or a template (each side's member epoch)."""
    return {"group_id": group, "generation_id_or_member_epoch": epoch, "member_id": member,
            "group_instance_id": None,
            "topics": [{"name": topic, "partitions": [
                {"partition_index": p, "committed_offset": offset + p, "committed_leader_epoch": -1,
                 "committed_metadata": ""} for p in partitions]}]}


def fetch_v9(group: str, member: str | None, epoch, topic: str) -> dict:
    return {"groups": [{"group_id": group, "member_id": member, "member_epoch": epoch,
                        "topics": [{"name": topic, "partition_indexes": [0, 1]}]}], "require_stable": True}


def test_offsets_of_a_consumer_group_member(pair):
    """What a consumer with group.protocol=consumer sends for its offsets, judged against the consumer
    group by both brokers: OffsetCommit v9 and OffsetFetch v9 with the member id and epoch from
    ConsumerGroupHeartbeat (the right epoch, a newer, an older, a member nobody knows, none at all while
    the group has members), OffsetDelete of a topic the group reads, and after the member leaves."""
    script, topic, group = Script(pair), unique_topic("off-848"), unique_topic("g848-off")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)
    member = "wire-test-member-848"
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(group, member, 0, topic), intended=(FIRST_EPOCH,))
    assert ours["error_code"] == apache["error_code"] == Errors.NONE, (ours, apache)
    script.learn("member epoch", ours["member_epoch"], apache["member_epoch"])
    for who, epoch in ((member, member_epoch(0)), (member, member_epoch(1)), (member, member_epoch(-1)),
                       ("nobody", member_epoch(0)), ("", -1)):
        script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(group, who, epoch, topic, 10))
        script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(group, who, epoch, topic))
    # anyone may read without naming a member
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(group, None, -1, topic))
    script.same(ApiKey.OFFSET_DELETE, 0, {"group_id": group, "topics": [{"name": topic, "partitions": [
        {"partition_index": 0}]}]})  # the group reads it: GROUP_SUBSCRIBED_TO_TOPIC
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848, consumer_group_heartbeat(group, member, -1))
    # an empty group takes simple commits
    script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(group, "", -1, topic, 20))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(group, None, -1, topic))
    script.same(ApiKey.OFFSET_DELETE, 0, {"group_id": group, "topics": [{"name": topic, "partitions": [
        {"partition_index": 1}]}]})
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(group, None, -1, topic))


def owned_heartbeat(group: str, member: str, epoch, partitions: list[int]) -> dict:
    """A ConsumerGroupHeartbeat that says which partitions of the learnt topic id the member still holds."""
    return {"group_id": group, "member_id": member, "member_epoch": epoch, "rebalance_timeout_ms": -1,
            "topic_partitions": [{"topic_id": Sym("topic id"), "partitions": partitions}]}


def heartbeat_until(script: Script, template: dict, done) -> tuple[dict, dict]:
    """Each broker's ConsumerGroupHeartbeat asked on its own until ``done(answer)``, as a member keeps
    heartbeating: Apache Kafka 4.4 computes a new target assignment at most once a second, on a background
    thread (KIP-1263's group.consumer.assignment.interval.ms), this broker at once."""
    answers = []
    for side in script.pair.sides:
        def ask(side=side):
            answer = side.request(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                                  script._resolve(template, side.name)).to_dict()
            return answer if done(answer) else None
        answers.append(wait_until(ask, timeout=30, interval=0.2, message=f"{side.name}'s new assignment"))
    return answers[0], answers[1]


def partitions_of(answer: dict) -> list[int] | None:
    assignment = answer["assignment"]
    return None if assignment is None else sorted(p for t in assignment["topic_partitions"]
                                                  for p in t["partitions"])


def test_an_older_member_epoch_is_judged_partition_by_partition(pair):
    """KIP-1251's assignment epochs: a member whose epoch moved on while it kept a partition may still
    commit that partition with the older epoch (the commit was in flight), not one it gave away."""
    script, topic, group = Script(pair), unique_topic("kip1251"), unique_topic("g1251")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)
    first, second = "wire-test-member-first", "wire-test-member-second"
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(group, first, 0, topic), intended=(FIRST_EPOCH,))
    script.learn("member epoch", ours["member_epoch"], apache["member_epoch"])
    script.learn("topic id", ours["assignment"]["topic_partitions"][0]["topic_id"],
                 apache["assignment"]["topic_partitions"][0]["topic_id"])
    script.ask(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
               consumer_group_heartbeat(group, second, 0, topic))
    # the first member is asked to give a partition back (once each broker has the new target), does,
    # and moves to a newer epoch keeping the other
    ours, apache = heartbeat_until(script, owned_heartbeat(group, first, member_epoch(0), [0, 1]),
                                   lambda answer: partitions_of(answer) not in (None, [0, 1]))
    kept = partitions_of(ours)
    assert kept == partitions_of(apache) and len(kept) == 1, (ours, apache)
    ours, apache = script.ask(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                              owned_heartbeat(group, first, member_epoch(0), kept))
    assert ours["member_epoch"] - script.value("ours", "member epoch") == \
        apache["member_epoch"] - script.value("apache", "member epoch") == 1, (ours, apache)
    # its old epoch: accepted for the partition it kept; one it gave away makes the whole commit stale
    ours, _ = script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(group, first, member_epoch(0), topic, 30, kept))
    assert ours["topics"][0]["partitions"][0]["error_code"] == Errors.NONE, ours
    ours, _ = script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(group, first, member_epoch(0), topic, 40))
    assert {p["error_code"] for p in ours["topics"][0]["partitions"]} == {Errors.STALE_MEMBER_EPOCH}, ours
    # before it joined
    script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(group, first, member_epoch(-1), topic, 31, kept))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(group, None, -1, topic))


def static_join(group: str, member, instance: str, topic: str, reason: str | None) -> dict:
    return {**join(group, member, topic), "group_instance_id": instance, "reason": reason}


def test_join_group_v8_v9_and_leave_group_v5_with_reasons(pair):
    """KIP-800's reasons (JoinGroup v8, LeaveGroup v5) change no answer, only the coordinator's log;
    KIP-814 (JoinGroup v9): a static leader that comes back under a new member id to a Stable group is
    told it leads, with every member, and to skip the assignment; at v8 it hears the old leader id."""
    script, topic, group = Script(pair), unique_topic("reasons"), unique_topic("reason-group")
    create_topic(pair, topic)
    find_coordinator(pair, group, GROUP)
    ours, _ = script.same(ApiKey.JOIN_GROUP, 9, static_join(group, "", "instance-a", topic, "starting"),
                          learn=("member_id", "member-1"))
    assert (ours["leader"], ours["skip_assignment"], len(ours["members"])) == ("member-1", False, 1)
    mine = assignment(topic, 0)
    script.same(ApiKey.SYNC_GROUP, SYNC, {**sync(group, 1, Sym("member-1"), [
        {"member_id": Sym("member-1"), "assignment": mine}]), "group_instance_id": "instance-a"})

    # the static leader restarts: a new member id, the same generation, no rebalance
    ours, _ = script.same(ApiKey.JOIN_GROUP, 9, static_join(group, "", "instance-a", topic, "restarted"),
                          learn=("member_id", "member-2"))
    assert (ours["generation_id"], ours["leader"], ours["skip_assignment"]) == (1, "member-2", True)
    assert [m["member_id"] for m in ours["members"]] == ["member-2"]
    ours, _ = script.same(ApiKey.JOIN_GROUP, 8, static_join(group, "", "instance-a", topic, None),
                          learn=("member_id", "member-3"))
    assert (ours["leader"], ours["skip_assignment"], ours["members"]) == ("member-2", False, [])
    ours, _ = script.same(ApiKey.SYNC_GROUP, SYNC, {**sync(group, 1, Sym("member-3"), []),
                                                    "group_instance_id": "instance-a"})
    assert ours["assignment"] == mine  # the group's assignment, kept
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))

    script.same(ApiKey.LEAVE_GROUP, 5, {"group_id": group, "members": [
        {"member_id": Sym("member-3"), "group_instance_id": "instance-a", "reason": "closing"},
        {"member_id": "wire-test-not-a-member", "group_instance_id": None, "reason": None}]})
    script.same(ApiKey.DESCRIBE_GROUPS, DESCRIBE, describe(group))  # Empty


def test_delete_groups_v3_per_group_error_message(pair):
    """DeleteGroups v3 adds each group's error_message: null for a deletion, a group with members
    (NON_EMPTY_GROUP), one nobody knows (GROUP_ID_NOT_FOUND), and a name asked for twice (answered once)."""
    script, topic = Script(pair), unique_topic("del-v3")
    empty, busy = unique_topic("del-empty"), unique_topic("del-busy")
    create_topic(pair, topic)
    for group in (empty, busy):
        find_coordinator(pair, group, GROUP)
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(empty, -1, "", {topic: {0: 1}}))
    script.same(ApiKey.JOIN_GROUP, 9, static_join(busy, "", "instance-a", topic, None),
                learn=("member_id", "member-1"))
    ours, _ = script.same(ApiKey.DELETE_GROUPS, 3,
                          {"groups_names": [empty, busy, unique_topic("never"), empty]})
    assert [(r["error_code"], r["error_message"]) for r in ours["results"]] == [
        (Errors.NONE, None), (Errors.NON_EMPTY_GROUP, None), (Errors.GROUP_ID_NOT_FOUND, None)]


def learn_topic_id(script: Script, topic: str, name: str) -> None:
    """What each broker calls the topic (its own random id), remembered by the script as `name`."""
    ours, apache = (side.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}]}).topics[0].topic_id
                    for side in script.pair.sides)
    script.learn(name, ours, apache)


def commit_v10(group: str, topics: list[tuple[object, dict[int, int]]]) -> dict:
    return {"group_id": group, "generation_id_or_member_epoch": -1, "member_id": "",
            "group_instance_id": None, "topics": [{"topic_id": t, "partitions": [
                {"partition_index": p, "committed_offset": o, "committed_leader_epoch": -1,
                 "committed_metadata": "m"} for p, o in parts.items()]} for t, parts in topics]}


def fetch_v10(group: str, topics: list[tuple[object, list[int]]] | None) -> dict:
    asked = None if topics is None else [{"topic_id": t, "partition_indexes": ps} for t, ps in topics]
    return {"groups": [{"group_id": group, "member_id": None, "member_epoch": -1, "topics": asked}],
            "require_stable": False}


def test_offset_commit_and_fetch_v10_name_topics_by_id(pair):
    """OffsetCommit v10 and OffsetFetch v10 (KIP-848) name topics by id: each broker is sent its own
    id for the topic; an id neither knows answers UNKNOWN_TOPIC_ID (after the rest); an offset committed
    by id reads back by name and the other way round; asked for everything, each topic comes with its id."""
    script, topic, group = Script(pair), unique_topic("by-id"), unique_topic("by-id-group")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, group, GROUP)
    learn_topic_id(script, topic, "topic id")
    nobody = uuid.uuid4()
    ours, _ = script.same(ApiKey.OFFSET_COMMIT, 10, commit_v10(group, [
        (Sym("topic id"), {0: 5, 1: 7, 9: 1}), (nobody, {0: 1})]))
    assert [t["topic_id"] for t in ours["topics"]] == [script.value("ours", "topic id"), nobody]
    assert [(p["partition_index"], p["error_code"]) for p in ours["topics"][1]["partitions"]] == [
        (0, Errors.UNKNOWN_TOPIC_ID)]
    ours, _ = script.same(ApiKey.OFFSET_FETCH, 10,
                          fetch_v10(group, [(nobody, [0]), (Sym("topic id"), [0, 1, 5])]))
    assert [t["topic_id"] for t in ours["groups"][0]["topics"]] == [script.value("ours", "topic id"), nobody]
    script.same(ApiKey.OFFSET_FETCH, 10, fetch_v10(group, None))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch(group, {topic: [0, 1]}))  # committed by id, read by name
    script.same(ApiKey.OFFSET_COMMIT, 9, commit(group, -1, "", {topic: {0: 8}}))
    ours, _ = script.same(ApiKey.OFFSET_FETCH, 10, fetch_v10(group, None))
    assert {p["partition_index"]: p["committed_offset"]
            for p in ours["groups"][0]["topics"][0]["partitions"]} == {0: 8, 1: 7}
    script.same(ApiKey.OFFSET_COMMIT, 10, commit_v10(group, [(nobody, {0: 1})]))  # nothing to commit
    stranger = unique_topic("by-id-nobody")
    find_coordinator(pair, stranger, GROUP)
    for version, error in ((8, Errors.ILLEGAL_GENERATION), (9, Errors.GROUP_ID_NOT_FOUND)):
        # a generation of a group nobody has
        ours, _ = script.same(ApiKey.OFFSET_COMMIT, version,
                              commit(stranger, 1, "wire-test-x", {topic: {0: 1}}))
        assert ours["topics"][0]["partitions"][0]["error_code"] == error
