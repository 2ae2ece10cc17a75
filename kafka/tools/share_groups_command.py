"""kafka-share-groups: list, describe, reset and delete share groups (KIP-932) -- Kafka's
org.apache.kafka.tools.consumer.group.ShareGroupCommand with its ShareGroupCommandOptions,
``bin/kafka-share-groups.sh``, on the AdminClient.

    kafka-share-groups --bootstrap-server 127.0.0.1:9092 --list [--state [Stable,Empty]]
    kafka-share-groups --bootstrap-server 127.0.0.1:9092 --describe --group G [--group G2] | --all-groups \\
        [--members | --offsets | --state] [--verbose]
    kafka-share-groups --bootstrap-server 127.0.0.1:9092 --reset-offsets --group G \\
        --topic T[:0,1] | --all-topics | --from-file F \\
        --to-earliest | --to-latest | --to-offset N | --to-datetime 2026-01-01T00:00:00.000 | --to-current \\
        --dry-run | --execute [--export]
    kafka-share-groups --bootstrap-server 127.0.0.1:9092 --delete-offsets --group G --topic T [--topic T2]
    kafka-share-groups --bootstrap-server 127.0.0.1:9092 --delete --group G | --all-groups

A share group commits no offsets: what this tool shows and changes is where each share partition starts
(its *start offset*, kept by the share coordinator), with the lag past it (KIP-1226). Only an empty group
may be reset or have its offsets deleted. The flags, the tables (Kafka's printf formats: columns at least
15 wide) and the messages are Kafka's, as is the way it fails: an error found while running is printed on
standard output after "Error: " and the command still exits 0 (Kafka's run() catches it); a bad command
line, or a reset of a group with members, is printed on standard error and exits 1.
"""

from __future__ import annotations

import argparse
import sys

import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.tools.command_line_utils import load_props
from kafka.tools.group_offsets_resetter import GroupOffsetsResetter
from kafka.utils.logging import configure_tool_logging
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.tools.ShareGroupCommand")

MISSING_COLUMN_VALUE = "-"
# GroupState.groupStatesForType(SHARE)
SHARE_GROUP_STATES = {"empty": "Empty", "stable": "Stable", "dead": "Dead"}
# The exceptions (org.apache.kafka.common.errors.*) Java's Admin fails with, named where Kafka's tool prints
# them.
JAVA_EXCEPTIONS = {
    Errors.GROUP_ID_NOT_FOUND: "GroupIdNotFoundException", Errors.NON_EMPTY_GROUP: "GroupNotEmptyException",
    Errors.GROUP_AUTHORIZATION_FAILED: "GroupAuthorizationException",
    Errors.TOPIC_AUTHORIZATION_FAILED: "TopicAuthorizationException",
    Errors.UNKNOWN_TOPIC_OR_PARTITION: "UnknownTopicOrPartitionException",
    Errors.INVALID_GROUP_ID: "InvalidGroupIdException", Errors.INVALID_REQUEST: "InvalidRequestException",
    Errors.COORDINATOR_NOT_AVAILABLE: "CoordinatorNotAvailableException",
    Errors.NOT_COORDINATOR: "NotCoordinatorException",
    Errors.UNSUPPORTED_VERSION: "UnsupportedVersionException",
    Errors.REQUEST_TIMED_OUT: "TimeoutException", Errors.UNKNOWN_SERVER_ERROR: "UnknownServerException",
    Errors.KAFKA_STORAGE_ERROR: "KafkaStorageException",
    Errors.FENCED_STATE_EPOCH: "FencedStateEpochException",
}


class CommandFailed(Exception):
    """Kafka's run() caught it: "Error: Executing share group command failed due to ..." on standard
    output."""


class ExitWithError(Exception):
    """Kafka's CommandLineUtils.printErrorAndExit: the message on standard error, exit status 1."""


def java_exception(error: KafkaError) -> str:
    """How Java prints the exception the Admin failed with (Throwable.toString)."""
    name = JAVA_EXCEPTIONS.get(error.error)
    return f"org.apache.kafka.common.errors.{name}: {error.message}" if name else \
        f"org.apache.kafka.common.KafkaException: {error.message}"


def left(value, width: int) -> str:
    """Java's %-<width>s."""
    return str(value).ljust(width)


def print_error(message: str) -> None:
    """Kafka's ShareGroupCommand.printError: on standard output."""
    print(f"\nError: {message}")


def or_missing(value) -> str:
    return MISSING_COLUMN_VALUE if value is None else str(value)


# ------------------------------------------------------------------ --list
def group_states_from_string(value: str) -> list[str]:
    """Kafka's groupStatesFromString: a comma-separated list of share group states, any case."""
    states = [SHARE_GROUP_STATES.get(s.strip().lower()) for s in value.split(",")]
    if None in states:
        raise argparse.ArgumentTypeError(f"Invalid state list '{value}'. Valid states are: "
                                         f"{', '.join(SHARE_GROUP_STATES.values())}")
    return states


def list_groups(admin: AdminClient, args) -> None:
    """The share groups' ids, one a line; with --state, Kafka's printGroupInfo table of their states."""
    if args.state is None:
        for group_id, _, _ in admin.list_groups(types=["share"]):
            print(group_id)
        return
    states = group_states_from_string(args.state) if args.state else []
    print_group_info(admin.list_groups(types=["share"], states=states))


def print_group_info(groups: list[tuple[str, str, str]]) -> None:
    width = max([15] + [len(group_id) for group_id, _, _ in groups])
    print(f"{left('GROUP', width)} STATE")
    for group_id, state, _ in groups:
        print(f"{left(group_id, width)} {state or 'Unknown'}")


# ------------------------------------------------------------------ --describe
def describe_share_groups(admin: AdminClient, group_ids: list[str]) -> dict:
    """Kafka's collectGroupsDescription: every group's description, by group id; a group that cannot be
    described fails the command (Kafka prints the ExecutionException, whose message names the exception)."""
    try:
        return dict(sorted(admin.describe_share_groups(group_ids).items()))
    except KafkaError as e:
        raise CommandFailed(java_exception(e)) from e


def describe_groups(admin: AdminClient, args) -> None:
    group_ids = [g for g, _, _ in admin.list_groups(types=["share"])] if args.all_groups else args.group
    descriptions = describe_share_groups(admin, group_ids)
    if args.members:
        for group_id, description in descriptions.items():
            print_members(group_id, description, args.verbose)
    elif args.state is not None:
        for group_id, description in descriptions.items():
            print_state(group_id, description, args.verbose)
    else:
        for group_id in descriptions:
            try:
                offsets = admin.list_share_group_offsets({group_id: None})[group_id]
            except KafkaError as e:
                raise CommandFailed(e.message) from e
            print_offsets(group_id, offsets, args.verbose)


def maybe_print_empty_group_state(group_id: str, state: str, num_rows: int) -> bool:
    """Kafka's maybePrintEmptyGroupState: a Dead group is an error, an Empty one a note on standard error;
    whether there is a table to print."""
    if state == "Dead":
        print_error(f"Share group '{group_id}' does not exist.")
    elif state == "Empty":
        print(f"\nShare group '{group_id}' has no active members.", file=sys.stderr)
    return state != "Dead" and num_rows > 0


def print_offsets(group_id: str, offsets: dict, verbose: bool) -> None:
    """Kafka's printOffsets: each share partition's start offset and lag, sorted by topic and partition;
    with --verbose, the leader epoch of the leader that last wrote it ("-": not known)."""
    rows = sorted(offsets.items())
    if not rows:
        print(f"\nShare group '{group_id}' has no offset information.")
        return
    g, t = max(15, len(group_id)), max([15] + [len(tp.topic) for tp, _ in rows])

    def line(group, topic, partition, epoch, start, lag) -> str:
        epoch_column = f"{left(epoch, 13)} " if verbose else ""
        return (f"\n{left(group, g)} {left(topic, t)} {left(partition, 10)} {epoch_column}"
                f"{left(start, 13)} {lag}")
    out = line("GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "START-OFFSET", "LAG")
    for tp, info in rows:
        out += line(group_id, tp.topic, tp.partition, or_missing(info and info.leader_epoch),
                    or_missing(info and info.start_offset), or_missing(info and info.lag))
    print(out)


def print_state(group_id: str, description, verbose: bool) -> None:
    """Kafka's printStates: the coordinator, state and member count; with --verbose, the epochs."""
    maybe_print_empty_group_state(group_id, description.state, 1)
    node = description.coordinator
    coordinator = f"{node.host}:{node.port}  ({node.node_id})"
    g, c = max(15, len(group_id)), max(25, len(coordinator))
    header = ["GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"]
    row = [group_id, coordinator, description.state, description.group_epoch,
           description.target_assignment_epoch,
           len(description.members)]
    out = ""
    for r in (header, row):
        epochs = f"{left(r[3], 12)} {left(r[4], 17)} " if verbose else ""
        out += f"\n{left(r[0], g)} {left(r[1], c)} {left(r[2], 15)} {epochs}{r[5]}"
    print(out)


def assignment_string(partitions: list[TopicPartition]) -> str:
    """Kafka's getAssignmentString: topic:p,p;topic2:p, topics sorted ("" for none)."""
    by_topic: dict[str, list[int]] = {}
    for tp in partitions:
        by_topic.setdefault(tp.topic, []).append(tp.partition)
    return ";".join(sorted(f"{t}:{','.join(str(p) for p in sorted(ps))}" for t, ps in by_topic.items()))


def print_members(group_id: str, description, verbose: bool) -> None:
    """Kafka's printMembers: each member (by its id) with its host, client id and partitions; with
    --verbose, its epoch."""
    members = sorted(description.members, key=lambda m: m.member_id)
    if not maybe_print_empty_group_state(group_id, description.state, len(members)):
        return
    g = max(15, len(group_id))
    c, h, cl = (max([15] + [len(value(m)) for m in members])
                for value in (lambda m: m.member_id, lambda m: m.host, lambda m: m.client_id))

    def line(group, member_id, host, client_id, count, epoch, assignment) -> str:
        epoch_column = f"{left(epoch, 13)} " if verbose else ""
        return (f"\n{left(group, g)} {left(member_id, c)} {left(host, h)} {left(client_id, cl)} "
                f"{left(count, 12)} {epoch_column}{assignment}")
    out = line("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "MEMBER-EPOCH", "ASSIGNMENT")
    for m in members:
        out += line(group_id, m.member_id, m.host, m.client_id, len(m.assignment), m.member_epoch,
                    assignment_string(m.assignment))
    print(out)


# ------------------------------------------------------------------ --delete
def delete_share_groups(admin: AdminClient, args) -> None:
    """Kafka's deleteShareGroups: only share groups that are Empty, each checked against the listing
    first; the others are reported, the rest deleted."""
    listed = {group_id: state for group_id, state, _ in admin.list_groups(types=["share"])}
    wanted = list(dict.fromkeys(listed if args.all_groups else args.group))
    failed: dict[str, str] = {}
    for group_id in wanted:
        if group_id not in listed:
            failed[group_id] = ("org.apache.kafka.common.errors.GroupIdNotFoundException: "
                                f"Group '{group_id}' is not a share group.")
        elif listed[group_id] == "Dead":
            failed[group_id] = ("java.lang.IllegalStateException: "
                                f"Share group '{group_id}' group state is DEAD.")
        elif listed[group_id] and listed[group_id] != "Empty":
            failed[group_id] = ("org.apache.kafka.common.errors.GroupNotEmptyException: "
                                f"Share group '{group_id}' is not EMPTY.")
    to_delete = [g for g in wanted if g not in failed]
    results = admin.delete_share_groups(to_delete) if to_delete else {}
    succeeded = [g for g in to_delete if results.get(g) is None]
    failed.update({g: java_exception(e) for g, e in results.items() if e is not None})
    quoted = ", ".join(f"'{g}'" for g in succeeded)
    if not failed:
        print(f"Deletion of requested share groups ({quoted}) was successful.")
        return
    print_error("Deletion of some share groups failed:")
    for group_id, error in failed.items():
        print(f"* Group '{group_id}' could not be deleted due to: {error}")
    if succeeded:
        print(f"\nThese share groups were deleted successfully: {quoted}")


# ------------------------------------------------------------------ --delete-offsets
def delete_offsets(admin: AdminClient, args) -> None:
    """Kafka's deleteOffsets: the group-level error first, then each topic's outcome."""
    group_id, topics = args.group[0], sorted(set(args.topic))
    try:
        results: dict[str, KafkaError | str | None] = dict(admin.delete_share_group_offsets(group_id, topics))
        group_error = None
    except KafkaError as e:
        results, group_error = {}, e
    outcome = {t: group_error if group_error is not None else results.get(
        t, f'Offset deletion result for topic "{t}" was not included in the response') for t in topics}
    first = group_error or next((outcome[t] for t in topics if outcome[t] is not None), None)
    if isinstance(first, str):  # Java's IllegalArgumentException
        print_error(f"Encounter some unknown error: java.lang.IllegalArgumentException: {first}")
    elif first is not None:
        if first.error in (Errors.INVALID_GROUP_ID, Errors.GROUP_ID_NOT_FOUND,
                           Errors.GROUP_AUTHORIZATION_FAILED,
                           Errors.NON_EMPTY_GROUP):
            print_error(first.message)
        elif first.error not in (Errors.TOPIC_AUTHORIZATION_FAILED, Errors.UNKNOWN_TOPIC_OR_PARTITION):
            print_error(f"Encounter some unknown error: {java_exception(first)}")
    width = max([15] + [len(t) for t in topics])
    out = f"\n{left('TOPIC', width)} STATUS" if topics else ""
    for topic in topics:
        error = outcome[topic]
        message = error if isinstance(error, str) or error is None else error.message
        status = "Successful" if error is None else f"Error: {message}"
        out += f"\n{left(topic, width)} {status}"
    print(out)


# ------------------------------------------------------------------ --reset-offsets
def reset_offsets(admin: AdminClient, args) -> dict[TopicPartition, int]:
    """Kafka's resetOffsets: the new start offsets of an Empty (or not yet existing) group's partitions;
    with --execute, set (AlterShareGroupOffsets)."""
    group_id = args.group[0]
    try:
        state = admin.describe_share_groups([group_id])[group_id].state
        if state not in ("Empty", "Dead"):
            raise ExitWithError(f"Share group '{group_id}' is not empty.")
    except KafkaError as e:
        if e.error != Errors.GROUP_ID_NOT_FOUND:  # a group nobody ran yet may be given its start offsets
            raise ExitWithError(e.message) from e
    try:
        resetter = GroupOffsetsResetter(admin)
        offsets = prepare_offsets_to_reset(resetter, admin, args, group_id,
                                           partitions_to_reset(resetter, admin, args, group_id))
        if args.execute and offsets:
            altered = admin.alter_share_group_offsets(group_id, offsets)
    except KafkaError as e:
        raise CommandFailed(e.message) from e
    if args.execute and offsets:
        failed = sorted(tp for tp, error in altered.items() if error is not None)
        if failed:
            partitions = "[" + ", ".join(f"{tp.topic}-{tp.partition}" for tp in failed) + "]"
            message = altered[failed[0]].message
            raise CommandFailed(f"{message + ' ' if message else ''}Failed altering group offsets for the "
                                f"following partitions: {partitions}")
    return offsets


def partitions_to_reset(resetter: GroupOffsetsResetter, admin: AdminClient, args,
                        group_id: str) -> list[TopicPartition]:
    """--topic T (all of T's partitions) or T:0,1; --all-topics: every partition with share state;
    --from-file: the plan's."""
    if args.topic:
        return resetter.parse_topic_partitions_to_reset(args.topic)
    if args.all_topics:
        return list(admin.list_share_group_offsets({group_id: None})[group_id])
    return list(resetter.reset_plan_from_file(args.from_file, group_id))


def prepare_offsets_to_reset(resetter: GroupOffsetsResetter, admin: AdminClient, args, group_id: str,
                             partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
    """Kafka's prepareOffsetsToReset: every partition must exist; the new offset of each by the scenario."""
    resetter.check_all_topic_partitions_valid(partitions)
    if args.to_offset is not None:
        return resetter.reset_to_offset(partitions, args.to_offset)
    if args.to_earliest:
        return resetter.reset_to_earliest(partitions)
    if args.to_latest:
        return resetter.reset_to_latest(partitions)
    if args.to_datetime is not None:
        return resetter.reset_to_date_time(partitions, args.to_datetime)
    if args.from_file is not None:
        return resetter.reset_from_file(args.from_file, group_id)
    return resetter.reset_to_current_for_share_group(  # --to-current
        partitions, admin.list_share_group_offsets({group_id: None})[group_id])


def export_offsets(offsets: dict[TopicPartition, int]) -> str:
    """Kafka's exportOffsetsToCsv: topic,partition,offset a line."""
    return "".join(f"{tp.topic},{tp.partition},{offset}\n" for tp, offset in sorted(offsets.items()))


# ------------------------------------------------------------------ the command line
class UsageError(Exception):
    """Kafka's CommandLineUtils.printUsageAndExit: the message and the help on standard error, exit 1."""


ACTIONS = ("list", "describe", "delete", "reset_offsets", "delete_offsets")
SCENARIOS = ("to_offset", "to_datetime", "to_earliest", "to_latest", "to_current", "from_file")


def option(name: str) -> str:
    """How joptsimple names an option in a message: [reset-offsets]."""
    return f"[{name.replace('_', '-')}]"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-share-groups", description="This tool helps to list, describe, "
                                "delete and manage the offsets of share groups.")
    p.add_argument("--bootstrap-server", help="REQUIRED: The server(s) to connect to.")
    p.add_argument("--group", action="append", help="The share group id.")
    p.add_argument("--topic", action="append", help="The topic whose offset information should be deleted or "
                   "reset. When resetting offsets, partitions can be specified using this format: "
                   "`topic:0,1,2`, "
                   "where 0,1,2 are the partitions to be included.")
    p.add_argument("--all-topics", action="store_true",
                   help="Apply to all topics. Supported operation: reset-offsets.")
    p.add_argument("--list", action="store_true", help="List all share groups.")
    p.add_argument("--describe", action="store_true",
                   help="Describe share group, members and offset information.")
    p.add_argument("--all-groups", action="store_true", help="Apply to all share groups.")
    p.add_argument("--delete", action="store_true", help="Delete share group.")
    p.add_argument("--timeout", type=int, default=30000,
                   help="The timeout that can be set for some use cases, "
                   "in milliseconds (default: 30000).")
    p.add_argument("--command-config", help="Property file containing configs to be passed to Admin Client.")
    p.add_argument("--reset-offsets", action="store_true",
                   help="Reset offsets of share group. Supports one share "
                   "group at a time, and instances must be inactive. --dry-run plans, --execute resets.")
    p.add_argument("--delete-offsets", action="store_true",
                   help="Delete offsets of share group. Supports one "
                   "share group at a time, and multiple topics.")
    p.add_argument("--dry-run", action="store_true", help="Output offset reset information without executing "
                   "the operation. Supported operation: reset-offsets.")
    p.add_argument("--execute", action="store_true", help="Execute the offset reset operation.")
    p.add_argument("--export", action="store_true", help="Generate offset reset information in CSV format.")
    p.add_argument("--to-offset", type=int, help="Reset offsets to a specific offset.")
    p.add_argument("--from-file", help="Reset offsets to values defined in CSV file.")
    p.add_argument("--to-datetime",
                   help="Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'")
    p.add_argument("--to-earliest", action="store_true", help="Reset offsets to earliest offset.")
    p.add_argument("--to-latest", action="store_true", help="Reset offsets to latest offset.")
    p.add_argument("--to-current", action="store_true", help="Reset offsets to current offset.")
    p.add_argument("--members", action="store_true",
                   help="Describe members of the group. This option may be used "
                   "with the --describe option only.")
    p.add_argument("--offsets", action="store_true",
                   help="Describe the group and list all topic partitions in the "
                   "group along with their offset information. The default sub-action of --describe.")
    p.add_argument("--state", nargs="?", const="",
                   help="With --describe, the state of the group; with --list, "
                   "the state of all groups, or only of those in these states (Empty, Stable, Dead).")
    p.add_argument("--verbose", action="store_true", help="Provide additional information, if any, when "
                   "describing the group. This option may be used with the --describe option only.")
    return p


def check_args(args) -> None:
    """Kafka's ShareGroupCommandOptions.checkArgs and the one-action rule of its main, in their order."""
    if not args.bootstrap_server:
        raise UsageError('Missing required argument "[bootstrap-server]"')
    for name in ("members", "offsets", "verbose"):
        if getattr(args, name) and not args.describe:
            raise UsageError(f"Option(s) {option(name)} are unavailable given other options on the command "
                             "line")
    if args.state is not None and not (args.describe or args.list):
        raise UsageError(f"Option(s) {option('state')} are unavailable given other options on the command "
                         "line")
    if args.describe:
        if not (args.group or args.all_groups):
            raise UsageError(f"Option {option('describe')} takes one of these options: [all-groups], [group]")
        if sum(1 for x in (args.members, args.offsets, args.state is not None) if x) > 1:
            raise UsageError(f"Option {option('describe')} takes at most one of these options: [members], "
                             "[offsets], [state]")
        if args.state:
            raise UsageError(f"Option {option('describe')} does not take a value for {option('state')}")
    if args.delete:
        if not (args.group or args.all_groups):
            raise UsageError("Option [delete] takes the options [group] or [all-groups].")
        if args.group and args.all_groups:
            raise UsageError("Option [delete] takes either [group] or [all-groups], not both.")
        if args.topic or args.all_topics:
            raise UsageError("Option [delete] does not take the options [topic] or [all-topics].")
    if args.delete_offsets and not (args.group and args.topic):
        raise UsageError("Option [delete-offsets] takes the following options: [group], [topic]")
    if args.reset_offsets:
        check_reset_offsets_args(args)
    if args.group and args.all_groups:
        raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
    if args.group and args.list:
        raise UsageError('Option "[group]" can\'t be used with option "[list]"')
    if args.topic and (args.list or args.describe or args.delete):
        used = next(a for a in ("list", "describe", "delete") if getattr(args, a))
        raise UsageError(f'Option "[topic]" can\'t be used with option "{option(used)}"')
    if sum(1 for a in ACTIONS if getattr(args, a)) != 1:
        raise UsageError("Command must include exactly one action: --list, --describe, --delete, "
                         "--reset-offsets, "
                         "--delete-offsets.")


def check_reset_offsets_args(args) -> None:
    if args.dry_run and args.execute:
        raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
    if not (args.dry_run or args.execute):
        raise UsageError("Option [reset-offsets] takes the option: [execute] or [dry-run]")
    if not args.group:
        raise UsageError("Option [reset-offsets] takes the option: [group]")
    scopes = [name for name in ("topic", "all_topics", "from_file") if getattr(args, name)]
    if not scopes:
        raise UsageError("Option [reset-offsets] takes one of these options: [all-topics], [from-file], "
                         "[topic]")
    if len(scopes) > 1:
        raise UsageError(f'Option "{option(scopes[0])}" can\'t be used with option "{option(scopes[1])}"')
    scenarios = [name for name in SCENARIOS if getattr(args, name) not in (None, False)]
    if not scenarios:
        raise UsageError("Option [reset-offsets] takes one of these options: [from-file], [to-current], "
                         "[to-datetime], [to-earliest], [to-latest], [to-offset]")
    if len(scenarios) > 1:
        raise UsageError(f'Option "{option(scenarios[0])}" can\'t be used with option '
                         f'"{option(scenarios[1])}"')


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        check_args(args)
    except UsageError as e:
        print(e, file=sys.stderr)
        p.print_help(sys.stderr)
        return 1
    configure_tool_logging()
    config = {**load_props(args.command_config), "bootstrap.servers": args.bootstrap_server,
              "default.api.timeout.ms": args.timeout}
    try:
        with AdminClient(config) as admin:
            run(admin, args)
    except (UsageError, argparse.ArgumentTypeError) as e:  # Kafka's IllegalArgumentException: usage and exit
        print(e, file=sys.stderr)
        p.print_help(sys.stderr)
        return 1
    except ExitWithError as e:
        print(e, file=sys.stderr)
        return 1
    except CommandFailed as e:
        print_error(f"Executing share group command failed due to {e}")
    except KafkaError as e:
        print_error(f"Executing share group command failed due to {e.message}")
    except (OSError, ValueError) as e:  # a bad --bootstrap-server, an unreadable file, a bad datetime
        print_error(f"Executing share group command failed due to {e}")
    return 0


def run(admin: AdminClient, args) -> None:
    if args.list:
        list_groups(admin, args)
    elif args.describe:
        describe_groups(admin, args)
    elif args.delete:
        delete_share_groups(admin, args)
    elif args.reset_offsets:
        offsets = reset_offsets(admin, args)
        if args.export:
            print(export_offsets(offsets))
        else:
            GroupOffsetsResetter.print_offsets_to_reset(args.group[0], offsets)
    else:
        delete_offsets(admin, args)


if __name__ == "__main__":
    sys.exit(main())
