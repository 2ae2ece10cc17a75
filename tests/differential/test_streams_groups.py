"""Streams groups (KIP-1071), asked of both brokers, each answer compared field by field with Apache Kafka
4.4's (member and process ids are the client's own, so both brokers get the same bytes):

* a word count's first member joins: the topology kept, the internal topics it needs reported missing
  (MISSING_INTERNAL_TOPICS) and created by each broker, the first assignment held back by the initial
  rebalance delay (ASSIGNMENT_DELAYED); then every task, StreamsGroupDescribe, the member's offset
  commits and fetches, a second member of another process taking half, the leave, ListGroups,
  DeleteGroups;
* what each broker refuses: an unknown member, a fenced epoch, a topology changed at the same epoch, a
  changelog topic with a partition count, an internal topic of Kafka's, a name no topic may have, a
  regular expression, a join without a topology, tasks that do not exist; and the statuses of a topology
  that cannot run yet: a missing source topic, co-partitioned topics that are not, a stale member;
* StreamsGroupDescribe of a group nobody has, of an empty id and of a group of another type,
  DescribeGroups of a streams group, and StreamsGroupTopologyDescriptionUpdate (KIP-1331) with no plugin
  to keep the description;
* standby tasks over three members of two processes: the same assignment from both StickyTaskAssignors.

A member's heartbeats until an answer it awaits go to each broker on its own (Script.until): each
broker creates the internal topics and computes the target on its own time.
"""

from __future__ import annotations

import pytest

from kafka.protocol.api_keys import ApiKey
from tests.differential.group_steps import Script, create_topic, find_coordinator
from tests.differential.oracle import Pair
from tests.differential.test_configs import SET
from tests.differential.test_group_configs import alter_group, described
from tests.differential.test_groups import commit_v9, fetch_v9
from tests.differential.test_transactions import HEARTBEAT_848, consumer_group_heartbeat
from tests.helpers import unique_topic, wait_until

GROUP = 0  # FindCoordinator's key type
MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED, MISSING_INTERNAL_TOPICS, ASSIGNMENT_DELAYED = 1, 2, 3, 5
STALE_TOPOLOGY = 0


def word_count(app: str, source: str, epoch: int = 0) -> dict:
    """A word count's topology as Kafka Streams 4.4 sends it: subtopology 0 reads the lines and writes the
    repartition topic, subtopology 1 reads it and logs its store to the changelog."""
    repartition, changelog = f"{app}-counts-repartition", f"{app}-counts-changelog"
    return {"epoch": epoch, "subtopologies": [
        {"subtopology_id": "0", "source_topics": [source], "source_topic_regex": [],
         "state_changelog_topics": [],
         "repartition_sink_topics": [repartition], "repartition_source_topics": [], "copartition_groups": []},
        {"subtopology_id": "1", "source_topics": [], "source_topic_regex": [],
         "state_changelog_topics": [{"name": changelog, "partitions": 0, "replication_factor": 0,
                                     "topic_configs": [{"key": "cleanup.policy", "value": "compact"}]}],
         "repartition_sink_topics": [],
         "repartition_source_topics": [{"name": repartition, "partitions": 0, "replication_factor": 0,
                                        "topic_configs": [{"key": "cleanup.policy", "value": "delete"}]}],
         "copartition_groups": []}]}


def heartbeat(group: str, member: str, epoch: int, topology: dict | None = None, process: str = "process-a",
              owned: tuple[list, list, list] | None = ([], [], []), **fields) -> dict:
    active, standby, warmup = owned if owned is not None else (None, None, None)
    return {"group_id": group, "member_id": member, "member_epoch": epoch, "endpoint_information_epoch": 0,
            "instance_id": None, "rack_id": None, "rebalance_timeout_ms": 30000 if epoch == 0 else -1,
            "topology": topology, "active_tasks": active, "standby_tasks": standby, "warmup_tasks": warmup,
            "process_id": process if epoch == 0 else None, "user_endpoint": None, "client_tags": None,
            "task_offsets": None, "task_end_offsets": None, "shutdown_application": False, **fields}


def describe(*groups: str, version: int = 1) -> dict:
    body = {"group_ids": list(groups), "include_authorized_operations": False}
    if version >= 1:
        body["include_topology_description"] = True
    return body


def tasks(answer: dict, kind: str = "active_tasks") -> list[tuple[str, int]]:
    return sorted((t["subtopology_id"], p) for t in answer.get(kind) or () for p in t["partitions"])


def statuses(answer: dict) -> set[int]:
    return {s["status_code"] for s in answer["status"] or ()}


def internal_topics_exist(pair: Pair, *topics: str) -> bool:
    answers = pair.ask(ApiKey.METADATA, 12, {"topics": [{"name": t} for t in topics],
                                             "allow_auto_topic_creation": False,
                                             "include_topic_authorized_operations": False})
    return all(t.error_code == 0 for answer in answers for t in answer.topics)


@pytest.fixture
def streams_pair(pair):
    find_coordinator(pair, unique_topic("warm-up-group"), GROUP)
    return pair


def test_a_word_count_joins_runs_and_leaves(streams_pair):
    pair, script = streams_pair, Script(streams_pair)
    app, source = unique_topic("wordcount"), unique_topic("lines")
    create_topic(pair, source, partitions=2)
    find_coordinator(pair, app, GROUP)
    # a new target at once for each change (not at most one a second): every step happens on both alike
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
              alter_group(app, ("streams.assignment.interval.ms", SET, "0")))
    described(pair, app)
    topology = word_count(app, source)
    a, b = "streams-member-a-0000000001", "streams-member-b-0000000002"

    # The join: the topology is kept, its internal topics are missing (each broker creates them), and the
    # first assignment waits out group.streams.initial.rebalance.delay.ms (3 s).
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, 0, topology))
    assert statuses(ours) == {MISSING_INTERNAL_TOPICS, ASSIGNMENT_DELAYED}, ours
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    # Until the member has all four tasks: the topics exist, the delay is over, the target is computed.
    ours, apache = script.until(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, ours["member_epoch"]),
                                lambda answer: len(tasks(answer)) == 4, timeout=60)
    assert tasks(ours) == tasks(apache) == [("0", 0), ("0", 1), ("1", 0), ("1", 1)]
    assert ours["member_epoch"] == apache["member_epoch"], (ours, apache)
    assert internal_topics_exist(pair, f"{app}-counts-repartition", f"{app}-counts-changelog")
    epoch = ours["member_epoch"]
    owned = ([{"subtopology_id": s, "partitions": [0, 1]} for s in ("0", "1")], [], [])
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, epoch, owned=owned))  # nothing new
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 0, heartbeat(app, a, epoch, owned=owned))  # v0 alike
    for version in (0, 1):
        script.same(ApiKey.STREAMS_GROUP_DESCRIBE, version, describe(app, version=version))
    # Its offsets: OffsetCommit and OffsetFetch v9 with its member epoch (a newer one is stale, an older
    # client's v8 is refused), OffsetDelete of a topic the topology reads
    script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(app, a, epoch, source, 10))
    script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(app, a, epoch + 1, source, 11))
    script.same(ApiKey.OFFSET_COMMIT, 8, commit_v9(app, a, epoch, source, 12))
    script.same(ApiKey.OFFSET_COMMIT, 9, commit_v9(app, "streams-member-nobody-000001", epoch, source, 13))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(app, a, epoch, source))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(app, a, epoch + 1, source))
    script.same(ApiKey.OFFSET_FETCH, 9, fetch_v9(app, None, -1, source))
    script.same(ApiKey.OFFSET_DELETE, 0, {"group_id": app, "topics": [
        {"name": source, "partitions": [{"partition_index": 0}]}]})

    # A second member of another process: a's heartbeat gives up one task of each subtopology, b takes
    # them once a has let go.
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, b, 0, topology,
                                                                       process="process-b"))
    b_epoch = ours["member_epoch"]
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, epoch, owned=owned))
    kept = ([{"subtopology_id": s, "partitions": [p for p in (0, 1) if (s, p) in tasks(ours)]}
             for s in ("0", "1")], [], [])
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, ours["member_epoch"],
                                                                       owned=kept))
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, b, b_epoch))
    assert len(tasks(ours)) == 2, ours
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    listed = pair.ask(ApiKey.LIST_GROUPS, 5, {"states_filter": ["stable"], "types_filter": ["streams"]})
    for side, answer in zip(pair.sides, listed, strict=True):  # (other tests' groups are listed too)
        assert (app, "streams", "Stable", "streams") in [
            (g.group_id, g.group_type, g.group_state, g.protocol_type) for g in answer.groups], side.name

    # The leaves, the empty group, then DeleteGroups.
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, b, -1, owned=None))
    script.same(ApiKey.DELETE_GROUPS, 2, {"groups_names": [app]})  # NON_EMPTY_GROUP: a is still in it
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, a, -1, owned=None))
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    script.same(ApiKey.DELETE_GROUPS, 2, {"groups_names": [app]})
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))


def test_heartbeats_each_broker_refuses(streams_pair):
    pair, script = streams_pair, Script(streams_pair)
    app, source = unique_topic("refused"), unique_topic("refused-lines")
    create_topic(pair, source, partitions=2)
    find_coordinator(pair, app, GROUP)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        app, ("streams.initial.rebalance.delay.ms", SET, "0"), ("streams.assignment.interval.ms", SET, "0")))
    described(pair, app)
    topology = word_count(app, source)
    member = "streams-refused-0000000001"
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, 0, topology))
    # until both created the internal topics and assigned the tasks: the topology is ready on both
    ours, apache = script.until(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member,
                                                                             ours["member_epoch"]),
                                lambda answer: len(tasks(answer)) == 4, timeout=60)
    assert ours["member_epoch"] == apache["member_epoch"], (ours, apache)
    epoch = ours["member_epoch"]

    bad = dict(topology, subtopologies=[dict(s) for s in topology["subtopologies"]])
    bad["subtopologies"][0]["repartition_sink_topics"] = [f"{app}-other-repartition"]
    changelog_counted = word_count(app, source)
    changelog_counted["subtopologies"][1]["state_changelog_topics"][0]["partitions"] = 2
    internal = word_count(app, "__consumer_offsets")
    invalid_name = word_count(app, "no spaces allowed")
    regex = word_count(app, source)
    regex["subtopologies"][0]["source_topic_regex"] = ["lines-.*"]
    for template in (
            heartbeat(app, "streams-nobody-0000000001", 3, owned=None),  # UNKNOWN_MEMBER_ID
            heartbeat(app, member, epoch + 5),  # FENCED_MEMBER_EPOCH
            heartbeat(app, member, 0, bad),  # the same epoch, another topology: INVALID_REQUEST
            heartbeat(app, "streams-other-0000000001", 0, changelog_counted),  # STREAMS_INVALID_TOPOLOGY
            heartbeat(app, "streams-other-0000000001", 0, internal),
            heartbeat(app, "streams-other-0000000001", 0, invalid_name),
            heartbeat(app, "streams-other-0000000001", 0, regex),  # not supported yet: INVALID_REQUEST
            heartbeat(app, "streams-other-0000000001", 0, None),  # a join needs a topology
            heartbeat(app, "streams-other-0000000001", 0, topology, rebalance_timeout_ms=-1),
            heartbeat(app, member, epoch, topology),  # a topology only when joining
            heartbeat(app, member, epoch, owned=([{"subtopology_id": "7", "partitions": [0]}], [], [])),
            heartbeat(app, member, epoch, owned=([{"subtopology_id": "0", "partitions": [9]}], [], [])),
            heartbeat(app, member, epoch, owned=([], None, [])),  # all three task lists or none
            heartbeat(app, "", 0, topology),  # an empty member id
            heartbeat(app, member, -3, owned=None)):  # no such epoch
        script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, template)
    # A member with an older topology epoch is told it is stale.
    older = word_count(app, source, epoch=0)
    newer = word_count(app, source, epoch=1)
    other = unique_topic("refused-newer")
    find_coordinator(pair, other, GROUP)
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(other, "streams-newer-0000000001", 0, newer))
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(other, "streams-older-0000000001", 0,
                                                                       older))
    assert STALE_TOPOLOGY in statuses(ours), ours
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(other, "streams-older-0000000001", -1,
                                                             owned=None))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(other, "streams-newer-0000000001", -1,
                                                             owned=None))


def test_topologies_that_cannot_run_yet(streams_pair):
    """A source topic missing, and co-partitioned sources of different sizes: a status each heartbeat."""
    pair, script = streams_pair, Script(streams_pair)
    app, left, right = unique_topic("join"), unique_topic("left"), unique_topic("right")
    find_coordinator(pair, app, GROUP)
    join = {"epoch": 0, "subtopologies": [
        {"subtopology_id": "0", "source_topics": [left, right], "source_topic_regex": [],
         "state_changelog_topics": [], "repartition_sink_topics": [], "repartition_source_topics": [],
         "copartition_groups": [{"source_topics": [0, 1], "source_topic_regex": [],
                                 "repartition_source_topics": []}]}]}
    member = "streams-join-0000000001"
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, 0, join))
    assert MISSING_SOURCE_TOPICS in statuses(ours), ours
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    create_topic(pair, left, partitions=2)
    create_topic(pair, right, partitions=3)
    # until each coordinator has the new topics in its metadata image (Kafka's arrives a moment after its
    # partitions are led), then both say the same
    script.until(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, ours["member_epoch"]),
                 lambda answer: INCORRECTLY_PARTITIONED in statuses(answer))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, ours["member_epoch"]))
    script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, -1, owned=None))


def test_groups_of_other_types_and_no_groups(streams_pair):
    """StreamsGroupDescribe of a consumer group, of nobody's group and of an empty id; a StreamsGroupHeartbeat
    to the consumer group's id, and a ConsumerGroupHeartbeat to a streams group's."""
    pair, script = streams_pair, Script(streams_pair)
    consumer, app, source = unique_topic("consumer-group"), unique_topic("other-app"), unique_topic("other")
    create_topic(pair, source)
    for group in (consumer, app):
        find_coordinator(pair, group, GROUP)
    member = "consumer-member-0000000001"
    # (the consumer group's own answers are test_groups.py's to compare: here only what follows is)
    pair.ask(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
             consumer_group_heartbeat(consumer, member, 0, source))
    for version in (0, 1):
        script.same(ApiKey.STREAMS_GROUP_DESCRIBE, version,
                    describe(unique_topic("nobody"), "", consumer, version=version))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(consumer, "streams-member-0000000001", 0,
                                                             word_count(consumer, source)))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, "streams-member-0000000002", 0,
                                                             word_count(app, source)))
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                consumer_group_heartbeat(app, member, 0, source))
    # DescribeGroups describes classic groups only: a streams group is Dead to it
    for version in (5, 6):  # v6: GROUP_ID_NOT_FOUND, "Group ... is not a classic group."
        script.same(ApiKey.DESCRIBE_GROUPS, version, {"groups": [app],
                                                      "include_authorized_operations": False})
    # KIP-1331's push of a topology description: neither broker has a plugin to keep it
    script.same(ApiKey.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE, 0, {
        "group_id": app, "member_id": "streams-member-0000000002", "topology_epoch": 0,
        "topology_description": {"subtopologies": [], "global_stores": []}})
    pair.ask(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848, consumer_group_heartbeat(consumer, member, -1))
    script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, "streams-member-0000000002", -1,
                                                             owned=None))


def test_standby_tasks_and_three_members_of_two_processes(streams_pair):
    """The group's streams.num.standby.replicas 1: each task of the stateful subtopology also runs as a
    standby, never on the process of its active task; the StickyTaskAssignor of each broker balances the same
    way over members of unequal processes (its ties are Kafka's HashMap and PriorityQueue orders)."""
    pair, script = streams_pair, Script(streams_pair)
    app, source = unique_topic("standbys"), unique_topic("standby-lines")
    create_topic(pair, source, partitions=3)
    find_coordinator(pair, app, GROUP)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter_group(
        app, ("streams.initial.rebalance.delay.ms", SET, "0"), ("streams.assignment.interval.ms", SET, "0"),
        ("streams.num.standby.replicas", SET, "1")))
    described(pair, app)
    topology = word_count(app, source)
    members = (("streams-standby-0000000001", "process-a"), ("streams-standby-0000000002", "process-a"),
               ("streams-standby-0000000003", "process-b"))
    first, _ = members[0]
    ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, first, 0, topology))
    # until both created the internal topics and gave the first member every task
    ours, apache = script.until(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, first,
                                                                             ours["member_epoch"]),
                                lambda answer: len(tasks(answer)) == 6, timeout=60)
    epochs = {first: ours["member_epoch"]}
    for member, process in members[1:]:
        ours, _ = script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, 0, topology,
                                                                           process=process))
        epochs[member] = ours["member_epoch"]
    # each member heartbeats on its own until the group is stable on each broker, owning what it was given
    for side in pair.sides:
        owned = {member: ([], [], []) for member, _ in members}
        owned[first] = ([{"subtopology_id": s, "partitions": [0, 1, 2]} for s in ("0", "1")], [], [])
        given = dict(epochs)

        def stable(side=side, owned=owned, given=given) -> bool:
            for member, _ in members:
                answer = side.request(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(
                    app, member, given[member], owned=owned[member])).to_dict()
                given[member] = answer["member_epoch"]
                if answer["active_tasks"] is not None:
                    owned[member] = tuple([t for t in answer[kind] if t["partitions"]]
                                          for kind in ("active_tasks", "standby_tasks", "warmup_tasks"))
            group = side.request(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app)).groups[0]
            return group.group_state == "Stable"
        wait_until(stable, timeout=60, interval=0.2, message=f"{side.name}'s group to be stable")
    ours, _ = script.same(ApiKey.STREAMS_GROUP_DESCRIBE, 1, describe(app))
    standbys = [(t["subtopology_id"], p) for m in ours["groups"][0]["members"]
                for t in m["assignment"]["standby_tasks"] for p in t["partitions"]]
    assert sorted(standbys) == [("1", 0), ("1", 1), ("1", 2)], ours
    for member, _ in members:
        script.same(ApiKey.STREAMS_GROUP_HEARTBEAT, 1, heartbeat(app, member, -1, owned=None))
