"""The group APIs byte for byte (tests/wire.py): the error codes Kafka gives, batched versions, and
the rebalance steps a client library hides -- MEMBER_ID_REQUIRED, the leader's member list,
REBALANCE_IN_PROGRESS on a heartbeat, LeaveGroup."""

from __future__ import annotations

import threading

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.consumer_protocol import serialize_subscription
from kafka.protocol.errors import Errors
from tests.helpers import unique_topic, wait_until
from tests.integration.test_consumer_groups import FAST_GROUPS
from tests.wire import WireClient

SUBSCRIPTION = serialize_subscription({"topics": ["t"]}, 0)


def join(client: WireClient, group: str, member_id: str = "", version: int = 7,
         session_timeout_ms: int = 6000,
         **extra):
    body = dict(group_id=group, session_timeout_ms=session_timeout_ms, rebalance_timeout_ms=10000,
                member_id=member_id, protocol_type="consumer",
                protocols=[dict(name="range", metadata=SUBSCRIPTION)])
    body.update(extra)
    return client.request(ApiKey.JOIN_GROUP, version, body)


def find_coordinator(client: WireClient, group: str):
    """FindCoordinator until it names one, then until the group's shard has loaded its partition. The
    first ask creates __consumer_offsets and, as in Kafka, is answered COORDINATOR_NOT_AVAILABLE at once
    rather than when the topic is there; then the shard replays the partition in the background and a
    group request meanwhile is COORDINATOR_LOAD_IN_PROGRESS. A client asks again in both cases; a
    DescribeGroups (a read) asks here without changing anything."""
    def ask():
        answer = client.request(ApiKey.FIND_COORDINATOR, 3, dict(key=group, key_type=0))
        assert answer.error_code in (Errors.NONE, Errors.COORDINATOR_NOT_AVAILABLE), answer
        return answer if answer.error_code == Errors.NONE else None

    def loaded():
        described = client.request(ApiKey.DESCRIBE_GROUPS, 5,
                                   dict(groups=[group], include_authorized_operations=False))
        return described.groups[0].error_code != Errors.COORDINATOR_LOAD_IN_PROGRESS
    found = wait_until(ask, message=f"the coordinator of {group!r}")
    wait_until(loaded, message=f"the shard of {group!r} to load", interval=0.05)
    return found


def test_find_coordinator_single_and_batched(broker):
    client = WireClient(broker.port)
    first = client.request(ApiKey.FIND_COORDINATOR, 3, dict(key="g", key_type=0))
    assert first.error_code == Errors.COORDINATOR_NOT_AVAILABLE, (
        "creating __consumer_offsets is not waited for")
    single = find_coordinator(client, "g")
    assert (single.error_code, single.node_id, single.port) == (Errors.NONE, 1, broker.port)
    batched = client.request(ApiKey.FIND_COORDINATOR, 4, dict(key_type=0, coordinator_keys=["a", "b"]))
    assert [(c.key, c.error_code, c.port) for c in batched.coordinators] == [("a", 0, broker.port),
                                                                             ("b", 0, broker.port)]
    # A transactional id (key_type 1): the first ask creates __transaction_state, and until its
    # partition is loaded the answer may be COORDINATOR_NOT_AVAILABLE; a client asks again.
    def transaction_coordinator():
        (answer,) = client.request(ApiKey.FIND_COORDINATOR, 4,
                                   dict(key_type=1, coordinator_keys=["tx"])).coordinators
        assert answer.error_code in (Errors.NONE, Errors.COORDINATOR_NOT_AVAILABLE), answer
        return answer if answer.error_code == Errors.NONE else None

    assert wait_until(transaction_coordinator,
                      message="the transaction coordinator of 'tx'").port == broker.port
    metadata = client.request(ApiKey.METADATA, 9, dict(topics=[dict(name="__consumer_offsets")]))
    assert metadata.topics[0].is_internal and len(metadata.topics[0].partitions) == 50


def test_join_sync_heartbeat_leave_by_hand(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    group = unique_topic("g")
    a, b = WireClient(broker.port), WireClient(broker.port)
    find_coordinator(a, group)

    first = join(a, group)  # v4+: a new member is first given an id and asked to come back with it
    assert first.error_code == Errors.MEMBER_ID_REQUIRED and first.member_id
    joined = join(a, group, first.member_id)
    assert (joined.error_code, joined.generation_id, joined.leader) == (Errors.NONE, 1, first.member_id)
    assert [m.member_id for m in joined.members] == [first.member_id]
    assert joined.protocol_name == "range" and bytes(joined.members[0].metadata) == SUBSCRIPTION

    synced = a.request(ApiKey.SYNC_GROUP, 5, dict(group_id=group, generation_id=1, member_id=first.member_id,
                                                  protocol_type="consumer", protocol_name="range",
                                                  assignments=[dict(member_id=first.member_id,
                                                                    assignment=b"A")]))
    assert (synced.error_code, bytes(synced.assignment)) == (Errors.NONE, b"A")

    # A second member joins: the rebalance waits for the first to rejoin, which learns of it by heartbeat.
    b_id = join(b, group).member_id
    b_result = {}
    joining = threading.Thread(target=lambda: b_result.update(r=join(b, group, b_id)))
    joining.start()
    wait_until(lambda: a.request(ApiKey.HEARTBEAT, 4, dict(group_id=group, generation_id=1,
                                                           member_id=first.member_id)).error_code
               == Errors.REBALANCE_IN_PROGRESS, message="REBALANCE_IN_PROGRESS on the heartbeat")
    rejoined = join(a, group, first.member_id)
    joining.join(10)
    assert rejoined.generation_id == b_result["r"].generation_id == 2
    leader_response = rejoined if rejoined.leader == first.member_id else b_result["r"]
    assert sorted(m.member_id for m in leader_response.members) == sorted([first.member_id, b_id])

    stale = a.request(ApiKey.HEARTBEAT, 4, dict(group_id=group, generation_id=1, member_id=first.member_id))
    assert stale.error_code == Errors.ILLEGAL_GENERATION
    left = b.request(ApiKey.LEAVE_GROUP, 4, dict(group_id=group, members=[dict(member_id=b_id),
                                                                          dict(member_id="nobody")]))
    assert [m.error_code for m in left.members] == [Errors.NONE, Errors.UNKNOWN_MEMBER_ID]
    described = a.request(ApiKey.DESCRIBE_GROUPS, 5, dict(groups=[group, "never-heard-of"]))
    assert described.groups[0].group_state == "PreparingRebalance"
    assert [m.member_id for m in described.groups[0].members] == [first.member_id]
    assert (described.groups[1].error_code, described.groups[1].group_state) == (Errors.NONE, "Dead")


def test_bad_join_requests_get_kafka_error_codes(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    client = WireClient(broker.port)
    find_coordinator(client, "x")
    assert join(client, "").error_code == Errors.INVALID_GROUP_ID
    assert join(client, "g-timeout", session_timeout_ms=10).error_code == Errors.INVALID_SESSION_TIMEOUT
    assert join(client, "g-unknown", member_id="made-up").error_code == Errors.UNKNOWN_MEMBER_ID
    sync = client.request(ApiKey.SYNC_GROUP, 3,
                          dict(group_id="g-unknown", generation_id=1, member_id="made-up",
                                                     assignments=[]))
    assert sync.error_code == Errors.UNKNOWN_MEMBER_ID
    other = dict(group_id="g-proto", session_timeout_ms=6000, rebalance_timeout_ms=10000, member_id="",
                 protocol_type="consumer", protocols=[dict(name="range", metadata=SUBSCRIPTION)])
    joined = client.request(ApiKey.JOIN_GROUP, 3, other)  # v3: joins at once, no MEMBER_ID_REQUIRED
    assert joined.error_code == Errors.NONE
    stranger = client.request(ApiKey.JOIN_GROUP, 3,
                              {**other, "protocols": [dict(name="roundrobin", metadata=b"")]})
    assert stranger.error_code == Errors.INCONSISTENT_GROUP_PROTOCOL


def test_offsets_commit_fetch_many_groups_delete(start_broker):
    broker = start_broker(overrides=FAST_GROUPS)
    client = WireClient(broker.port)
    topic = unique_topic("off")
    client.request(ApiKey.CREATE_TOPICS, 5,
                   dict(topics=[dict(name=topic, num_partitions=2, replication_factor=1)],
                                                 timeout_ms=5000))
    find_coordinator(client, "x")

    def commit(group, offset, metadata="m", name=topic):
        return client.request(ApiKey.OFFSET_COMMIT, 8, dict(
            group_id=group, generation_id_or_member_epoch=-1, member_id="",
            topics=[dict(name=name, partitions=[dict(partition_index=0, committed_offset=offset,
                                                     committed_metadata=metadata)])]))

    assert commit("g1", 5).topics[0].partitions[0].error_code == Errors.NONE
    assert commit("g2", 9, "x" * 5000).topics[0].partitions[0].error_code == Errors.OFFSET_METADATA_TOO_LARGE
    assert commit("g2", 9).topics[0].partitions[0].error_code == Errors.NONE
    assert commit("g1", 1, name="no-such-topic").topics[0].partitions[0].error_code == \
        Errors.UNKNOWN_TOPIC_OR_PARTITION

    fetched = client.request(ApiKey.OFFSET_FETCH, 8, dict(groups=[
        dict(group_id="g1", topics=None),
        dict(group_id="g2", topics=[dict(name=topic, partition_indexes=[0, 1])])]))
    by_group = {g.group_id: [(p.partition_index, p.committed_offset, p.metadata)
                             for t in g.topics for p in t.partitions] for g in fetched.groups}
    assert by_group == {"g1": [(0, 5, "m")], "g2": [(0, 9, "m"), (1, -1, "")]}

    listed = client.request(ApiKey.LIST_GROUPS, 4, dict(states_filter=["empty"]))
    assert {"g1", "g2"} <= {g.group_id for g in listed.groups}

    deleted = client.request(ApiKey.OFFSET_DELETE, 0, dict(group_id="g2", topics=[
        dict(name=topic, partitions=[dict(partition_index=0)])]))
    assert deleted.error_code == Errors.NONE and deleted.topics[0].partitions[0].error_code == Errors.NONE
    old = client.request(ApiKey.OFFSET_FETCH, 7,
                         dict(group_id="g2", topics=[dict(name=topic, partition_indexes=[0])]))
    assert old.topics[0].partitions[0].committed_offset == -1

    results = client.request(ApiKey.DELETE_GROUPS, 2, dict(groups_names=["g1", "never-was"])).results
    assert [(r.group_id, r.error_code) for r in results] == [("g1", Errors.NONE),
                                                             ("never-was", Errors.GROUP_ID_NOT_FOUND)]
    after = client.request(ApiKey.OFFSET_FETCH, 7, dict(group_id="g1", topics=None))
    assert after.topics == []
