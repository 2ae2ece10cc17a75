"""kafka-acls: add, remove and list ACLs (Kafka's kafka.admin.AclCommand, ``bin/kafka-acls.sh``), on
CreateAcls, DeleteAcls and DescribeAcls.

    kafka-acls --bootstrap-server 127.0.0.1:9092 --add --allow-principal User:alice --operation Write \\
        --topic orders
    kafka-acls --bootstrap-server 127.0.0.1:9092 --add --allow-principal User:bob --consumer --topic orders \\
        --group billing
    kafka-acls --bootstrap-server 127.0.0.1:9092 --add --allow-principal User:alice --producer \\
        --topic orders- --resource-pattern-type prefixed --idempotent
    kafka-acls --bootstrap-server 127.0.0.1:9092 --list [--topic orders] [--principal User:alice]
    kafka-acls --bootstrap-server 127.0.0.1:9092 --remove --force --deny-principal User:mallory \\
        --operation Read --topic orders

Prints what Kafka 4's tool prints (each entry line begins with a tab, the first one added with a
space before it):

    Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
      (principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)

    Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
        (principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)

--producer grants WRITE, DESCRIBE and CREATE on the topics (WRITE and DESCRIBE on --transactional-id,
IDEMPOTENT_WRITE on the cluster with --idempotent); --consumer READ and DESCRIBE on the topics and READ
on the group. Without --force, --remove asks before it deletes.
"""

from __future__ import annotations

import argparse
import re
import sys

from kafka.clients.admin import AdminClient
from kafka.clients.errors import ConfigError, KafkaError
from kafka.protocol.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD_HOST,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from kafka.tools.command_line_utils import load_props, run

Op = AclOperation
NL = "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-acls", description="Add, remove and list ACLs.")
    p.add_argument("--bootstrap-server", required=True,
                   help="the broker(s) to connect to, host:port[,host:port]")
    p.add_argument("--command-config", help="a properties file of admin client configs")
    action = p.add_mutually_exclusive_group(required=True)
    action.add_argument("--add", action="store_true", help="add ACLs")
    action.add_argument("--remove", action="store_true", help="remove ACLs")
    action.add_argument("--list", action="store_true", help="list ACLs (of --topic, --group, --cluster, ...)")
    p.add_argument("--topic", action="append", default=[], help="a topic (repeatable); * for every topic")
    p.add_argument("--group", action="append", default=[], help="a consumer group (repeatable)")
    p.add_argument("--transactional-id", action="append", default=[], help="a transactional id (repeatable)")
    p.add_argument("--cluster", action="store_true", help="the cluster resource")
    p.add_argument("--resource-pattern-type", default="LITERAL", type=_pattern_type,
                   help="LITERAL (default) or PREFIXED; with --list and --remove also ANY or MATCH")
    p.add_argument("--operation", action="append", default=[],
                   help="Read, Write, Create, Delete, Alter, Describe, "
                   "ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, All (repeatable)")
    p.add_argument("--allow-principal", action="append", default=[], help="Type:name, e.g. User:alice")
    p.add_argument("--deny-principal", action="append", default=[], help="Type:name, e.g. User:mallory")
    p.add_argument("--allow-host", action="append", default=[],
                   help="an IP address the allowed principals use")
    p.add_argument("--deny-host", action="append", default=[], help="an IP address the denied principals use")
    p.add_argument("--principal", action="append", default=[], help="with --list: only this principal's ACLs")
    p.add_argument("--producer", action="store_true", help="the ACLs a producer needs on --topic")
    p.add_argument("--consumer", action="store_true", help="the ACLs a consumer needs on --topic and --group")
    p.add_argument("--idempotent", action="store_true",
                   help="with --producer: IDEMPOTENT_WRITE on the cluster")
    p.add_argument("--force", action="store_true", help="assume yes to every question")
    return p


def _pattern_type(value: str) -> PatternType:
    try:
        return PatternType[value.strip().upper()]
    except KeyError:
        raise argparse.ArgumentTypeError(f"{value!r} is not one of ANY, MATCH, LITERAL, PREFIXED") from None


def parse_operation(name: str) -> AclOperation:
    """`IdempotentWrite`, `idempotent_write` or `IDEMPOTENT_WRITE` -> IDEMPOTENT_WRITE (Kafka's
    SecurityUtils.operation)."""
    key = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name.strip()).upper()
    try:
        op = AclOperation[key]
    except KeyError:
        raise ConfigError(f"Invalid operation {name!r}") from None
    if op in (Op.UNKNOWN, Op.ANY):
        raise ConfigError(f"Invalid operation {name!r}")
    return op


def _principal(text: str) -> str:
    kind, colon, name = text.strip().partition(":")
    if not colon or not kind or not name:
        raise ConfigError(f"expected a principal as Type:name, got {text!r}")
    return f"{kind}:{name}"


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _check_args(parser, args)
    with AdminClient({"bootstrap.servers": args.bootstrap_server,
                      **load_props(args.command_config)}) as admin:
        if args.add:
            add_acls(admin, args)
        elif args.remove:
            remove_acls(admin, args)
        else:
            list_acls(admin, args)
    return 0


def _check_args(parser: argparse.ArgumentParser, args) -> None:
    """Kafka's AclCommandOptions.checkArgs."""
    if args.list and (args.producer or args.consumer or args.allow_host or args.allow_principal
                      or args.deny_host
                      or args.deny_principal):
        parser.error("--list does not take --producer, --consumer, --allow-*/--deny-* options")
    if (args.producer or args.consumer) and (args.operation or args.deny_principal or args.deny_host):
        parser.error("--producer and --consumer infer the operations: no --operation, --deny-principal, "
                     "--deny-host")
    if args.principal and not args.list:
        parser.error("The --principal option is only available if --list is set")
    if args.producer and not args.topic:
        parser.error("With --producer you must specify a --topic")
    if args.idempotent and not args.producer:
        parser.error("The --idempotent option is only available if --producer is set")
    stray_producer_options = not args.producer and (args.cluster or args.transactional_id)
    if args.consumer and (not args.topic or not args.group or stray_producer_options):
        parser.error("With --consumer you must specify a --topic and a --group and no --cluster or "
                     "--transactional-id option should be specified.")


# ------------------------------------------------------------------ what the flags mean
def resource_filters(args, die_if_none: bool = True) -> list[AclBindingFilter]:
    """The resource patterns named on the command line, as filters (Kafka's getResourceFilter)."""
    pt = args.resource_pattern_type
    filters = [AclBindingFilter(ResourceType.TOPIC, t.strip(), pt) for t in args.topic]
    if pt == PatternType.LITERAL and (args.cluster or args.idempotent):
        filters.append(AclBindingFilter(ResourceType.CLUSTER, CLUSTER_NAME, PatternType.LITERAL))
    filters += [AclBindingFilter(ResourceType.GROUP, g.strip(), pt) for g in args.group]
    filters += [AclBindingFilter(ResourceType.TRANSACTIONAL_ID, t, pt) for t in args.transactional_id]
    if not filters and die_if_none:
        raise ConfigError("You must provide at least one resource: --topic <topic> or --cluster or --group "
                          "<group>")
    return list(dict.fromkeys(filters))


def _entries(args, operations) -> list[AccessControlEntry]:
    """Every (principal, host, operation) of the allow and deny flags (Kafka's getAcl)."""
    entries = []
    for principals, hosts, permission in ((args.allow_principal, args.allow_host, AclPermissionType.ALLOW),
                                          (args.deny_principal, args.deny_host, AclPermissionType.DENY)):
        for principal in principals:
            for host in (hosts or [WILDCARD_HOST]):
                for op in operations:
                    entries.append(AccessControlEntry(_principal(principal), host.strip(), op, permission))
    return sorted(set(entries))


def filter_to_entries(args) -> dict[AclBindingFilter, list[AccessControlEntry]]:
    """Each resource and the entries the flags give it, --producer and --consumer expanded."""
    out: dict[AclBindingFilter, list[AccessControlEntry]] = {}
    filters = resource_filters(args)
    if not args.producer and not args.consumer:
        ops = [parse_operation(o) for o in args.operation]
        out.update({f: _entries(args, ops) for f in filters})
    if args.producer:
        for f in filters:
            if f.resource_type == ResourceType.TOPIC:
                out[f] = _entries(args, [Op.WRITE, Op.DESCRIBE, Op.CREATE])
            elif f.resource_type == ResourceType.TRANSACTIONAL_ID:
                out[f] = _entries(args, [Op.WRITE, Op.DESCRIBE])
            elif f.resource_type == ResourceType.CLUSTER and args.idempotent:
                out[f] = _entries(args, [Op.IDEMPOTENT_WRITE])
    if args.consumer:
        for f in filters:
            ops = {ResourceType.TOPIC: [Op.READ, Op.DESCRIBE],
                   ResourceType.GROUP: [Op.READ]}.get(f.resource_type)
            if ops:
                out[f] = sorted(set(out.get(f, [])) | set(_entries(args, ops)))
    for f, entries in out.items():  # Kafka's validateOperation
        valid = set(SUPPORTED_OPERATIONS[f.resource_type]) | {Op.ALL}
        if any(e.operation not in valid for e in entries):
            raise ConfigError(f"ResourceType {f.resource_type.name} only supports operations "
                              + ", ".join(_op_name(o) for o in sorted(valid)))
    return out


def _op_name(op: AclOperation) -> str:
    return "".join(part.capitalize() for part in op.name.split("_"))


def _lines(entries) -> str:
    return NL.join("\t" + str(e) for e in entries)


# ------------------------------------------------------------------ the actions
def add_acls(admin: AdminClient, args) -> None:
    if args.resource_pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        raise ConfigError(f"A '--resource-pattern-type' value of '{args.resource_pattern_type.name}' is not "
                          "valid when adding acls.")
    for f, entries in filter_to_entries(args).items():
        if not entries:
            raise ConfigError("You must specify one of: --allow-principal, --deny-principal when trying to "
                              "add ACLs.")
        pattern = ResourcePattern(f.resource_type, f.name, f.pattern_type)
        print(f"Adding ACLs for resource `{pattern}`: {NL} {_lines(entries)}{NL}")
        for error in admin.create_acls([AclBinding(pattern, e) for e in entries]):
            if error is not None:
                raise error


def remove_acls(admin: AdminClient, args) -> None:
    for f, entries in filter_to_entries(args).items():
        pattern = ResourcePattern(f.resource_type, f.name, f.pattern_type)
        question = (f"Are you sure you want to delete all ACLs for resource filter `{pattern}`? (y/n)"
                    if not entries
                    else f"Are you sure you want to remove ACLs: {NL} {_lines(entries)}{NL} from resource "
                         f"filter `{pattern}`? (y/n)")
        if not _confirm(args, question):
            continue
        filters = [f]
        if entries:
            filters = [AclBindingFilter(f.resource_type, f.name, f.pattern_type, e.principal, e.host,
                                        e.operation, e.permission_type) for e in entries]
        for result in admin.delete_acls(filters):
            if isinstance(result, KafkaError):
                raise result


def _confirm(args, question: str) -> bool:
    if args.force:
        return True
    print(question)
    return sys.stdin.readline().strip().lower() == "y"


def list_acls(admin: AdminClient, args) -> None:
    filters = resource_filters(args, die_if_none=False) or [AclBindingFilter()]
    by_resource: dict[ResourcePattern, set[AccessControlEntry]] = {}
    for f in filters:
        for binding in admin.describe_acls(f):
            by_resource.setdefault(binding.pattern, set()).add(binding.entry)
    if not args.principal:
        _print_resource_acls(by_resource)
        return
    for principal in (_principal(p) for p in args.principal):
        print(f"ACLs for principal `{principal}`")
        _print_resource_acls({r: {e for e in es if e.principal == principal}
                              for r, es in by_resource.items()})


def _print_resource_acls(by_resource: dict[ResourcePattern, set[AccessControlEntry]]) -> None:
    for resource, entries in sorted(by_resource.items()):
        if entries:
            print(f"Current ACLs for resource `{resource}`:{NL}{_lines(sorted(entries))}{NL}")


if __name__ == "__main__":
    sys.exit(main())
