"""kafka-storage: prepare a node's directories for a KRaft cluster (Kafka's kafka.tools.StorageTool,
``bin/kafka-storage.sh``).

    kafka-storage random-uuid                                   # a new cluster id
    kafka-storage format -t CLUSTER_ID -c server.properties [--ignore-formatted]
                         [--release-version 3.9-IV0] [--feature share.version=0 ...]
                         [--add-scram 'SCRAM-SHA-512=[name=alice,password=alice-secret]' ...]
                         [--standalone | --initial-controllers 'id@host:port:dirid,...'
                          | --no-initial-controllers]
    kafka-storage info -c server.properties
    kafka-storage version-mapping [--release-version 3.9]        # as kafka-features (docs/features.md)
    kafka-storage feature-dependencies --feature eligible.leader.replicas.version=1

Seed 004: in KRaft the cluster's metadata lives in a log that the controllers replicate, so every
node must agree on which cluster it belongs to before the first byte is written. `format` stamps
each log directory (and the metadata log directory) with a meta.properties naming the cluster id
and this node's node.id; a node refuses to start on directories formatted for another cluster or
node. Run it once per node with the same cluster id. A one-node `make run` formats itself.

`--release-version 3.9-IV0` starts the cluster at that metadata.version, every other feature at the level
Kafka's release gives it (`kafka-storage version-mapping` prints them), as far as this broker builds it: a
level it does not build is lowered to the highest it does (docs/features.md). `--feature share.version=0`
sets one feature's level (`--feature metadata.version=21` the metadata.version, without --release-version).
Each is a FeatureLevelRecord in bootstrap.checkpoint, which the first active controller writes in place of
the default's; without either, a new cluster starts at this broker's defaults (metadata.version 4.4-IV2,
group.version 1, share.version 1 so that share groups (KIP-932) work from the start). The levels are checked
as Kafka's Formatter checks them (a known feature, a level it defines, its dependencies) and against what
this broker supports, and printed as Kafka prints its bootstrap metadata. kraft.version is not a
FeatureLevelRecord: --standalone or --initial-controllers makes it 1.

`--add-scram` creates SCRAM users before the cluster first starts (a SASL cluster whose brokers log in
to each other needs them): their credentials -- salt, StoredKey, ServerKey, never the password --
go to bootstrap.checkpoint in the metadata directory, and the first active controller writes them
into the metadata log (docs/security.md).

A dynamic quorum (KIP-853, docs/kraft.md) keeps its voters in the metadata log instead of
controller.quorum.voters. Its controllers are formatted with the voter set to start from, written as
the bootstrap snapshot 00000000000000000000-0000000000.checkpoint (kraft.version 1 and a VotersRecord):
`--standalone` (this controller alone, at its controller listener), or `--initial-controllers` (the
same list on every controller; each controller's metadata directory gets the directory id the list
gives it). A controller that will be added later is formatted with `--no-initial-controllers`: it
starts as an observer, and `kafka-metadata-quorum add-controller` makes it a voter.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from kafka.controller.feature_control_manager import (
    DEFAULT_FEATURE_LEVELS,
    MAX_METADATA_VERSION,
    MIN_METADATA_VERSION,
    SUPPORTED_FEATURES,
)
from kafka.image.feature import KRAFT_VERSION, PRODUCTION_FEATURES, feature_from_name, validate_version
from kafka.image.metadata_version import BY_LEVEL, MetadataVersion, from_feature_level, from_version_string
from kafka.image.metadata_version import FEATURE_NAME as METADATA_VERSION_FEATURE
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.raft.snapshots import write_bootstrap_snapshot
from kafka.raft.voter_set import ReplicaKey, VoterNode, VoterSet, directory_id_from_string
from kafka.security.scram_credential_parser import iterations_of, parse_scram_entries
from kafka.security.scram_formatter import ScramFormatter
from kafka.server.bootstrap_directory import write_bootstrap_records
from kafka.server.kafka_config import ConfigError, KafkaConfig
from kafka.server.meta_properties import (
    MetaPropertiesError,
    format_directories,
    read_meta_properties,
)
from kafka.tools.features_command import (
    TerseError,
    add_lookup_parsers,
    handle_feature_dependencies,
    handle_version_mapping,
)
from kafka.utils.uuid import random_uuid, uuid_to_string


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-storage",
                                description="Format and describe KRaft storage directories.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("random-uuid", help="print a random cluster id")
    fmt = sub.add_parser("format", help="format this node's log directories")
    fmt.add_argument("-t", "--cluster-id", required=True)
    fmt.add_argument("-c", "--config", required=True)
    fmt.add_argument("-g", "--ignore-formatted", action="store_true",
                     help="skip directories that are already formatted instead of failing")
    fmt.add_argument("--override", action="append", default=[], metavar="key=value")
    fmt.add_argument("-r", "--release-version", metavar="RELEASE_VERSION",
                     help="The release version to use for the initial feature settings. The minimum is "
                          f"{BY_LEVEL[MIN_METADATA_VERSION]}; the default is "
                          f"{BY_LEVEL[MAX_METADATA_VERSION]}.")
    fmt.add_argument("-f", "--feature", action="append", default=[], metavar="FEATURE=LEVEL",
                     help="the level a feature of the new cluster starts at, e.g. share.version=0 "
                          "(share groups off)")
    fmt.add_argument("-S", "--add-scram", action="append", default=[],
                     metavar="MECHANISM=[name=...,password=...]",
                     help="a SCRAM user the new cluster starts with, e.g. "
                          "'SCRAM-SHA-512=[name=alice,password=s3cret]'")
    quorum = fmt.add_mutually_exclusive_group()
    quorum.add_argument("-s", "--standalone", action="store_true",
                        help="Used to initialize a controller as a single-node dynamic quorum.")
    quorum.add_argument("-N", "--no-initial-controllers", action="store_true",
                        help="Used to initialize a server without a dynamic quorum topology.")
    quorum.add_argument("-I", "--initial-controllers", metavar="id@host:port:directory,...",
                        help="Used to initialize a server with a specific dynamic quorum topology: the same "
                             "list on every controller, e.g. 0@example.com:8082:JEXY6aqzQY-32P5TStzaFg,...")
    info = sub.add_parser("info", help="describe this node's log directories")
    info.add_argument("-c", "--config", required=True)
    add_lookup_parsers(sub)
    return p


def directories(config: KafkaConfig) -> list[str]:
    """log.dirs, and metadata.log.dir when it is not one of them (Kafka formats both)."""
    dirs = list(config.log_dirs)
    if config.metadata_log_dir not in dirs:
        dirs.append(config.metadata_log_dir)
    return dirs


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "random-uuid":
        print(random_uuid())
        return 0
    if args.command in ("version-mapping", "feature-dependencies"):
        try:
            if args.command == "version-mapping":
                handle_version_mapping(args.release_version)
            else:
                handle_feature_dependencies(args.feature)
        except (TerseError, ValueError) as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    try:
        overrides = dict(item.split("=", 1) for item in getattr(args, "override", []))
        config = KafkaConfig.from_file(args.config, overrides)
    except (ConfigError, ValueError) as e:
        print(f"kafka-storage: {e}", file=sys.stderr)
        return 1
    if args.command == "info":
        return info(config)
    if len(args.cluster_id) != 22:
        print(f"kafka-storage: cluster id {args.cluster_id!r} is not a Kafka Uuid (22 characters of URL-safe "
              "base64; make one with kafka-storage random-uuid)", file=sys.stderr)
        return 1
    try:
        scram_records = scram_bootstrap_records(args.add_scram)
    except ValueError as e:
        print(f"kafka-storage: --add-scram: {e}", file=sys.stderr)
        return 1
    try:
        initial = initial_controllers(args, config)
    except ValueError as e:
        print(f"kafka-storage: {e}", file=sys.stderr)
        return 1
    try:
        metadata_version, feature_records = feature_bootstrap_records(args.feature, args.release_version,
                                                                      dynamic_quorum=initial is not None)
    except (TerseError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    voter = initial.voter_node(config.node_id) if initial is not None else None
    directory_ids = {config.metadata_log_dir: uuid_to_string(voter.key.directory_id)} if voter else None
    try:
        formatted = format_directories(directories(config), args.cluster_id, config.node_id,
                                       ignore_formatted=args.ignore_formatted, directory_ids=directory_ids)
    except MetaPropertiesError as e:
        print(e, file=sys.stderr)
        return 1
    if initial is not None and config.metadata_log_dir in formatted:
        write_bootstrap_snapshot(os.path.join(config.metadata_log_dir, "__cluster_metadata-0"),
                                 initial.to_voters_record(), int(time.time() * 1000))
    if not formatted:
        print("All of the log directories are already formatted.")
    if (feature_records or scram_records) and config.metadata_log_dir in formatted:
        write_bootstrap_records(config.metadata_log_dir, feature_records + scram_records)
    if formatted:
        print(bootstrap_metadata_line(metadata_version, feature_records))
    for d in formatted:
        kind = directory_type(d, config, initial)
        print(f"Formatting {kind} {d} with metadata.version {metadata_version}.")
    return 0


def directory_type(d: str, config: KafkaConfig, initial: VoterSet | None) -> str:
    """Kafka's Formatter.DirectoryType description."""
    if d != config.metadata_log_dir:
        return "data directory"
    if initial is None:
        return "metadata directory"
    return "dynamic metadata voter directory" if config.node_id in initial.voter_ids() else \
        "dynamic metadata directory"


def initial_controllers(args, config: KafkaConfig) -> VoterSet | None:
    """The voter set a dynamic quorum starts from (KIP-853), or None for a static quorum or a node that
    will be added later; Kafka's StorageTool rules."""
    listener = config.controller_listener_name
    if args.standalone:
        if not config.is_controller:
            raise ValueError("You can only use --standalone on a controller.")
        end_point = next((e for e in config.listeners if e.listener_name == listener), None)
        if end_point is None:
            raise ValueError("No controller listeners found.")
        key = ReplicaKey(config.node_id, directory_id_from_string(random_uuid()))
        return VoterSet({config.node_id: VoterNode(key,
                                                   {listener: (end_point.host or "localhost",
                                                               end_point.port)})})
    if args.initial_controllers:
        return parse_initial_controllers(args.initial_controllers, listener)
    # Kafka asks it of every controller without controller.quorum.voters; here an empty one is also the
    # embedded one-node quorum of `make run` (docs/kraft.md), so only a dynamic quorum's controller is asked.
    dynamic_quorum = not config.controller_quorum_voters and config.controller_quorum_bootstrap_servers
    if config.is_controller and dynamic_quorum and not args.no_initial_controllers:
        raise ValueError("Because controller.quorum.voters is not set on this controller, you must specify "
                         "one of the following: --standalone, --initial-controllers, or "
                         "--no-initial-controllers.")
    return None


def parse_initial_controllers(text: str, listener: str) -> VoterSet:
    """'id@host:port:directory,...' (Kafka's DynamicVoters.parse)."""
    voters: dict[int, VoterNode] = {}
    for item in (part.strip() for part in text.split(",") if part.strip()):
        node, at, rest = item.partition("@")
        host, _, tail = rest.rpartition("]:") if rest.startswith("[") else rest.partition(":")
        port, colon, directory = tail.partition(":")
        if not at or not node.isdigit() or not port.isdigit() or not colon or not directory:
            raise ValueError(f"--initial-controllers: {item!r} is not of the form id@host:port:directory")
        node_id = int(node)
        if node_id in voters:
            raise ValueError(f"--initial-controllers: node id {node_id} is listed twice")
        voters[node_id] = VoterNode(ReplicaKey(node_id, directory_id_from_string(directory)),
                                    {listener: (host.strip("[]"), int(port))})
    if not voters:
        raise ValueError("--initial-controllers: no voters given")
    return VoterSet(voters)


def feature_bootstrap_records(arguments: list[str], release_version: str | None = None,
                              dynamic_quorum: bool = False) -> tuple[MetadataVersion, list]:
    """The metadata.version and one FeatureLevelRecord per feature the new cluster starts at other than this
    broker's defaults (Kafka's Formatter.calculateEffectiveFeatureLevels): with --release-version every
    feature at Kafka's level for that release, lowered to what this broker builds; each --feature on top,
    refused in Kafka's words if Kafka does not know it, and in ours if this broker does not build it."""
    requested: dict[str, int] = {}
    for argument in arguments:
        name, level = parse_name_and_level(argument)
        requested[name] = level
    if METADATA_VERSION_FEATURE in requested:
        if release_version is not None:
            raise TerseError("Use --release-version instead of --feature metadata.version=X to avoid "
                             "ambiguity.")
        level = requested.pop(METADATA_VERSION_FEATURE)
        if level not in BY_LEVEL or not MIN_METADATA_VERSION <= level <= MAX_METADATA_VERSION:
            raise TerseError(f"No MetadataVersion with feature level {level}. Valid feature levels are from "
                             f"{MIN_METADATA_VERSION} to {MAX_METADATA_VERSION}.")
        metadata_version = from_feature_level(level)
    elif release_version is not None:
        metadata_version = supported_release(release_version)
    else:
        metadata_version = from_feature_level(MAX_METADATA_VERSION)
    defaults = {name: level for name, level in DEFAULT_FEATURE_LEVELS.items()
                if name != METADATA_VERSION_FEATURE}
    levels = dict(defaults) if metadata_version.feature_level == MAX_METADATA_VERSION \
        and release_version is None else {
            f.name: min(f.default_level(metadata_version), SUPPORTED_FEATURES[f.name][1])
            for f in PRODUCTION_FEATURES if f.name != KRAFT_VERSION}
    known = sorted(f.name for f in PRODUCTION_FEATURES)
    for name, level in requested.items():
        if name not in known:
            raise TerseError(f"Unsupported feature: {name}. Supported features are: {', '.join(known)}")
        feature_from_name(name).from_feature_level(level)  # No feature:x with feature level n
        if name == KRAFT_VERSION:
            if level >= 1 and not dynamic_quorum:
                raise TerseError(KRAFT_VERSION_NEEDS_A_DYNAMIC_QUORUM)
            continue  # a dynamic quorum's bootstrap snapshot carries kraft.version, not a FeatureLevelRecord
        levels[name] = level
    proposed = {METADATA_VERSION_FEATURE: metadata_version.feature_level, **levels}
    for name, level in levels.items():
        feature = feature_from_name(name)
        validate_version(feature, feature.from_feature_level(level), proposed)
    for name in requested.keys() - {KRAFT_VERSION}:  # what Kafka allows, and this broker does not build
        low, high = SUPPORTED_FEATURES[name]
        if not low <= levels[name] <= high:
            raise TerseError(f"{name} level {levels[name]} is not supported: {low} to {high} "
                             "(docs/features.md)")
    records = [record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=METADATA_VERSION_FEATURE,
                      feature_level=metadata_version.feature_level)] \
        if metadata_version.feature_level != MAX_METADATA_VERSION else []
    records += [record(MetadataRecordType.FEATURE_LEVEL_RECORD, name=name, feature_level=level)
                for name, level in sorted(levels.items()) if level != defaults.get(name)]
    return metadata_version, records


KRAFT_VERSION_NEEDS_A_DYNAMIC_QUORUM = (
    "Cannot set kraft.version to 1 unless controller.quorum.voters is empty and one of the flags "
    "--standalone, "
    "--initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try using "
    "one of --standalone, --initial-controllers, or --no-initial-controllers and removing "
    "controller.quorum.voters.")


def parse_name_and_level(argument: str) -> tuple[str, int]:
    name, equals, level = argument.partition("=")
    if not equals:
        raise TerseError(f"Can't parse feature=level string {argument}: equals sign not found.")
    try:
        return name.strip(), int(level.strip())
    except ValueError:
        raise TerseError(f"Can't parse feature=level string {argument}: unable to parse {level.strip()} as a "
                         "short.") from None


def supported_release(text: str) -> MetadataVersion:
    """--release-version: a metadata.version this broker runs, else Kafka's refusal listing those it runs."""
    try:
        version = from_version_string(text)
        if MIN_METADATA_VERSION <= version.feature_level <= MAX_METADATA_VERSION:
            return version
    except ValueError:
        pass
    raise TerseError(f"Unknown metadata.version '{text}'. Supported metadata.version are: " + ", ".join(
        BY_LEVEL[level].version for level in range(MIN_METADATA_VERSION, MAX_METADATA_VERSION + 1)))


def bootstrap_metadata_line(metadata_version: MetadataVersion, feature_records: list) -> str:
    """What Kafka's format prints of its bootstrap metadata: metadata.version, then each feature above 0 in
    name order (the features alone: Kafka would list --add-scram's records too)."""
    levels = {**DEFAULT_FEATURE_LEVELS, **{r.data.name: r.data.feature_level for r in feature_records},
              METADATA_VERSION_FEATURE: metadata_version.feature_level}
    names = [METADATA_VERSION_FEATURE, *sorted(n for n in levels if n != METADATA_VERSION_FEATURE)]
    records = ", ".join(f"ApiMessageAndVersion(FeatureLevelRecord(name='{name}', "
                        f"featureLevel={levels[name]}) "
                        "at version 0)" for name in names if levels[name] > 0)
    return (f"Bootstrap metadata: BootstrapMetadata(records=[{records}], "
            f"metadataVersionLevel={metadata_version.feature_level}, source=format command)")


def scram_bootstrap_records(arguments: list[str]) -> list:
    """One UserScramCredentialRecord per --add-scram entry, salted here with a fresh random salt."""
    records = []
    for argument in arguments:
        for mechanism, options in parse_scram_entries(argument):
            name, password = options.get("name"), options.get("password")
            if not name or not password:
                raise ValueError(f"{argument!r} needs name=... and password=...")
            c = ScramFormatter(mechanism).generate_credential(password, iterations_of(options))
            records.append(record(MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, name=name,
                                  mechanism=mechanism.type_id, salt=c.salt, stored_key=c.stored_key,
                                  server_key=c.server_key, iterations=c.iterations))
    return records


def info(config: KafkaConfig) -> int:
    dirs = directories(config)
    print("Found log director" + ("y:" if len(dirs) == 1 else "ies:"))
    for d in dirs:
        print(f"  {d}")
    print()
    problems = 0
    for d in dirs:
        try:
            props = read_meta_properties(d)
        except MetaPropertiesError as e:
            print(f"Found problem:\n  {e}")
            problems += 1
            continue
        if props is None:
            print(f"Found problem:\n  {d} is not formatted.")
            problems += 1
        else:
            print(f"Found metadata: {{cluster.id={props.cluster_id}, directory.id={props.directory_id}, "
                  f"node.id={props.node_id}, version={props.version}}}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
