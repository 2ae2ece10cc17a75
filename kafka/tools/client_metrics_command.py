"""kafka-client-metrics: list, describe, alter and delete client-metrics subscriptions (KIP-714; Kafka's
org.apache.kafka.tools.ClientMetricsCommand, ``bin/kafka-client-metrics.sh``).

    kafka-client-metrics --bootstrap-server 127.0.0.1:9092 --alter --name producers \\
        --metrics org.apache.kafka.producer. --interval 10000 --match client_software_name=apache-kafka-java
    kafka-client-metrics --bootstrap-server 127.0.0.1:9092 --list
    kafka-client-metrics --bootstrap-server 127.0.0.1:9092 --describe [--name producers]
    kafka-client-metrics --bootstrap-server 127.0.0.1:9092 --delete --name producers

A subscription is a CLIENT_METRICS config resource: --alter SETs the keys given (an empty value DELETEs
the key: `--interval ""`), --delete DELETEs every key, --list and --describe read ListConfigResources and
DescribeConfigs. Prints what Kafka's tool prints, a refusal too ("Error while executing client metrics
command : " and the broker's message, exit status 1):

    Altered client metrics config for producers.
    Client metrics configs for producers are:
      interval.ms=10000
      match=client_software_name=apache-kafka-java
      metrics=org.apache.kafka.producer.
"""

from __future__ import annotations

import argparse
import sys
import uuid

from kafka.clients.admin import DELETE, SET, AdminClient
from kafka.clients.admin.list_config_resources import list_config_resources
from kafka.clients.errors import ConfigError, KafkaError
from kafka.tools.command_line_utils import java_hash_map_order, load_props, run

CLIENT_METRICS_RESOURCE = 16
ACTIONS = ("alter", "delete", "describe", "list")
SELECTORS = ("client_instance_id", "client_id", "client_software_name", "client_software_version",
             "client_source_address", "client_source_port")


def parse_args(argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="kafka-client-metrics",
        description="This tool helps to manipulate and describe client metrics configurations.")
    parser.add_argument("--bootstrap-server", help="REQUIRED: The Kafka server to connect to.")
    parser.add_argument("--command-config",
                        help="Property file containing configs to be passed to Admin Client.")
    parser.add_argument("--list", action="store_true", help="List the client metrics resources.")
    parser.add_argument("--describe", action="store_true",
                        help="List configurations for the client metrics resource.")
    parser.add_argument("--alter", action="store_true",
                        help="Alter the configuration for the client metrics resource.")
    parser.add_argument("--delete", action="store_true",
                        help="Delete the configuration for the client metrics resource.")
    parser.add_argument("--name", help="Name of client metrics configuration resource.")
    parser.add_argument("--generate-name", action="store_true", help="Generate a UUID to use as the name.")
    parser.add_argument("--metrics", help="Telemetry metric name prefixes 'm1,m2'.")
    parser.add_argument("--interval",
                        help="The metrics push interval in milliseconds. Leave empty to reset the interval.")
    parser.add_argument("--match", help="Matching selector 'k1=v1,k2=v2'. The following is a list of valid "
                                        "selector names: " + ", ".join(SELECTORS))
    return parser.parse_args(argv)


def check_args(args: argparse.Namespace) -> None:
    """Kafka's ClientMetricsCommandOptions.checkArgs, with its messages."""
    if not args.bootstrap_server:
        raise ConfigError("--bootstrap-server must be specified.")
    if sum(getattr(args, action) for action in ACTIONS) != 1:
        raise ConfigError("Command must include exactly one action: --alter, --delete, --describe or --list.")
    if args.delete and not args.name:
        raise ConfigError("A client metrics resource name must be specified with --delete.")
    if args.alter and bool(args.name) == bool(args.generate_name):
        raise ConfigError("One of --name or --generate-name must be specified with --alter.")
    if args.interval:
        try:
            int(args.interval)
        except ValueError:
            raise ConfigError("Invalid interval value. Enter an integer, or leave empty to reset.") from None


def alter_client_metrics(admin: AdminClient, args: argparse.Namespace) -> None:
    name = str(uuid.uuid4()) if args.generate_name else args.name
    configs = {}
    if args.interval is not None:
        configs["interval.ms"] = args.interval
    if args.metrics is not None:
        configs["metrics"] = ",".join(_list(args.metrics))
    if args.match is not None:
        configs["match"] = ",".join(_list(args.match))
    ops = [(key, DELETE if value == "" else SET, value) for key, value in configs.items()]
    admin.incremental_alter_configs(CLIENT_METRICS_RESOURCE, name, ops)
    print(f"Altered client metrics config for {name}.")


def delete_client_metrics(admin: AdminClient, name: str) -> None:
    entries = admin.describe_configs(CLIENT_METRICS_RESOURCE, name)
    admin.incremental_alter_configs(CLIENT_METRICS_RESOURCE, name, [(key, DELETE, None) for key in entries])
    print(f"Deleted client metrics config for {name}.")


def describe_client_metrics(admin: AdminClient, name: str | None) -> None:
    existing = [n for _t, n in list_config_resources(admin, [CLIENT_METRICS_RESOURCE])]
    if name is not None and name not in existing:
        print(f"The client metric resource {name} doesn't exist and doesn't have dynamic config.")
        return
    for entity in [name] if name is not None else existing:
        print(f"Client metrics configs for {entity} are:")
        entries = admin.describe_configs(CLIENT_METRICS_RESOURCE, entity)
        for key in java_hash_map_order(list(entries)):  # a Config's entries: a HashMap's order
            print(f"  {key}={entries[key].value}")


def list_client_metrics(admin: AdminClient) -> None:
    print("\n".join(n for _t, n in list_config_resources(admin, [CLIENT_METRICS_RESOURCE])))


def _list(value: str) -> list[str]:
    """A joptsimple list option split on commas."""
    return value.split(",") if value else []


def _main(argv) -> int:
    args = parse_args(argv)
    check_args(args)
    config = {"bootstrap.servers": args.bootstrap_server, **load_props(args.command_config)}
    with AdminClient(config) as admin:
        try:
            if args.alter:
                alter_client_metrics(admin, args)
            elif args.delete:
                delete_client_metrics(admin, args.name)
            elif args.describe:
                describe_client_metrics(admin, args.name)
            else:
                list_client_metrics(admin)
        except KafkaError as e:  # the broker's refusal, as Kafka's printException writes it (stdout)
            print(f"Error while executing client metrics command : {e.message}")
            return 1
    return 0


def main(argv=None) -> int:
    return run(_main, argv)


if __name__ == "__main__":
    sys.exit(main())
