"""Lab 06, consumer groups (docs/labs/06-consumer-groups.md): `RoundRobinAssignor.assign` in
kafka/clients/consumer/assignors/round_robin_assignor.py, the assignment the group leader computes
when its group chose `partition.assignment.strategy=roundrobin`: first as a function, then run by
the leader of a real group of our consumers on a real broker, which relays it in SyncGroup. And
step 8: the same three confluent-kafka consumers with `group.protocol=classic` and `consumer`, and
what a fourth member joining costs each of them (tests/labs/rebalance_pause.py). And step 10: a
rolling upgrade from `classic` to `consumer` and back (tests/labs/rolling_upgrade.py).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker). The Group
Coordinator elects a leader from one of the consumers. The group leader assigns partitions to the
consumers."
"""

from __future__ import annotations

import threading

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.consumer.assignors import RangeAssignor, Subscription
from kafka.clients.consumer.assignors.round_robin_assignor import RoundRobinAssignor
from kafka.protocol.errors import Errors
from tests.helpers import unique_topic, wait_until
from tests.labs.rebalance_pause import measure
from tests.labs.rolling_upgrade import rolling_upgrade


def assign(partitions_per_topic: dict[str, int], subscriptions: dict[str, list[str]]) -> dict[str, list[str]]:
    """RoundRobinAssignor's answer, as 'topic-partition' strings per member."""
    result = RoundRobinAssignor().assign(partitions_per_topic, {m: Subscription(topics) for m, topics in
                                                                 subscriptions.items()})
    return {m: [f"{tp.topic}-{tp.partition}" for tp in tps] for m, tps in result.items()}


def test_one_topic_is_dealt_in_turn():
    """six partitions of one topic are dealt in turn to two members:
    0, 2, 4 and 1, 3, 5 (range would cut 0-2 and 3-5)"""
    got = assign({"orders": 6}, {"consumer-a": ["orders"], "consumer-b": ["orders"]})
    assert got == {"consumer-a": ["orders-0", "orders-2", "orders-4"],
                   "consumer-b": ["orders-1", "orders-3", "orders-5"]}, f"got {got}"


def test_the_deal_goes_on_across_topics():
    """the deal goes on from one topic to the next,
    so two 3-partition topics split 3 and 3 (range gives 4 and 2)"""
    subscriptions = {"consumer-a": ["clicks", "orders"], "consumer-b": ["clicks", "orders"]}
    got = assign({"orders": 3, "clicks": 3}, subscriptions)
    assert got == {"consumer-a": ["clicks-0", "clicks-2", "orders-1"],
                   "consumer-b": ["clicks-1", "orders-0", "orders-2"]}, (
        f"got {got}: deal clicks (sorted by topic name first) then orders, without restarting at the first "
        "member")
    ranges = RangeAssignor().assign({"orders": 3, "clicks": 3},
                                    {m: Subscription(t) for m, t in subscriptions.items()})
    assert sorted(len(tps) for tps in ranges.values()) == [2, 4]  # why roundrobin exists


def test_members_are_taken_in_member_id_order():
    """members are dealt to in the order of their member ids, not the order they joined in"""
    got = assign({"orders": 3},
                 {"consumer-c": ["orders"], "consumer-a": ["orders"], "consumer-b": ["orders"]})
    assert got == {"consumer-a": ["orders-0"], "consumer-b": ["orders-1"], "consumer-c": ["orders-2"]}, (
        f"got {got}: sort the member ids; every leader must compute the same answer from the same JoinGroup")


def test_a_member_not_subscribed_to_a_topic_is_skipped():
    """a member is skipped for a topic it does not subscribe to, and the turn moves on to the next member"""
    got = assign({"t1": 2, "t2": 3}, {"m1": ["t1"], "m2": ["t1", "t2"], "m3": ["t2"]})
    assert got == {"m1": ["t1-0"], "m2": ["t1-1", "t2-1"], "m3": ["t2-0", "t2-2"]}, (
        f"got {got}: t1-0 to m1, t1-1 to m2; t2-0: m3's turn; t2-1: m1 is not subscribed, so m2; t2-2 to m3")


def test_every_member_is_in_the_answer_and_no_partition_twice():
    """every member gets an entry (an empty list if there is nothing for it)
    and no partition is given twice"""
    got = assign({"orders": 2}, {"a": ["orders"], "b": ["orders"], "c": ["orders"]})
    assert got == {"a": ["orders-0"], "b": ["orders-1"], "c": []}, f"got {got}"
    assert assign({"orders": 2}, {}) == {}, "no members: an empty assignment"
    assert assign({"orders": 2, "unread": 4}, {"a": ["orders"]}) == {"a": ["orders-0", "orders-1"]}, (
        "a topic nobody subscribes to is not handed out")


class GroupMember:
    """One of our KafkaConsumers in the group, polled on its own thread (a consumer is one thread's)."""

    def __init__(self, bootstrap: str, group: str, topics: list[str], client_id: str) -> None:
        self.consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                                       "client.id": client_id,
                                       "partition.assignment.strategy": "roundrobin",
                                       "auto.offset.reset": "earliest",
                                       "heartbeat.interval.ms": 200, "session.timeout.ms": 10000})
        self.consumer.subscribe(topics)
        self.error: BaseException | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"lab06-{client_id}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                self.consumer.poll(100)
        except BaseException as e:  # the leader's assignor raising ends up here: the check reports it
            self.error = e
        finally:
            self.consumer.close(5000)

    def assignment(self) -> list[str]:
        return sorted(f"{tp.topic}-{tp.partition}" for tp in self.consumer.assignment())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(15)


def group_of_three(start_broker):
    """A real broker, a topic of 6 partitions, and consumer-a, -b and -c joining one group with roundrobin."""
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0",
                                     "offsets.topic.num.partitions": "3"})
    topic, group = unique_topic("lab06"), unique_topic("lab06-group")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic(topic, 6, 1)])[topic] is None
    members = [GroupMember(broker.bootstrap, group, [topic], f"consumer-{name}") for name in "abc"]
    return broker, topic, group, members


def test_a_group_on_a_real_broker_gets_the_leaders_round_robin_assignment(start_broker):
    """three of our consumers in a group on a real broker:
    the leader deals the 6 partitions round-robin and each member gets its share"""
    broker, topic, group, members = group_of_three(start_broker)
    try:
        def settled():
            for member in members:
                if member.error is not None:
                    raise member.error
            shares = [member.assignment() for member in members]
            return shares if sum(len(s) for s in shares) == 6 and all(len(s) == 2 for s in shares) else None

        shares = wait_until(settled, timeout=30, message="the three members to hold two partitions each")
        # member ids start with the client id, so consumer-a's sorts first, then b, then c
        assert shares == [[f"{topic}-0", f"{topic}-3"], [f"{topic}-1", f"{topic}-4"],
                          [f"{topic}-2", f"{topic}-5"]], (
            f"got {shares}: partitions 0..5 dealt to consumer-a, -b, -c in turn")
        # the group lives in a shard of the coordinator runtime: ask the service, as DescribeGroups does
        error, described = broker.server.group_coordinator.describe_group(group).result(timeout=10)
        assert error == Errors.NONE and described is not None, f"DescribeGroups answered {error}"
        assert described["protocol_data"] == "roundrobin", f"the group chose {described['protocol_data']!r}"
        assert len(described["members"]) == 3
    finally:
        for member in members:
            member.close()
    for member in members:
        if member.error is not None:
            raise member.error


def test_a_member_that_leaves_gives_its_partitions_to_the_others(start_broker):
    """when a member of a real group leaves,
    the leader deals all six partitions again to the two that remain"""
    broker, topic, group, members = group_of_three(start_broker)
    try:
        wait_until(lambda: all(len(m.assignment()) == 2 or m.error for m in members), timeout=30,
                   message="the three members to hold two partitions each")
        members[1].close()  # consumer-b leaves the group (LeaveGroup), the others rebalance
        if members[1].error is not None:
            raise members[1].error

        def settled():
            for member in (members[0], members[2]):
                if member.error is not None:
                    raise member.error
            shares = [members[0].assignment(), members[2].assignment()]
            return shares if [len(s) for s in shares] == [3, 3] else None

        shares = wait_until(settled, timeout=30,
                            message="consumer-a and consumer-c to hold three partitions each")
        assert shares == [[f"{topic}-0", f"{topic}-2", f"{topic}-4"],
                          [f"{topic}-1", f"{topic}-3", f"{topic}-5"]], (
            f"got {shares}")
    finally:
        for member in members:
            member.close()


def test_step_8_a_join_stops_every_classic_member_and_no_consumer_protocol_member(start_broker):
    """step 8: a fourth member joins three; with group.protocol=classic each of the three gives up every
    partition, with consumer (KIP-848) none does"""
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0",
                                     "offsets.topic.num.partitions": "1",
                                     "group.consumer.heartbeat.interval.ms": "1000",
                                     "group.consumer.min.heartbeat.interval.ms": "1000"})
    classic, consumer = measure(broker.bootstrap, "classic"), measure(broker.bootstrap, "consumer")
    for result in (classic, consumer):
        members = "; ".join(
            f"{m['name']}: longest gap {m['longest_gap_ms']} ms, without partitions {m['unassigned_ms']} ms"
            for m in result["members"])
        print(f"\ngroup.protocol={result['protocol']}: fourth member in after {result['settle_ms']} ms; "
              + members)
    assert all(m["gave_up_everything"] for m in classic["members"]), (
        f"{classic}: with classic (librdkafka's eager assignors) every member rejoins with nothing")
    assert not any(m["gave_up_everything"] for m in consumer["members"]), (
        f"{consumer}: with the consumer protocol a member only gives back the partition that moves")
    assert [m["unassigned_ms"] for m in consumer["members"]] == [0, 0, 0]


def test_step_10_a_fleet_moves_to_the_consumer_protocol_and_back_without_losing_a_record(start_broker):
    """step 10: two consumers restarted one at a time from classic to consumer and back; the group changes
    kind twice and every record is read and committed"""
    broker = start_broker(overrides={"group.initial.rebalance.delay.ms": "0",
                                     "offsets.topic.num.partitions": "1",
                                     "group.consumer.heartbeat.interval.ms": "500",
                                     "group.consumer.min.heartbeat.interval.ms": "500"})
    result = rolling_upgrade(broker.bootstrap)
    assert [kind for _, kind in result["steps"]] == ["classic", "consumer", "consumer",
                                                     "classic"], result["steps"]
    assert result["read"] == set(range(result["records"])) and result["committed"] == result["ends"], result
