"""kafka-features: describe and change the cluster's finalized feature levels (Kafka's
org.apache.kafka.tools.FeatureCommand, ``bin/kafka-features.sh``, KIP-584 / KIP-778 / KIP-1022).

    kafka-features --bootstrap-server 127.0.0.1:9092 describe [--node-id 1]
    kafka-features --bootstrap-server 127.0.0.1:9092 upgrade --feature group.version=1 [--dry-run]
    kafka-features --bootstrap-server 127.0.0.1:9092 upgrade --release-version 4.1-IV1
    kafka-features --bootstrap-server 127.0.0.1:9092 downgrade --feature share.version=0 [--unsafe]
    kafka-features --bootstrap-server 127.0.0.1:9092 disable --feature share.version
    kafka-features version-mapping [--release-version 3.9]
    kafka-features feature-dependencies --feature eligible.leader.replicas.version=1

`describe` reads ApiVersions of one broker: the range of each feature it supports and the level the
cluster finalized, as of the metadata it applied (Epoch: that metadata's offset). `upgrade`, `downgrade`
and `disable` (a downgrade to 0) send UpdateFeatures, which the broker forwards to the active
controller; it writes a FeatureLevelRecord per feature, or refuses them all (docs/features.md). With
`--dry-run` the controller checks and writes nothing. `--release-version` sets metadata.version and every
other feature to the level Kafka's release gives it. `version-mapping` and `feature-dependencies` ask no
broker: they print Kafka 4.4's table (kafka/image/feature.py), which may name levels this broker does
not run. The output is Kafka's, line for line.
"""

from __future__ import annotations

import argparse
import sys

from kafka.clients.admin import AdminClient
from kafka.clients.admin.controller_admin import ControllerAdmin
from kafka.clients.admin.feature_admin import SAFE_DOWNGRADE, UNSAFE_DOWNGRADE, UPGRADE, feature_update
from kafka.clients.errors import KafkaError
from kafka.image.feature import PRODUCTION_FEATURES, feature_from_name
from kafka.image.metadata_version import FEATURE_NAME as METADATA_VERSION
from kafka.image.metadata_version import (
    LATEST_PRODUCTION,
    VERSIONS,
    from_feature_level,
    from_version_string,
    name_of,
)
from kafka.tools.command_line_utils import load_props
from kafka.utils.logging import configure_tool_logging
from kafka.utils.time import SYSTEM


class TerseError(Exception):
    """Kafka's TerseException: its message alone goes to standard error, and the tool exits 1."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-features",
                                description="This tool manages feature flags in Kafka.")
    connection = p.add_mutually_exclusive_group()
    connection.add_argument("--bootstrap-server", help="A comma-separated list of host:port pairs to use for "
                            "establishing the connection to the Kafka cluster.")
    connection.add_argument("--bootstrap-controller", help="A comma-separated list of host:port pairs to use "
                                                           "for establishing the connection to the KRaft "
                                                           "quorum.")
    p.add_argument("--command-config", help="Property file containing configs to be passed to Admin Client.")
    sub = p.add_subparsers(dest="command", required=True)
    describe = sub.add_parser("describe", help="Describes the current active feature flags.")
    describe.add_argument("--node-id", type=int, help="The node id to which the requests should be sent. If "
                          "not specified, the requests will be sent to an arbitrary controller/broker.")
    for name, verb in (("upgrade", "upgrade"), ("downgrade", "downgrade")):
        change = sub.add_parser(name, help=f"{verb.capitalize()} one or more feature flags.")
        change.add_argument("--metadata", help=f"DEPRECATED -- The level to which we should {verb} the "
                                               "metadata. For example, 3.3-IV3.")
        change.add_argument("--release-version", help=f"The release version to {verb} all features to. For "
                            "example, 3.9-IV0 will set metadata.version=21 and kraft.version=1.")
        change.add_argument("--feature", action="append", help=f"A feature {verb} we should perform, in "
                            "feature=level format. For example: `metadata.version=5`.")
        if name == "downgrade":
            change.add_argument("--unsafe", action="store_true",
                                help="Perform this downgrade even if it may irreversibly destroy metadata.")
        change.add_argument("--dry-run", action="store_true",
                            help=f"Validate this {verb}, but do not perform it.")
    disable = sub.add_parser("disable", help="Disable one or more feature flags. This is the same as "
                                             "downgrading the version to zero.")
    disable.add_argument("--feature", action="append", help="A feature flag to disable.")
    disable.add_argument("--unsafe", action="store_true",
                         help="Disable this feature flag even if it may irreversibly destroy metadata.")
    disable.add_argument("--dry-run", action="store_true",
                         help="Perform a dry-run of this disable operation.")
    add_lookup_parsers(sub)
    return p


def add_lookup_parsers(sub) -> None:
    """version-mapping and feature-dependencies, which kafka-storage has too."""
    mapping = sub.add_parser("version-mapping",
                             help="Look up the corresponding features for a given metadata "
                             "version. Using the command with no --release-version argument will return the "
                             "mapping for the latest stable metadata version")
    mapping.add_argument("--release-version", help="The release version to use for the corresponding feature "
                         f"mapping. The minimum is {VERSIONS[0]}; the default is {LATEST_PRODUCTION}")
    dependencies = sub.add_parser("feature-dependencies", help="Look up dependencies for a given feature "
                                  "version. If the feature is not known or the version not yet defined, an "
                                  "error is thrown. Multiple features can be specified.")
    dependencies.add_argument("--feature", action="append", required=True, help="The feature and version to "
                              "look up dependencies for, in feature=version format. For example: "
                              "`metadata.version=5`.")


def main(argv: list[str] | None = None) -> int:
    configure_tool_logging()
    args = build_parser().parse_args(argv)
    try:
        if args.command == "version-mapping":
            handle_version_mapping(args.release_version)
            return 0
        if args.command == "feature-dependencies":
            handle_feature_dependencies(args.feature)
            return 0
        if not args.bootstrap_server and not args.bootstrap_controller:
            raise TerseError("Command line error: You must specify either --bootstrap-controller or "
                             "--bootstrap-server.. Type --help for help.")
        with admin_for(args) as admin:
            if args.command == "describe":
                handle_describe(admin, args.node_id)
            elif args.command == "disable":
                handle_disable(admin, args)
            else:
                handle_upgrade_or_downgrade(admin, args)
        return 0
    except (TerseError, ValueError, KafkaError) as e:
        print(str(e), file=sys.stderr)
        return 1


def admin_for(args) -> AdminClient | ControllerAdmin:
    """A broker's admin client, or with --bootstrap-controller one that asks the quorum's leader (KIP-919)."""
    props = load_props(args.command_config) if args.command_config else {}
    if args.bootstrap_controller:
        return ControllerAdmin(args.bootstrap_controller, props, SYSTEM)
    return AdminClient({**props, "bootstrap.servers": args.bootstrap_server})


# ------------------------------------------------------------------ describe
def level_to_string(feature: str, level: int) -> str:
    return name_of(level) if feature == METADATA_VERSION else str(level)


def handle_describe(admin: AdminClient, node_id: int | None) -> None:
    if node_id is not None and node_id < 0:
        raise TerseError(f"Invalid node id {node_id}: must be non-negative.")
    features = admin.describe_features(node_id)
    epoch = "-" if features.finalized_epoch is None else str(features.finalized_epoch)
    for name in sorted(features.supported):
        low, high = features.supported[name]
        print(f"Feature: {name:<40}  SupportedMinVersion: {level_to_string(name, low):<15}  "
              f"SupportedMaxVersion: {level_to_string(name, high):<15}  "
              f"FinalizedVersionLevel: {level_to_string(name, features.finalized.get(name, 0)):<15}  "
              f"Epoch: {epoch}")


# ------------------------------------------------------------------ upgrade, downgrade, disable
def parse_name_and_level(text: str) -> tuple[str, int]:
    name, equals, level = text.partition("=")
    if not equals:
        raise TerseError(f"Can't parse feature=level string {text}: equals sign not found.")
    level = level.strip()
    try:
        value = int(level)
        if not -32768 <= value <= 32767:
            raise ValueError(level)
    except ValueError:
        raise TerseError(f"Can't parse feature=level string {text}: unable to parse {level} as a short.") \
            from None
    return name.strip(), value


def unknown_metadata_version(text: str) -> TerseError:
    return TerseError(f"Unknown metadata.version '{text}'. Supported metadata.version are: "
                      + ", ".join(str(v) for v in VERSIONS))


def handle_upgrade_or_downgrade(admin: AdminClient, args) -> None:
    op = args.command
    kind = UPGRADE if op == "upgrade" else UNSAFE_DOWNGRADE if args.unsafe else SAFE_DOWNGRADE
    if args.release_version is not None and (args.metadata is not None or args.feature):
        raise TerseError("Can not specify `release-version` with other feature flags.")
    updates: dict[str, tuple[int, int]] = {}
    if args.release_version is not None:
        try:
            version = from_version_string(args.release_version)
        except ValueError:
            raise unknown_metadata_version(args.release_version) from None
        updates[METADATA_VERSION] = feature_update(version.feature_level, kind)
        for feature in PRODUCTION_FEATURES:
            level = feature.default_level(version)
            if kind != UPGRADE or level > 0:
                updates[feature.name] = feature_update(level, kind)
    else:
        if args.metadata is not None:
            print(" `metadata` flag is deprecated and may be removed in a future release.")
            try:
                version = from_version_string(args.metadata)
            except ValueError:
                raise unknown_metadata_version(args.metadata) from None
            updates[METADATA_VERSION] = feature_update(version.feature_level, kind)
        for text in args.feature or []:
            name, level = parse_name_and_level(text)
            if name in updates:
                raise TerseError(f"Feature {name} was specified more than once.")
            updates[name] = feature_update(level, kind)
    update(op, admin, updates, args.dry_run)


def handle_disable(admin: AdminClient, args) -> None:
    kind = UNSAFE_DOWNGRADE if args.unsafe else SAFE_DOWNGRADE
    updates: dict[str, tuple[int, int]] = {}
    for name in args.feature or []:
        if name in updates:
            raise TerseError(f"Feature {name} was specified more than once.")
        updates[name] = (0, kind)
    update("disable", admin, updates, args.dry_run)


def update(op: str, admin: AdminClient, updates: dict[str, tuple[int, int]], dry_run: bool) -> None:
    """Kafka's FeatureCommand.update: one line a feature, in name order, then how many failed."""
    if not updates:
        raise TerseError(f"You must specify at least one feature to {op}")
    errors = admin.update_features(updates, validate_only=dry_run)
    failures = 0
    for name in sorted(errors):
        level = updates[name][0]
        error = errors[name]
        if error is not None:
            helper = "Can not " if dry_run else "Could not "
            suffix = f"disable {name}" if op == "disable" else f"{op} {name} to {level}"
            print(f"{helper}{suffix}. {error.message}")
            failures += 1
        else:
            verb = " can be " if dry_run else " was "
            done = "disabled." if op == "disable" else f"{op}d to {level}."
            print(f"{name}{verb}{done}")
    if failures:
        raise TerseError(f"{failures} out of {len(updates)} operation(s) failed.")


# ------------------------------------------------------------------ the table, with no broker
def handle_version_mapping(release_version: str | None) -> None:
    text = release_version if release_version is not None else str(LATEST_PRODUCTION)
    try:
        version = from_version_string(text)
    except ValueError:
        raise unknown_metadata_version(text) from None
    print(f"metadata.version={version.feature_level} ({text})")
    for feature in PRODUCTION_FEATURES:
        print(f"{feature.name}={feature.default_level(version)}")


def handle_feature_dependencies(arguments: list[str]) -> None:
    for text in arguments:
        name, level = parse_name_and_level(text)
        if name == METADATA_VERSION:
            try:
                version = from_feature_level(level)
            except ValueError:
                raise TerseError(f"Unknown metadata.version {level}") from None
            print(f"{name}={level} ({version}) has no dependencies.")
            continue
        try:
            feature = feature_from_name(name)
        except ValueError:
            raise TerseError(f"Unknown feature: {name}") from None
        dependencies = feature.from_feature_level(level).dependencies
        if not dependencies:
            print(f"{name}={level} has no dependencies.")
            continue
        print(f"{name}={level} requires:")
        for dependency, needed in dependencies.items():
            named = f" ({from_feature_level(needed)})" if dependency == METADATA_VERSION else ""
            print(f"    {dependency}={needed}{named}")


if __name__ == "__main__":
    sys.exit(main())
