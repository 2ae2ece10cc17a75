"""kafka-share-groups (Kafka's ShareGroupCommand). Its tables against Kafka's own printf formats, copied
from ShareGroupCommand and GroupOffsetsResetter (the `fast` tests); its command-line checks with Kafka's
messages; and the whole tool against a broker: a group given its start offsets before it ever ran (a
reset creates it), described, joined by a member speaking ShareGroupHeartbeat on the wire, refused a reset
while it has one, its offsets deleted for a topic, and the group deleted.

The broker test needs share groups wired into KafkaServer (ShareGroupHeartbeat served, share.version
finalized); until then it skips, saying so.
"""

from __future__ import annotations

import uuid

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.admin.descriptions import (
    ShareGroupDescription,
    ShareMemberDescription,
    SharePartitionOffsetInfo,
)
from kafka.clients.metadata import Node
from kafka.clients.producer import KafkaProducer
from kafka.protocol.api_keys import ApiKey
from kafka.tools import share_groups_command as command
from kafka.tools.group_offsets_resetter import GroupOffsetsResetter
from kafka.utils.topic_partition import TopicPartition
from tests.wire import WireClient

ORDERS_0, ORDERS_1 = TopicPartition("orders", 0), TopicPartition("orders", 1)
COORDINATOR = Node(1, "127.0.0.1", 9092)


def java_printf(fmt: str, *args) -> str:
    """Java's printf for the formats these tools use: %-Ns, %s and %n."""
    return fmt.replace("%n", "\n") % tuple(str(a) for a in args)


def member(member_id: str, partitions, epoch: int = 3) -> ShareMemberDescription:
    client_id = f"client-{member_id}"
    return ShareMemberDescription(member_id, None, client_id, "/127.0.0.1", list(partitions), epoch)


# ------------------------------------------------------------------ the tables, as Kafka prints them
@pytest.mark.fast
def test_describe_offsets_prints_kafkas_table(capsys):
    command.print_offsets("g", {ORDERS_1: None, ORDERS_0: SharePartitionOffsetInfo(3, 1, 2)}, verbose=False)
    assert capsys.readouterr().out == (
        "\nGROUP           TOPIC           PARTITION  START-OFFSET  LAG"
        "\ng               orders          0          3             2"
        "\ng               orders          1          -             -\n")


@pytest.mark.fast
def test_describe_offsets_verbose_adds_the_leader_epoch_and_widens_for_long_names(capsys):
    group, topic = "a-share-group-with-a-long-name", "a-topic-with-a-long-name"
    offsets = {TopicPartition(topic, 0): SharePartitionOffsetInfo(7, None, None)}
    command.print_offsets(group, offsets, verbose=True)
    fmt = f"\n%-{len(group)}s %-{len(topic)}s %-10s %-13s %-13s %s"  # ShareGroupCommand.printOffsetFormat
    header = java_printf(fmt, "GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "START-OFFSET", "LAG")
    assert capsys.readouterr().out == header + java_printf(fmt, group, topic, 0, "-", 7, "-") + "\n"


@pytest.mark.fast
def test_a_group_without_share_state_has_no_offset_information(capsys):
    command.print_offsets("g", {}, verbose=False)
    assert capsys.readouterr().out == "\nShare group 'g' has no offset information.\n"


@pytest.mark.fast
def test_describe_state_prints_the_coordinator_and_with_verbose_the_epochs(capsys):
    described = ShareGroupDescription("g", [member("m1", [ORDERS_0])], "Stable", COORDINATOR, 4, 4)
    command.print_state("g", described, verbose=False)
    command.print_state("g", described, verbose=True)
    coordinator = "127.0.0.1:9092  (1)"
    plain, verbose = "\n%-15s %-25s %-15s %s", "\n%-15s %-25s %-15s %-12s %-17s %s"
    assert capsys.readouterr().out == (
        java_printf(plain, "GROUP", "COORDINATOR (ID)", "STATE", "#MEMBERS")
        + java_printf(plain, "g", coordinator, "Stable", 1) + "\n"
        + java_printf(verbose, "GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH",
                      "#MEMBERS")
        + java_printf(verbose, "g", coordinator, "Stable", 4, 4, 1) + "\n")


@pytest.mark.fast
def test_an_empty_groups_state_is_noted_on_standard_error(capsys):
    command.print_state("g", ShareGroupDescription("g", [], "Empty", COORDINATOR, 5, 5), verbose=False)
    out, err = capsys.readouterr()
    assert err == "\nShare group 'g' has no active members.\n"
    assert out.splitlines()[2].split() == ["g", "127.0.0.1:9092", "(1)", "Empty", "0"]


@pytest.mark.fast
def test_describe_members_prints_each_members_partitions_sorted_by_member_id(capsys):
    described = ShareGroupDescription("g", [member("m2", [ORDERS_1, TopicPartition("audit", 0)]),
                                            member("m1", [])], "Stable", COORDINATOR, 3, 3)
    command.print_members("g", described, verbose=True)
    fmt = "\n%-15s %-15s %-15s %-15s %-12s %-13s %s"
    assert capsys.readouterr().out == (
        java_printf(fmt, "GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "MEMBER-EPOCH",
                    "ASSIGNMENT")
        + java_printf(fmt, "g", "m1", "/127.0.0.1", "client-m1", 0, 3, "")
        + java_printf(fmt, "g", "m2", "/127.0.0.1", "client-m2", 2, 3, "audit:0;orders:1") + "\n")


@pytest.mark.fast
def test_describe_members_of_an_empty_group_prints_no_table(capsys):
    command.print_members("g", ShareGroupDescription("g", [], "Empty", COORDINATOR, 2, 2), verbose=False)
    assert capsys.readouterr() == ("", "\nShare group 'g' has no active members.\n")


@pytest.mark.fast
def test_list_with_state_and_the_offsets_to_reset(capsys):
    command.print_group_info([("g", "Empty", "Share"), ("a-rather-long-group-id", "Stable", "Share")])
    GroupOffsetsResetter.print_offsets_to_reset("g", {ORDERS_1: 4, ORDERS_0: 2})
    GroupOffsetsResetter.print_offsets_to_reset("g", {})
    reset = "%n%-15s %-15s %-10s %s"
    assert capsys.readouterr().out == (
        "GROUP                  STATE\ng                      Empty\na-rather-long-group-id Stable\n"
        + java_printf(reset, "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
        + java_printf(reset, "g", "orders", 0, 2) + java_printf(reset, "g", "orders", 1, 4) + "\n" + "\n")


@pytest.mark.fast
def test_states_are_share_group_states_in_any_case():
    assert command.group_states_from_string("stable, EMPTY") == ["Stable", "Empty"]
    with pytest.raises(Exception, match="Invalid state list 'PreparingRebalance'. Valid states are: "):
        command.group_states_from_string("PreparingRebalance")


@pytest.mark.fast
@pytest.mark.parametrize(("argv", "message"), [
    ([], 'Missing required argument "[bootstrap-server]"'),
    (["--describe"], "Option [describe] takes one of these options: [all-groups], [group]"),
    (["--describe", "--group", "g", "--members", "--state"],
     "Option [describe] takes at most one of these options: [members], [offsets], [state]"),
    (["--list", "--members"], "Option(s) [members] are unavailable given other options on the command line"),
    (["--delete", "--group", "g", "--all-groups"],
     "Option [delete] takes either [group] or [all-groups], not both."),
    (["--delete-offsets", "--group", "g"],
     "Option [delete-offsets] takes the following options: [group], [topic]"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--to-earliest"],
     "Option [reset-offsets] takes the option: [execute] or [dry-run]"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--dry-run"],
     "Option [reset-offsets] takes one of these options: [from-file], [to-current], [to-datetime], "
     "[to-earliest], [to-latest], [to-offset]"),
    (["--list", "--group", "g"], 'Option "[group]" can\'t be used with option "[list]"'),
    (["--list", "--delete", "--all-groups"], "Command must include exactly one action: --list, --describe, "
                                             "--delete, --reset-offsets, --delete-offsets."),
])
def test_a_bad_command_line_gets_kafkas_message_and_exits_1(argv, message, capsys):
    bootstrap = [] if not argv else ["--bootstrap-server", "127.0.0.1:1"]
    assert command.main([*bootstrap, *argv]) == 1
    assert capsys.readouterr().err.startswith(message + "\n")


# ------------------------------------------------------------------ against a broker
def share_groups_served(port: int) -> bool:
    client = WireClient(port)
    try:
        served = {a.api_key for a in client.request(ApiKey.API_VERSIONS, 3, {
            "client_software_name": "test", "client_software_version": "1"}).api_keys}
    finally:
        client.close()
    return ApiKey.SHARE_GROUP_HEARTBEAT in served


def share_groups(broker, capsys, *args: str) -> tuple[int, str, str]:
    status = command.main(["--bootstrap-server", broker.bootstrap, *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_whole_life_of_a_share_groups_offsets(broker, capsys):
    if not share_groups_served(broker.port):
        pytest.skip("share groups are not wired into KafkaServer yet (ShareGroupHeartbeat is not served): "
                    "this test runs once the share-wiring branch is merged")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic("orders", 2, 1)]) == {"orders": None}
    with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as producer:
        for i in range(10):
            producer.send("orders", value=f"order-{i}".encode(), partition=i % 2)
        producer.flush()
    run = lambda *args: share_groups(broker, capsys, *args)  # noqa: E731

    planned = run("--reset-offsets", "--group", "g", "--topic", "orders", "--to-offset", "2", "--dry-run")
    assert planned[1].splitlines()[1:] == ["GROUP           TOPIC           PARTITION  NEW-OFFSET",
                                           "g               orders          0          2",
                                           "g               orders          1          2"]
    assert run("--list") == (0, "", ""), "a dry run changes nothing"
    assert run("--reset-offsets", "--group", "g", "--topic", "orders:1", "--to-offset", "3",
               "--execute")[0] == 0
    assert run("--list")[1] == "g\n", "the reset created the group, empty"
    assert run("--list", "--state")[1] == "GROUP           STATE\ng               Empty\n"
    described = run("--describe", "--group", "g")[1].splitlines()
    assert described[1].split() == ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG"]
    assert [line.split()[:4] for line in described[2:]] == [["g", "orders", "1", "3"]]

    joined = heartbeat(broker.port, str(uuid.uuid4()), 0, ["orders"])
    status, out, err = run("--describe", "--group", "g", "--members", "--verbose")
    assert out.splitlines()[1].split() == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                                           "MEMBER-EPOCH", "ASSIGNMENT"]
    assert out.splitlines()[2].split()[:2] == ["g", joined.member_id]
    assert run("--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--execute")[:3:2] == (
        1, "Share group 'g' is not empty.\n")
    assert "is not EMPTY" in run("--delete", "--group", "g")[1]
    heartbeat(broker.port, joined.member_id, -1)

    assert run("--delete-offsets", "--group", "g", "--topic", "orders")[1] == (
        "\nTOPIC           STATUS\norders          Successful\n")
    assert run("--describe", "--group", "g")[1] == "\nShare group 'g' has no offset information.\n"
    assert run("--delete", "--group", "g")[1] == "Deletion of requested share groups ('g') was successful.\n"
    assert run("--list") == (0, "", "")
    status, out, _ = run("--describe", "--group", "g")
    assert (status, out) == (0, "\nError: Executing share group command failed due to "
                                "org.apache.kafka.common.errors.GroupIdNotFoundException: Group g not "
                                "found.\n")


def heartbeat(port: int, member_id: str, epoch: int, topics=None):
    """A share consumer's ShareGroupHeartbeat, sent to the broker (the group's coordinator: one broker)."""
    client = WireClient(port)
    try:
        response = client.request(ApiKey.SHARE_GROUP_HEARTBEAT, 1, dict(
            group_id="g", member_id=member_id, member_epoch=epoch, rack_id=None,
            subscribed_topic_names=topics))
    finally:
        client.close()
    assert response.error_code == 0, response
    return response
