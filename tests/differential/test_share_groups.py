"""Share groups (KIP-932), asked of both brokers, each answer compared field by field with Apache Kafka
4.4's (member ids are the client's own here, so both brokers get the same bytes):

* a member's ShareGroupHeartbeat from its join to its leave, the refusals of bad heartbeats, and
  FindCoordinator for a share partition's key (key type 2);
* a share session (ShareFetch and ShareAcknowledge at each version Kafka serves): records acquired with
  their delivery counts, accepted, released and rejected, the session's epochs and its close, and the bad
  input: a fetch by a member the group does not know, a wrong epoch, a session nobody opened, offsets the
  member does not hold or acknowledged already; DescribeShareGroupOffsets along the way;
* ShareGroupDescribe of two members sharing two partitions, ListGroups by type and state, DeleteGroups;
* one group id, two types: a consumer or classic group's id asked as a share group's, and the reverse.

What each broker picks for itself is compared by name or shape (group_steps.Script); the one difference
declared here is WHICH_PARTITION."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord
from kafka.utils.uuid import uuid_to_string
from tests.differential.group_steps import Script, Sym, create_topic, find_coordinator, served
from tests.differential.oracle import Intended, Pair, Side, differences
from tests.differential.test_configs import SET
from tests.differential.test_group_configs import alter_group, described
from tests.differential.test_groups import COMMIT, FETCH, commit
from tests.differential.test_groups import fetch as offset_fetch
from tests.differential.test_produce_fetch import produce
from tests.differential.test_transactions import FIRST_EPOCH, HEARTBEAT_848, consumer_group_heartbeat
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
    return script.until(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, template, done)


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


# ------------------------------------------------------------------ ShareFetch and ShareAcknowledge
ACCEPT, RELEASE, REJECT = 1, 2, 3  # acknowledge types
WAIT_MS = 500  # a ShareFetch that finds nothing to acquire waits this long for records, then answers empty
LONG_WAIT_MS = 10000  # one that is sure to find records, at once or once they come


def share_fetch(group: str, member: str, epoch: int, acks: dict[int, list[dict]] | None = None,
                partitions=(), max_wait_ms: int = WAIT_MS) -> dict:
    """A ShareFetch of the learnt topic: `partitions` to add to the share session (the opening request
    names them all), `acks` the acknowledgement batches piggybacked per partition."""
    acks = acks or {}
    named = sorted(set(partitions) | set(acks))
    return {"group_id": group, "member_id": member, "share_session_epoch": epoch, "max_wait_ms": max_wait_ms,
            "min_bytes": 1, "max_bytes": 1 << 20, "max_records": 500, "batch_size": 500,
            "topics": [{"topic_id": Sym("topic id"), "partitions": [
                {"partition_index": p, "acknowledgement_batches": acks.get(p, [])} for p in named]}]
            if named else [], "forgotten_topics_data": []}


def share_acknowledge(group: str, member: str, epoch: int, acks: dict[int, list[dict]]) -> dict:
    return {"group_id": group, "member_id": member, "share_session_epoch": epoch,
            "topics": [{"topic_id": Sym("topic id"), "partitions": [
                {"partition_index": p, "acknowledgement_batches": batches} for p, batches in acks.items()]}]
            if acks else []}


def ack(first: int, last: int, *types: int) -> dict:
    """One acknowledgement batch: one type for the whole range, or one per offset."""
    return {"first_offset": first, "last_offset": last, "acknowledge_types": list(types)}


def acquired(answer: dict) -> list[tuple[int, int, int]]:
    """(first offset, last offset, delivery count) of each range a ShareFetch answer acquired."""
    return [(r["first_offset"], r["last_offset"], r["delivery_count"]) for t in answer["responses"]
            for p in t["partitions"] for r in p["acquired_records"]]


def describe_offsets(group: str, topics: dict[str, list[int]] | None = None) -> dict:
    return {"groups": [{"group_id": group, "topics": None if topics is None else [
        {"topic_name": t, "partitions": ps} for t, ps in topics.items()]}]}


def produce_to_both(pair: Pair, topic: str, first: int, count: int) -> None:
    """The same batch of `count` records (offsets `first`...) on partition 0 of both brokers."""
    batch = [DefaultRecord(i, 0, b"k", b"record-%d" % (first + i)) for i in range(count)]
    ours, apache = pair.ask(ApiKey.PRODUCE, 9, produce(topic, batch))
    for answer in (ours, apache):
        partition = answer.responses[0].partition_responses[0]
        assert (partition.error_code, partition.base_offset) == (Errors.NONE, first), answer


def share_group_reading(pair: Pair, script: Script, prefix: str, partitions: int = 1) -> tuple[str, str]:
    """A topic and a share group that reads it from its earliest record (the group config
    share.auto.offset.reset, set before anyone joins: the default, latest, would skip what is produced
    before the share partition starts), and the topic's id learnt as "topic id"."""
    topic, group = unique_topic(prefix), unique_topic(f"{prefix}-group")
    create_topic(pair, topic, partitions)
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1,
              alter_group(group, ("share.auto.offset.reset", SET, "earliest")))
    described(pair, group)
    find_coordinator(pair, group, GROUP)
    ids = [side.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}]}).topics[0].topic_id
           for side in pair.sides]
    script.learn("topic id", *ids)
    return topic, group


def joined(script: Script, group: str, member: str, topic: str, partitions: list[int]) -> tuple[int, int]:
    """The member joins and heartbeats until both brokers assign it `partitions`; its epoch on each."""
    ours, _ = script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, 0, topic))
    assert ours["error_code"] == Errors.NONE, ours
    ours, apache = heartbeat_until(script, heartbeat(group, member, ours["member_epoch"]),
                                   lambda answer: assigned(answer) == partitions)
    assert not (found := differences(ours, apache)), found
    return ours["member_epoch"], apache["member_epoch"]


def test_share_fetch_and_acknowledge(pair):
    """A member's share session from its opening ShareFetch to its close, at each version Apache Kafka
    serves: records acquired with their delivery counts, acknowledged (accept, release, reject) by
    ShareAcknowledge and piggybacked on a ShareFetch, released ones delivered again; a second member,
    which never joined the group, fetching (Kafka does not ask the group who fetches) and acknowledging what
    it does not hold; offsets acknowledged twice; a wrong session epoch, a session nobody opened, and the
    share group's offsets (DescribeShareGroupOffsets) along the way."""
    for version in served(pair, ApiKey.SHARE_FETCH):
        a_share_session(pair, version)


def a_share_session(pair: Pair, version: int) -> None:
    fetch, acknowledge = (ApiKey.SHARE_FETCH, version), (ApiKey.SHARE_ACKNOWLEDGE, version)
    script = Script(pair)
    topic, group = share_group_reading(pair, script, f"share-fetch-v{version}")
    produce_to_both(pair, topic, 0, 5)
    produce_to_both(pair, topic, 5, 5)
    member, outsider = "wire-test-share-member-0001", "wire-test-share-outsider"
    joined(script, group, member, topic, [0])
    # A second connection for the outsider: a share session belongs to its connection.
    other = Pair(Side("ours", pair.ours.port), Side("apache", pair.apache.port))
    try:
        second = Script(other)
        second.learn("topic id", script.value("ours", "topic id"), script.value("apache", "topic id"))
        session_of_two_members(script, second, fetch, acknowledge, topic, group, member, outsider)
    finally:
        other.close()


def session_of_two_members(script: Script, second: Script, fetch: tuple, acknowledge: tuple, topic: str,
                           group: str, member: str, outsider: str) -> None:
    # The opening ShareFetch: all ten records, acquired once (asked until each broker's share partition
    # has loaded its state and hands them out).
    ours, apache = script.until(*fetch, share_fetch(group, member, 0, partitions=[0]),
                                lambda answer: acquired(answer))
    assert not (found := differences(ours, apache)), found
    assert acquired(ours) == [(0, 9, 1)], ours

    # The outsider opens a session too; the member holds everything, so it gets nothing, and it cannot
    # acknowledge what the member holds.
    second.same(*fetch, share_fetch(group, outsider, 0, partitions=[0]))
    second.same(*acknowledge, share_acknowledge(group, outsider, 1, {0: [ack(6, 9, ACCEPT)]}))

    # Accept 0-2, release 3-4 (one type per offset), reject 5; then the offsets the group has done with.
    script.same(*acknowledge, share_acknowledge(group, member, 1, {0: [ack(0, 4, 1, 1, 1, 2, 2),
                                                                      ack(5, 5, REJECT)]}))
    script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, 1, describe_offsets(group))
    # The released two come again, delivered a second time.
    ours, _ = script.same(*fetch, share_fetch(group, member, 2))
    assert acquired(ours) == [(3, 4, 2)], ours
    # Acknowledgements piggybacked on a fetch that finds nothing more.
    ours, _ = script.same(*fetch, share_fetch(group, member, 3, acks={0: [ack(3, 4, ACCEPT),
                                                                          ack(6, 9, ACCEPT)]}))
    assert acquired(ours) == [], ours
    # One that finds nothing and has nothing to acknowledge says nothing of the partition.
    ours, _ = script.same(*fetch, share_fetch(group, member, 4))
    assert ours["responses"] == [], ours

    # Bad acknowledgements: offsets acknowledged already, one rejected, two never produced.
    script.same(*acknowledge, share_acknowledge(group, member, 5, {0: [ack(0, 2, ACCEPT)]}))
    script.same(*acknowledge, share_acknowledge(group, member, 6, {0: [ack(5, 5, RELEASE)]}))
    script.same(*acknowledge, share_acknowledge(group, member, 7, {0: [ack(20, 21, ACCEPT)]}))
    # Wrong epochs, and sessions nobody opened.
    script.same(*fetch, share_fetch(group, member, 12))
    script.same(*acknowledge, share_acknowledge(group, member, 12, {0: [ack(0, 0, ACCEPT)]}))
    script.same(*acknowledge, share_acknowledge(group, member, 0, {0: [ack(0, 0, ACCEPT)]}))
    for nobody_epoch in (1, -1):
        script.same(*fetch, share_fetch(group, "wire-test-share-nobody", nobody_epoch))
        script.same(*acknowledge, share_acknowledge(group, "wire-test-share-nobody", nobody_epoch, {}))
    script.same(*fetch, share_fetch(group, member, 0, acks={0: [ack(0, 0, ACCEPT)]}))  # acks when opening

    # Two more records: the member takes them and closes its session (epoch -1) without acknowledging
    # them, which releases them; the outsider gets them, and accepts them as it closes its own.
    produce_to_both(script.pair, topic, 10, 2)
    ours, _ = script.same(*fetch, share_fetch(group, member, 8, max_wait_ms=LONG_WAIT_MS))
    assert acquired(ours) == [(10, 11, 1)], ours
    script.same(*fetch, share_fetch(group, member, -1))
    script.same(*fetch, share_fetch(group, member, 9))  # closed: SHARE_SESSION_NOT_FOUND
    # The release is written after the close is answered: a fetch meanwhile may find nothing to take yet.
    ours, apache = fetched_at_last(second, fetch, group, outsider, 2)
    assert not (found := differences(ours, apache)), found
    assert acquired(ours) == [(10, 11, 2)], ours
    second.same(*acknowledge, share_acknowledge(group, outsider, -1, {0: [ack(10, 11, ACCEPT)]}))
    # (not a partition the topic lacks: both persisters retry that read for half a minute)
    for version in served(script.pair, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS):
        script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, version, describe_offsets(group))
        script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, version,
                    describe_offsets(group, {topic: [0], unique_topic("no-such-topic"): [0]}))
        script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, version,
                    describe_offsets(unique_topic("no-such-group")))


def fetched_at_last(script: Script, fetch: tuple, group: str, member: str, epoch: int) -> tuple[dict, dict]:
    """Each broker's ShareFetch asked on its own, each time at the session's next epoch from `epoch`, until
    it acquires something: the answers that did."""
    answers = []
    for side in script.pair.sides:
        epochs = iter(range(epoch, epoch + 100))

        def ask(side=side, epochs=epochs):
            body = script._resolve(share_fetch(group, member, next(epochs)), side.name)
            answer = script._named(side.request(*fetch, body).to_dict(), side.name)
            return answer if acquired(answer) else None
        answers.append(wait_until(ask, timeout=30, interval=0.1, message=f"{side.name}'s records"))
    return answers[0], answers[1]


# ------------------------------------------------------------------ groups of members
def test_describe_list_and_delete_a_share_group_with_members(pair):
    """Two members sharing two partitions: ShareGroupDescribe with their assignments (beside a group nobody
    knows), ListGroups filtered by the share type and by state at each version Kafka serves, and DeleteGroups
    refused while members are in and accepted once they left."""
    script = Script(pair)
    topic, group = share_group_reading(pair, script, "share-members", partitions=2)
    first, second = "wire-test-share-member-0001", "wire-test-share-member-0002"
    epochs = {first: joined(script, group, first, topic, [0, 1])}
    ours, apache = script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, second, 0, topic))
    epochs[second] = ours["member_epoch"], apache["member_epoch"]
    shared_out(script, group, epochs)
    ours, apache = script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group, unique_topic("nobody")),
                               intended=(WHICH_PARTITION,))
    for answer in (ours, apache):  # what WHICH_PARTITION leaves out: one partition each, none shared
        described, = (g for g in answer["groups"] if g["group_id"] == group)
        members = [assigned(m) for m in described["members"]]
        assert sorted(len(m) for m in members) == [1, 1] and sorted(sum(members, [])) == [0, 1], answer
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE,
                {**describe(group), "include_authorized_operations": True}, intended=(WHICH_PARTITION,))

    for version in served(pair, ApiKey.LIST_GROUPS):
        filters = [{"states_filter": [], "types_filter": []}]
        if version >= 4:
            filters.append({"states_filter": ["Stable"], "types_filter": []})
        if version >= 5:
            filters += [{"states_filter": [], "types_filter": ["share"]},
                        {"states_filter": [], "types_filter": ["consumer", "classic"]},
                        {"states_filter": ["Empty"], "types_filter": ["share"]}]
        for wanted in filters:
            ours, apache = script.ask(ApiKey.LIST_GROUPS, version, wanted)
            assert not (found := differences(only(ours, {group}), only(apache, {group}))), (wanted, found)
    for version in served(pair, ApiKey.DELETE_GROUPS):
        script.same(ApiKey.DELETE_GROUPS, version, {"groups_names": [group]})  # NON_EMPTY_GROUP
    for member in (first, second):
        script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, -1))
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group))  # Empty
    script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, 1, describe_offsets(group))
    script.same(ApiKey.DELETE_GROUPS, 2, {"groups_names": [group, unique_topic("never")]})
    script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group))  # gone
    script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, 1, describe_offsets(group))


def shared_out(script: Script, group: str, joined_at: dict[str, tuple[int, int]]) -> None:
    """Each broker's members heartbeat (each with the epoch its last answer gave, starting from `joined_at`:
    member -> (our epoch, Kafka's)) until ShareGroupDescribe shows every member with partitions: a member
    gets its new target only as it heartbeats. Then each member's epoch is learnt as "<member> epoch", and
    a heartbeat of each, with nothing new, compared."""
    members = tuple(joined_at)
    epochs: dict[str, dict[str, int]] = {}
    for index, side in enumerate(script.pair.sides):
        epoch = {member: joined_at[member][index] for member in members}

        def split(side=side, epoch=epoch) -> bool:
            for member in members:
                answer = side.request(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT,
                                      heartbeat(group, member, epoch[member])).to_dict()
                assert answer["error_code"] == Errors.NONE, (side.name, answer)
                epoch[member] = answer["member_epoch"]
            described = side.request(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group)).to_dict()
            return all(assigned(m) for m in described["groups"][0]["members"])
        wait_until(split, timeout=60, interval=0.2, message=f"{side.name}'s members to share the partitions")
        epochs[side.name] = epoch
    for member in members:
        script.learn(f"{member} epoch", epochs["ours"][member], epochs["apache"][member])
        script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, Sym(f"{member} epoch")))


WHICH_PARTITION = Intended(
    "groups[*].members[*].assignment.topic_partitions[*].partitions[*]",
    "which member gets which partition when two share two: Kafka's SimpleAssignor walks HashSets of "
    "TopicIdPartition, so its choice follows the hash of each broker's own random topic id; this one "
    "walks partitions in order (simple_homogeneous_assignment_builder.py). How many each gets is compared")


def only(answer: dict, groups: set[str]) -> dict:
    """A ListGroups answer narrowed to this scenario's groups: each broker also holds the other tests'."""
    return {**answer, "groups": [g for g in answer["groups"] if g["group_id"] in groups]}


def test_a_group_id_of_another_type(pair):
    """One id names one group of one type: a consumer group's id (KIP-848) and a classic group's, asked
    as share groups (ShareGroupHeartbeat, ShareGroupDescribe, DescribeShareGroupOffsets), and a share
    group's id asked as a consumer group (ConsumerGroupHeartbeat, DescribeGroups, OffsetFetch)."""
    script, topic = Script(pair), unique_topic("share-other-types")
    create_topic(pair, topic)
    consumer_group, classic_group, share_group = (unique_topic(k) for k in ("g848", "classic", "shared"))
    for group in (consumer_group, classic_group, share_group):
        find_coordinator(pair, group, GROUP)
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(consumer_group, "wire-test-member-848", 0, topic),
                               intended=(FIRST_EPOCH,))
    assert ours["error_code"] == apache["error_code"] == Errors.NONE, (ours, apache)
    script.same(ApiKey.OFFSET_COMMIT, COMMIT, commit(classic_group, -1, "", {topic: {0: 1}}))  # classic
    member = "wire-test-share-member-0001"
    ours, _ = script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(share_group, member, 0, topic))
    assert ours["error_code"] == Errors.NONE, ours

    for group in (consumer_group, classic_group):
        ours, _ = script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, 0, topic))
        assert ours["error_code"] == Errors.GROUP_ID_NOT_FOUND, ours  # "Group ... is not a share group."
        script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(group, member, 3))
        script.same(ApiKey.SHARE_GROUP_DESCRIBE, DESCRIBE, describe(group))
        script.same(ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, 1, describe_offsets(group))
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                consumer_group_heartbeat(share_group, "wire-test-member-848", 0, topic))
    for version in (5, 6):  # v6: GROUP_ID_NOT_FOUND, "Group ... is not a classic group."
        script.same(ApiKey.DESCRIBE_GROUPS, version, {"groups": [share_group],
                                                      "include_authorized_operations": False})
    script.same(ApiKey.OFFSET_FETCH, FETCH, offset_fetch(share_group, None))
    script.same(ApiKey.SHARE_GROUP_HEARTBEAT, HEARTBEAT, heartbeat(share_group, member, -1))
