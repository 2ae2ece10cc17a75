"""kafka-transactions: list, describe and abort transactions, describe a partition's producers
(Kafka's org.apache.kafka.tools.TransactionsCommand, ``bin/kafka-transactions.sh``), on the AdminClient.

    kafka-transactions --bootstrap-server 127.0.0.1:9092 list [--duration-filter MS]
    kafka-transactions --bootstrap-server 127.0.0.1:9092 describe --transactional-id ID
    kafka-transactions --bootstrap-server 127.0.0.1:9092 describe-producers --topic T --partition P
    kafka-transactions --bootstrap-server 127.0.0.1:9092 abort --topic T --partition P --start-offset N

Seed 000: the coordinators append through ReplicaManager, and these are the views of what the
transaction coordinator appended: ``list`` asks every broker (each coordinates the ids of the
__transaction_state partitions it leads), ``describe`` the id's coordinator, ``describe-producers``
the partition's leader. ``abort`` writes an ABORT marker for a hanging transaction straight to the
partition's leader (KIP-664). Tables are Kafka's: each column padded to its widest value, a tab
after every column.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.tools.command_line_utils import load_props, pretty_print_table
from kafka.utils.logging import configure_logging
from kafka.utils.topic_partition import TopicPartition


class CommandError(Exception):
    """Printed on stderr with exit status 1, as Kafka's printErrorAndExit."""


def list_transactions(admin: AdminClient, args: argparse.Namespace) -> None:
    try:
        by_broker = admin.list_transactions(args.duration_filter if args.duration_filter is not None else -1,
                                            transactional_id_pattern=args.transactional_id_pattern)
    except KafkaError as e:
        raise CommandError(f"Failed to list transactions: {e}") from None
    rows = [[t.transactional_id, str(broker_id), str(t.producer_id), t.state]
            for broker_id, listings in by_broker.items() for t in listings]
    pretty_print_table(["TransactionalId", "Coordinator", "ProducerId", "TransactionState"], rows)


def describe_transaction(admin: AdminClient, args: argparse.Namespace) -> None:
    transactional_id = args.transactional_id
    try:
        d = admin.describe_transactions([transactional_id])[transactional_id]
    except KafkaError as e:
        raise CommandError(f"Failed to describe transaction state of transactional-id `{transactional_id}`: "
                           f"{e}") from None
    start = "None" if d.transaction_start_time_ms is None else str(d.transaction_start_time_ms)
    duration = "None" if d.transaction_start_time_ms is None else \
        str(int(time.time() * 1000) - d.transaction_start_time_ms)
    pretty_print_table(
        ["CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState",
         "TransactionTimeoutMs", "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"],
        [[str(d.coordinator_id), transactional_id, str(d.producer_id), str(d.producer_epoch), d.state,
          str(d.transaction_timeout_ms), start, duration, ",".join(str(tp) for tp in d.topic_partitions)]])


def describe_producers(admin: AdminClient, args: argparse.Namespace) -> None:
    tp = TopicPartition(args.topic, args.partition)
    try:
        producers = admin.describe_producers([tp])[tp]
    except KafkaError as e:
        raise CommandError(f"Failed to describe producers for partition {tp} on leader: {e}") from None
    pretty_print_table(
        ["ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
         "CurrentTransactionStartOffset"],
        [[str(p.producer_id), str(p.producer_epoch),
          str(p.coordinator_epoch if p.coordinator_epoch is not None else -1),
          str(p.last_sequence), str(p.last_timestamp),
          "None" if p.current_transaction_start_offset is None else str(p.current_transaction_start_offset)]
         for p in producers])


def abort_transaction(admin: AdminClient, args: argparse.Namespace) -> None:
    tp = TopicPartition(args.topic, args.partition)
    if args.start_offset is None and args.producer_id is None:
        raise CommandError("The transaction to abort must be identified either with --start-offset (for "
                           "brokers on 3.0 or above) or with --producer-id, --producer-epoch, and "
                           "--coordinator-epoch (for older brokers)")
    if args.start_offset is not None:
        try:
            producers = admin.describe_producers([tp])[tp]
        except KafkaError as e:
            raise CommandError(f"Failed to validate producer state for partition {tp}: {e}") from None
        found = [p for p in producers if p.current_transaction_start_offset == args.start_offset]
        if not found:
            raise CommandError(f"Could not find any open transactions starting at offset {args.start_offset} "
                               f"on partition {tp}")
        producer_id, producer_epoch = found[0].producer_id, found[0].producer_epoch
        coordinator_epoch = found[0].coordinator_epoch or 0
    else:
        if args.producer_epoch is None:
            raise CommandError("Missing required argument --producer-epoch")
        if args.coordinator_epoch is None:
            raise CommandError("Missing required argument --coordinator-epoch")
        producer_id, producer_epoch = args.producer_id, args.producer_epoch
        coordinator_epoch = max(args.coordinator_epoch, 0)  # -1: never committed; 0 is <= any leader epoch
    try:
        admin.abort_transaction(tp, producer_id, producer_epoch, coordinator_epoch)
    except KafkaError as e:
        raise CommandError(f"Failed to abort transaction AbortTransactionSpec(topicPartition={tp}, "
                           f"producerId={producer_id}, producerEpoch={producer_epoch}, "
                           f"coordinatorEpoch={coordinator_epoch}): {e}") from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kafka-transactions",
                                     description="This tool is used to analyze the transactional state of "
                                                 "producers in the cluster. It can be used to detect and "
                                                 "recover from hanging transactions.")
    parser.add_argument("--bootstrap-server", required=True,
                        help="hostname and port for the broker to connect to")
    parser.add_argument("--command-config",
                        help="property file containing configs to be passed to admin client")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="list transactions")
    listing.add_argument("--duration-filter", type=int,
                         help="Duration (in millis) to filter by: if < 0, all transactions will be returned; "
                              "otherwise, only transactions running longer than this duration will be "
                              "returned")
    listing.add_argument("--transactional-id-pattern",
                         help="Transactional id regular expression pattern to filter by")
    describe = commands.add_parser("describe", help="describe the state of an active transactional-id")
    describe.add_argument("--transactional-id", required=True, help="transactional id")
    producers = commands.add_parser("describe-producers",
                                    help="describe the states of active producers for a "
                                    "topic partition")
    producers.add_argument("--broker-id", type=int, help="accepted; the partition's leader is asked")
    producers.add_argument("--topic", required=True, help="topic name")
    producers.add_argument("--partition", type=int, required=True, help="partition number")
    abort = commands.add_parser("abort",
                                help="abort a hanging transaction (requires administrative privileges)")
    abort.add_argument("--topic", required=True, help="topic name")
    abort.add_argument("--partition", type=int, required=True, help="partition number")
    abort.add_argument("--start-offset", type=int, help="start offset of the transaction to abort")
    abort.add_argument("--producer-id", type=int, help="producer id")
    abort.add_argument("--producer-epoch", type=int, help="producer epoch")
    abort.add_argument("--coordinator-epoch", type=int, help="coordinator epoch")
    return parser.parse_args(argv)


COMMANDS = {"list": list_transactions, "describe": describe_transaction,
            "describe-producers": describe_producers,
            "abort": abort_transaction}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not structlog.is_configured():  # run from a shell: client log lines must not mix with the tables
        configure_logging("console", logging.WARNING, sys.stderr)
    try:
        with AdminClient({"bootstrap.servers": args.bootstrap_server,
                          **load_props(args.command_config)}) as admin:
            COMMANDS[args.command](admin, args)
    except CommandError as e:
        print(str(e), file=sys.stderr)
        return 1
    except (KafkaError, OSError, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
