"""kafka-configs: describe and alter client quotas, topic, broker and group configs (Kafka's
org.apache.kafka.tools.ConfigCommand, ``bin/kafka-configs.sh``), on AlterClientQuotas/DescribeClientQuotas
and IncrementalAlterConfigs/DescribeConfigs.

    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type clients --entity-name noisy \\
        --add-config producer_byte_rate=1048576
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type users --entity-default \\
        --add-config consumer_byte_rate=2097152,request_percentage=50
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type users --entity-name ANONYMOUS \\
        --entity-type clients --entity-name noisy --delete-config producer_byte_rate
    kafka-configs --bootstrap-server 127.0.0.1:9092 --describe --entity-type clients [--entity-name noisy]
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type topics --entity-name T \\
        --add-config retention.ms=60000
    kafka-configs --bootstrap-server 127.0.0.1:9092 --describe --entity-type topics --entity-name T [--all]
    kafka-configs --bootstrap-server 127.0.0.1:9092 --describe --entity-type brokers --entity-name 1 [--all]
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type brokers --entity-default \
        --add-config log.retention.ms=3600000
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type brokers --entity-name 1 \
        --add-config num.io.threads=16 --delete-config log.retention.ms
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type groups --entity-name G \
        --add-config share.auto.offset.reset=earliest
    kafka-configs --bootstrap-server 127.0.0.1:9092 --describe --entity-type groups --entity-name G [--all]
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type users --entity-name alice \
        --add-config 'SCRAM-SHA-512=[iterations=8192,password=alice-secret]'
    kafka-configs --bootstrap-server 127.0.0.1:9092 --alter --entity-type users --entity-name alice \
        --delete-config SCRAM-SHA-512

Prints what Kafka prints:

    Completed updating config for client noisy.
    Completed updating default config for users in the cluster.
    Quota configs for client-id 'noisy' are producer_byte_rate=1048576.0
    Quota configs for user-principal 'ANONYMOUS', the default client-id are consumer_byte_rate=1024.0
    Dynamic configs for topic T are:
      retention.ms=60000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=60000}
    Completed updating default config for brokers in the cluster.
    Default configs for brokers in the cluster are:
      log.retention.ms=3600000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=...
    All configs for broker 1 are:
      advertised.listeners=PLAINTEXT://127.0.0.1:9092 sensitive=false synonyms={STATIC_BROKER_CONFIG:...
    Dynamic configs for group G are:
      share.auto.offset.reset=earliest sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:share.auto.offset...
    SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=8192

A SCRAM password is salted here (random salt, PBKDF2) and only the salt and salted password are sent
(AlterUserScramCredentials). Without authentication every client's user is ANONYMOUS. A broker's
dynamic configs (KIP-226, docs/dynamic_configs.md) are altered as a topic's are, with
IncrementalAlterConfigs on the broker ("<id>") or the cluster default ("", --entity-default); a
--delete-config of a key not set is no error, as with Kafka 4.4's tool. IP quotas' tool is not built.
A group's configs (KIP-848/932) are any group's, existing or not: this broker has no ListConfigResources,
so a group is described even where Kafka's tool, asking a broker that has it, says the group "doesn't
exist and doesn't have dynamic config" (against this broker Kafka's tool describes it too).
"""

from __future__ import annotations

import argparse
import re
import sys
from decimal import Decimal

from kafka.clients.admin import BROKER_RESOURCE, DELETE, GROUP_RESOURCE, SET, TOPIC_RESOURCE, AdminClient
from kafka.clients.admin.list_config_resources import list_config_resources
from kafka.clients.errors import ConfigError, KafkaError
from kafka.security.scram_credential_parser import iterations_of, parse_scram_entries
from kafka.security.scram_formatter import ScramFormatter, secret_salt
from kafka.security.scram_mechanism import MECHANISM_NAMES, ScramMechanism
from kafka.tools.command_line_utils import java_hash_map_order, load_props, run

TOPICS, CLIENTS, USERS, BROKERS, GROUPS = "topics", "clients", "users", "brokers", "groups"
# the entity types whose configs are DescribeConfigs/IncrementalAlterConfigs resources, and the source
# of the configs set on the entity itself (what --describe shows without --all)
RESOURCE_TYPES = {TOPICS: TOPIC_RESOURCE, BROKERS: BROKER_RESOURCE, GROUPS: GROUP_RESOURCE}
QUOTA_ENTITY_TYPES = {USERS: "user", CLIENTS: "client-id"}
QUOTA_KEYS = ("consumer_byte_rate", "controller_mutation_rate", "producer_byte_rate", "request_percentage")
DESCRIBE_TYPE_LABELS = (("user", "user-principal"), ("client-id", "client-id"), ("ip", "ip"))
MATCH_EXACT, MATCH_DEFAULT, MATCH_SPECIFIED = 0, 1, 2
# DescribeConfigsResponse.ConfigSource by its id, named as Java's ConfigEntry.ConfigSource prints it
CONFIG_SOURCES = ("UNKNOWN", "DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG",
                  "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG",
                  "DYNAMIC_CLIENT_METRICS_CONFIG", "DYNAMIC_GROUP_CONFIG")
DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, GROUP_CONFIG = 1, 2, 3, 8
# Split `k1=v1,k2=[a,b],k3=v3` on the commas outside square brackets, as Kafka does.
_OUTSIDE_BRACKETS = r"(?=[^\]]*(?:\[|$))"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-configs",
                                description="Add/Remove entity config for a topic, client "
                                                                   "or user.")
    p.add_argument("--bootstrap-server", required=True,
                   help="the broker(s) to connect to, host:port[,host:port]")
    p.add_argument("--command-config", help="a properties file of admin client configs")
    action = p.add_mutually_exclusive_group(required=True)
    action.add_argument("--alter", action="store_true", help="alter the configuration for the entity")
    action.add_argument("--describe", action="store_true", help="list configs for the given entity")
    p.add_argument("--entity-type", action="append", default=[],
                   help="topics, brokers, clients, users or groups (repeatable: users and clients together)")
    # --entity-name and --entity-default share one list, so each pairs with the --entity-type at its position
    p.add_argument("--entity-name", dest="entity_names", action="append", default=[],
                   help="the entity's name")
    p.add_argument("--entity-default", dest="entity_names", action="append_const", const="",
                   help="the default entity of the type (brokers, clients and users)")
    p.add_argument("--all", action="store_true", help="with --describe of topics, brokers or groups: every "
                                                      "config, not only the dynamic ones")
    p.add_argument("--add-config", help="k1=v1,k2=[v1,v2],k3=v3")
    p.add_argument("--delete-config", action="append", default=[], help="k1,k2")
    for flag, entity_type in (("--topic", TOPICS), ("--client", CLIENTS), ("--user", USERS),
                              ("--broker", BROKERS), ("--group", GROUPS)):
        p.add_argument(flag, dest="flag_" + entity_type, help=f"shorthand for --entity-type {entity_type} "
                                                              "--entity-name ...")
    p.add_argument("--client-defaults", action="store_true", help="--entity-type clients --entity-default")
    p.add_argument("--user-defaults", action="store_true", help="--entity-type users --entity-default")
    p.add_argument("--broker-defaults", action="store_true", help="--entity-type brokers --entity-default")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    entity_types, entity_names = _entities(args)
    adds = parse_configs_to_be_added(args.add_config)
    deletes = [key.strip() for item in args.delete_config for key in item.split(",") if key.strip()]
    if entity_types == [CLIENT_METRICS]:  # KIP-714's subscriptions: docs/client_metrics.md
        return client_metrics_configs(args, entity_names, adds, deletes)
    _check_args(args, entity_types, entity_names, adds, deletes)
    with AdminClient({"bootstrap.servers": args.bootstrap_server,
                      **load_props(args.command_config)}) as admin:
        if entity_types[0] in RESOURCE_TYPES and args.alter:
            alter_resource_config(admin, entity_types[0], entity_names[0], adds, deletes)
        elif entity_types[0] in RESOURCE_TYPES:
            describe_resource_config(admin, entity_types[0], entity_names[0] if entity_names else None,
                                     args.all)
        elif args.alter:
            scram_adds = {k: v for k, v in adds.items() if k in MECHANISM_NAMES}
            scram_deletes = [k for k in deletes if k in MECHANISM_NAMES]
            if scram_adds or scram_deletes:
                alter_user_scram_credentials(admin, entity_types, entity_names, scram_adds, scram_deletes)
            quota_adds = {k: v for k, v in adds.items() if k not in MECHANISM_NAMES}
            quota_deletes = [k for k in deletes if k not in MECHANISM_NAMES]
            if quota_adds or quota_deletes:
                alter_quota_configs(admin, entity_types, entity_names, quota_adds, quota_deletes)
        else:
            describe_quota_configs(admin, entity_types, entity_names)
            if entity_types == [USERS] and entity_names:
                describe_user_scram_credentials(admin, entity_names[0])
    if args.alter:
        head_type, head_name = entity_types[0], entity_names[0]
        if head_name:
            print(f"Completed updating config for {head_type[:-1]} {head_name}.")
        else:
            print(f"Completed updating default config for {head_type} in the cluster.")
    return 0


def _entities(args) -> tuple[list[str], list[str]]:
    types, names = list(args.entity_type), list(args.entity_names)
    for entity_type in (TOPICS, CLIENTS, USERS, BROKERS, GROUPS):
        name = getattr(args, "flag_" + entity_type)
        if name is not None:
            types.append(entity_type)
            names.append(name)
    for flag, entity_type in ((args.client_defaults, CLIENTS), (args.user_defaults, USERS),
                              (args.broker_defaults, BROKERS)):
        if flag:
            types.append(entity_type)
            names.append("")
    return types, names


def _check_args(args, types: list[str], names: list[str], adds: dict[str, str], deletes: list[str]) -> None:
    """Kafka's ConfigCommandOptions.checkArgs, for the entity types this tool serves."""
    if not types:
        raise ConfigError("At least one entity type must be specified")
    if len(types) != len(set(types)):
        raise ConfigError("Duplicate entity type(s) specified: "
                          f"{','.join(t for t in set(types) if types.count(t) > 1)}")
    for entity_type in types:
        if entity_type not in (TOPICS, CLIENTS, USERS, BROKERS, GROUPS):
            raise ConfigError(f"Invalid entity type {entity_type}, the entity type must be one of "
                              f"{TOPICS}, {BROKERS}, {CLIENTS}, {USERS}, {GROUPS} with a --bootstrap-server "
                              "argument")
    if args.all and not (args.describe and types[0] in RESOURCE_TYPES):
        raise ConfigError("--all goes with --describe of topics, brokers or groups")
    if types[0] == BROKERS and any(name and not name.isdigit() for name in names):
        raise ConfigError(f"The entity name for {BROKERS} must be a valid integer broker id, but it is: "
                          f"{names[0]}")
    if len(types) > 1 and set(types) != {USERS, CLIENTS}:
        raise ConfigError(f"Only '{USERS}' and '{CLIENTS}' entity types may be specified together")
    if len(names) > len(types):
        raise ConfigError("More entity names specified than entity types")
    if args.describe and (adds or deletes):
        raise ConfigError("--add-config and --delete-config go with --alter, not --describe")
    if args.describe and types[0] in (TOPICS, GROUPS) and "" in names:
        raise ConfigError(f"--entity-default must not be specified with --describe of {','.join(types)}")
    if args.alter:
        if len(names) != len(types):
            raise ConfigError("An entity-name or default entity must be specified with --alter of users, "
                              "clients, brokers or ips" if types[0] not in (TOPICS, GROUPS) else
                              f"An entity name must be specified with --alter of {','.join(types)}")
        if types[0] in (TOPICS, GROUPS) and not names[0]:
            raise ConfigError(f"An entity name must be specified with --alter of {types[0]}")
        if not adds and not deletes:
            raise ConfigError("At least one of --add-config, --add-config-file, or --delete-config must be "
                              "specified with --alter")


def parse_configs_to_be_added(text: str | None) -> dict[str, str]:
    """`k1=v1,k2=[a,b]` -> {"k1": "v1", "k2": "a,b"} (Kafka's parseConfigsToBeAdded)."""
    if not text:
        return {}
    configs = {}
    for pair in re.split("," + _OUTSIDE_BRACKETS, text):
        parts = re.split(r"\s*=\s*" + _OUTSIDE_BRACKETS, pair)
        if len(parts) != 2:
            raise ConfigError('Invalid entity config: all configs to be added must be in the format '
                              '"key=val".')
        configs[parts[0].strip()] = re.sub(r"\[?\]?", "", parts[1]).strip()
    return configs


# ---------------------------------------------------------------------------------- client quotas

def _filter(types: list[str], names: list[str]) -> list[tuple[str, int, str | None]]:
    components = []
    for i, entity_type in enumerate(types):
        name = names[i] if i < len(names) else None
        if name is None:
            components.append((QUOTA_ENTITY_TYPES[entity_type], MATCH_SPECIFIED, None))
        elif name == "":
            components.append((QUOTA_ENTITY_TYPES[entity_type], MATCH_DEFAULT, None))
        else:
            components.append((QUOTA_ENTITY_TYPES[entity_type], MATCH_EXACT, name))
    return components


def alter_quota_configs(admin: AdminClient, types: list[str], names: list[str], adds: dict[str, str],
                        deletes: list[str]) -> None:
    """Kafka's alterQuotaConfigs: deletes must name quotas the entity has; values must be numbers."""
    unknown = [k for k in [*adds, *deletes] if k not in QUOTA_KEYS]
    if unknown:
        raise ConfigError(f"Only quota configs can be added for '{types[0]}' using --bootstrap-server. "
                          f"Unexpected config names: {','.join(unknown)}")
    current = next(iter(admin.describe_client_quotas(_filter(types, names), strict=True).values()), {})
    invalid = [k for k in deletes if k not in current]
    if invalid:
        raise ConfigError(f"Invalid config(s): {','.join(invalid)}")
    ops: dict[str, float | None] = {}
    for key, value in adds.items():
        try:
            ops[key] = float(value)
        except ValueError:
            raise ConfigError(f"Cannot parse quota configuration value for {key}: {value}") from None
    ops.update({key: None for key in deletes})
    entity = {QUOTA_ENTITY_TYPES[t]: (n or None) for t, n in zip(types, names, strict=True)}
    for error in admin.alter_client_quotas([(entity, ops)]):
        if error is not None:
            raise error


def describe_quota_configs(admin: AdminClient, types: list[str], names: list[str]) -> None:
    """One line per matching entity, as Kafka's describeQuotaConfigs prints it."""
    for entity, values in admin.describe_client_quotas(_filter(types, names), strict=True).items():
        parts = dict(entity)
        entity_str = ", ".join(f"{label} '{parts[t]}'" if parts[t] is not None else f"the default {label}"
                               for t, label in DESCRIBE_TYPE_LABELS if t in parts)
        values_str = ", ".join(f"{k}={java_double(v)}" for k, v in values.items())
        print(f"Quota configs for {entity_str} are {values_str}")


def java_double(value: float) -> str:
    """A double as Java's Double.toString writes it: 1048576.0, 0.5, 1.048576E7."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(float(value))
        return text if "e" not in text else format(value, "f")
    sign, digits, exponent = Decimal(repr(float(value))).normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    mantissa = mantissa[0] + "." + (mantissa[1:] or "0")
    return ("-" if sign else "") + f"{mantissa}E{len(digits) - 1 + exponent}"


# ---------------------------------------------------------------------------------- SCRAM credentials

def alter_user_scram_credentials(admin: AdminClient, types: list[str], names: list[str], adds: dict[str, str],
                                 deletes: list[str]) -> None:
    """Kafka's alterUserScramCredentialConfigs: one named user only; each add salted here."""
    if types != [USERS] or not names or not names[0]:
        raise ConfigError("SCRAM credentials can be altered only for one named user (--entity-type users "
                          "--entity-name NAME)")
    user, upsertions = names[0], []
    for mechanism_name, value in adds.items():
        try:
            (mechanism, options), = parse_scram_entries(f"{mechanism_name}=[{value}]")
            iterations = iterations_of(options)
        except ValueError as e:
            raise ConfigError(f"Invalid SCRAM credential {mechanism_name}: {e}") from None
        if not options.get("password"):
            raise ConfigError(f"Invalid SCRAM credential {mechanism_name}: password=... is required")
        salt = secret_salt()
        salted = ScramFormatter(mechanism).salted_password(options["password"], salt, iterations)
        upsertions.append((user, mechanism.type_id, iterations, salt, salted))
    deletions = [(user, ScramMechanism.for_name(m).type_id) for m in deletes]
    for error in admin.alter_user_scram_credentials(upsertions, deletions).values():
        if error is not None:
            raise error


def describe_user_scram_credentials(admin: AdminClient, user: str) -> None:
    try:
        credentials = admin.describe_user_scram_credentials([user]).get(user, {})
    except KafkaError:  # RESOURCE_NOT_FOUND: the user has no SCRAM credential, and Kafka prints nothing
        return
    infos = ",".join(f"{ScramMechanism.from_type(m).mechanism_name}=iterations={i}"
                     for m, i in sorted(credentials.items()))
    print(f"SCRAM credential configs for user-principal '{user}' are {infos}")


# ---------------------------------------------------------------------------------- topics and groups

def alter_resource_config(admin: AdminClient, entity_type: str, name: str, adds: dict[str, str],
                          deletes: list[str]) -> None:
    """Kafka 4.4's alterResourceConfig: the deletes, then the sets, in one IncrementalAlterConfigs (a delete
    of a key not set is no error: the broker finds nothing to delete, as Kafka's tool lets it)."""
    ops = [(k, DELETE, "") for k in deletes] + [(k, SET, v) for k, v in adds.items()]
    admin.incremental_alter_configs(RESOURCE_TYPES[entity_type], name, ops)


def _dynamic_source(entity_type: str, name: str) -> int:
    """Where the configs an entity sets itself come from (Kafka's describeConfigContext)."""
    if entity_type == BROKERS:
        return DYNAMIC_DEFAULT_BROKER_CONFIG if name == "" else DYNAMIC_BROKER_CONFIG
    return DYNAMIC_TOPIC_CONFIG if entity_type == TOPICS else GROUP_CONFIG


def describe_resource_config(admin: AdminClient, entity_type: str, name: str | None,
                             describe_all: bool) -> None:
    """Kafka's describeResourceConfig: the entity's dynamic configs (all of them with --all), sorted by
    name, each with its synonyms, the most specific first. Without a name: every topic, every group
    (ListGroups' order), or every broker and then the cluster-wide broker defaults."""
    if name is not None:
        names = [name]
    elif entity_type == TOPICS:  # listTopics' names: a Java HashMap's keys, in its order
        names = java_hash_map_order(sorted(admin.list_topics(include_internal=True)))
    elif entity_type == GROUPS:
        names = list(dict.fromkeys(group_id for group_id, _, _ in admin.list_groups()))
    else:
        names = [str(node.node_id) for node in admin.describe_cluster()[2]] + [""]
    for entity in names:
        if entity_type == TOPICS and name and entity not in admin.list_topics(include_internal=True):
            print(f"The topic '{entity}' doesn't exist and doesn't have dynamic config.")
            return
        if entity == "":
            print(f"Default configs for {entity_type} in the cluster are:")
        else:
            print(f"{'All' if describe_all else 'Dynamic'} configs for {entity_type[:-1]} {entity} are:")
        resource, dynamic = RESOURCE_TYPES[entity_type], _dynamic_source(entity_type, entity)
        for key, entry in sorted(admin.describe_configs(resource, entity, include_synonyms=True).items()):
            if describe_all or entry.source == dynamic:
                synonyms = ", ".join(f"{CONFIG_SOURCES[source]}:{n}={_java(v)}"
                                     for n, v, source in entry.synonyms)
                print(f"  {key}={_java(entry.value)} sensitive={_java(entry.sensitive)} "
                      f"synonyms={{{synonyms}}}")


def _java(value) -> str:
    """A value as Java's string concatenation writes it: null, true, false."""
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)

CLIENT_METRICS, CLIENT_METRICS_RESOURCE, CLIENT_METRICS_CONFIG = "client-metrics", 16, 7


def client_metrics_configs(args, names: list[str], adds: dict[str, str], deletes: list[str]) -> int:
    """--entity-type client-metrics (Kafka's ConfigCommand for a CLIENT_METRICS resource): alter one
    subscription's configs, or describe one or every subscription (ListConfigResources), as kafka-configs
    does a group's."""
    if args.alter and not (names and names[0]):
        raise ConfigError(f"An entity name must be specified with --alter of {CLIENT_METRICS}")
    config = {"bootstrap.servers": args.bootstrap_server, **load_props(args.command_config)}
    with AdminClient(config) as admin:
        if args.alter:
            current = admin.describe_configs(CLIENT_METRICS_RESOURCE, names[0])
            invalid = [k for k in deletes if k not in current or current[k].source != CLIENT_METRICS_CONFIG]
            if invalid:
                raise ConfigError(f"Invalid config(s): {','.join(invalid)}")
            ops = [(k, DELETE, "") for k in deletes] + [(k, SET, v) for k, v in adds.items()]
            admin.incremental_alter_configs(CLIENT_METRICS_RESOURCE, names[0], ops)
            print(f"Completed updating config for client-metric {names[0]}.")
            return 0
        entities = names[:1] or [n for _t, n in list_config_resources(admin, [CLIENT_METRICS_RESOURCE])]
        for entity in entities:
            print(f"{'All' if args.all else 'Dynamic'} configs for client-metric {entity} are:")
            described = admin.describe_configs(CLIENT_METRICS_RESOURCE, entity, include_synonyms=True)
            for key, entry in sorted(described.items()):
                if args.all or entry.source == CLIENT_METRICS_CONFIG:
                    synonyms = ", ".join(f"{CONFIG_SOURCES[source]}:{n}={_java(v)}"
                                         for n, v, source in entry.synonyms)
                    print(f"  {key}={_java(entry.value)} sensitive={_java(entry.sensitive)} "
                          f"synonyms={{{synonyms}}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
