"""kafka-reassign-partitions: move partitions' replicas between brokers (Kafka's
org.apache.kafka.tools.reassign.ReassignPartitionsCommand, ``bin/kafka-reassign-partitions.sh``).

    kafka-reassign-partitions --bootstrap-server B --generate --topics-to-move-json-file topics.json \
        --broker-list 2,3
    kafka-reassign-partitions --bootstrap-server B --execute --reassignment-json-file plan.json
    kafka-reassign-partitions --bootstrap-server B --verify  --reassignment-json-file plan.json
    kafka-reassign-partitions --bootstrap-server B --list
    kafka-reassign-partitions --bootstrap-server B --cancel  --reassignment-json-file plan.json

The files are Kafka's: topics.json is {"version": 1, "topics": [{"topic": "orders"}]}, a plan is

    {"version": 1,
     "partitions": [{"topic": "orders", "partition": 0, "replicas": [2, 3], "log_dirs": ["any", "any"]}]}

--generate proposes a plan (Kafka's rack-unaware round robin, from the first broker, so the same
input always gives the same plan) and changes nothing; --execute starts it (AlterPartitionReassignments)
and prints the current assignment to keep for a rollback; the controller completes each partition
once its new replicas have caught up and joined the ISR, which --verify and --list show. Once no
reassignment of the plan is left, --verify clears the replication throttles of every broker and of
the plan's topics, as Kafka's does (unless --preserve-throttles).
"""

from __future__ import annotations

import argparse
import json
import sys

from kafka.clients.admin import BROKER_RESOURCE, DELETE, TOPIC_RESOURCE, AdminClient
from kafka.tools.command_line_utils import java_hash_map_order, load_props, run
from kafka.utils.topic_partition import TopicPartition

ACTIONS = ("generate", "execute", "verify", "list", "cancel")
BROKER_LEVEL_THROTTLES = ("leader.replication.throttled.rate", "follower.replication.throttled.rate",
                          "replica.alter.log.dirs.io.max.bytes.per.second")
TOPIC_LEVEL_THROTTLES = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafka-reassign-partitions",
                                description="Move partition replicas between brokers.")
    p.add_argument("--bootstrap-server", required=True)
    p.add_argument("--command-config", help="a properties file of admin client configs")
    action = p.add_mutually_exclusive_group(required=True)
    for name in ACTIONS:
        action.add_argument(f"--{name}", action="store_true")
    p.add_argument("--topics-to-move-json-file", help="--generate: the topics whose partitions to move")
    p.add_argument("--broker-list", help="--generate: the brokers to move them to, e.g. 1,2,3")
    p.add_argument("--reassignment-json-file", help="--execute, --verify, --cancel: the plan")
    p.add_argument("--disallow-replication-factor-change", action="store_true",
                   help="--execute: refuse a plan that changes a partition's replication factor (KIP-860)")
    p.add_argument("--preserve-throttles", action="store_true",
                   help="--verify: leave the throttles as they are")
    return p


def main(argv: list[str] | None = None) -> int:
    return run(_main, argv)


def _main(argv) -> int:
    args = build_parser().parse_args(argv)
    with AdminClient({"bootstrap.servers": args.bootstrap_server,
                      **load_props(args.command_config)}) as admin:
        if args.generate:
            return generate(admin, _required(args.topics_to_move_json_file, "--topics-to-move-json-file"),
                            _required(args.broker_list, "--broker-list"))
        if args.list:
            return list_reassignments(admin)
        plan = read_plan(_required(args.reassignment_json_file, "--reassignment-json-file"))
        if args.execute:
            return execute(admin, plan, not args.disallow_replication_factor_change)
        if args.verify:
            return verify(admin, plan, args.preserve_throttles)
        return cancel(admin, plan)


# ------------------------------------------------------------------ the actions
def generate(admin: AdminClient, topics_file: str, broker_list: str) -> int:
    with open(topics_file, encoding="utf-8") as f:
        topics = [t["topic"] for t in json.load(f)["topics"]]
    brokers = sorted(int(b) for b in broker_list.split(","))
    current = current_assignment(admin, topics)
    proposed = {}
    for topic in topics:
        partitions = sorted(tp for tp in current if tp.topic == topic)
        replication = len(current[partitions[0]]) if partitions else 0
        if replication > len(brokers):
            raise ValueError(f"--broker-list has {len(brokers)} brokers, fewer than the replication factor "
                             f"{replication} of {topic}")
        for tp, replicas in zip(partitions, assign_replicas(brokers, len(partitions), replication),
                                strict=True):
            proposed[tp] = replicas
    print("Current partition replica assignment")
    print(plan_json(current))
    print()
    print("Proposed partition reassignment configuration")
    print(plan_json(proposed))
    return 0


def execute(admin: AdminClient, plan: dict[TopicPartition, list[int]],
            allow_replication_factor_change: bool = True) -> int:
    current = current_assignment(admin, sorted({tp.topic for tp in plan}))
    print("Current partition replica assignment")
    print()
    print(plan_json({tp: current[tp] for tp in plan if tp in current}))
    print()
    print("Save this to use as the --reassignment-json-file option during rollback")
    results = admin.alter_partition_reassignments(plan, allow_replication_factor_change)
    _raise_failures(results, "reassign")
    print(f"Successfully started partition reassignments for {','.join(str(tp) for tp in sorted(plan))}")
    return 0


def verify(admin: AdminClient, plan: dict[TopicPartition, list[int]],
           preserve_throttles: bool = False) -> int:
    ongoing = admin.list_partition_reassignments(list(plan))
    current = current_assignment(admin, sorted({tp.topic for tp in plan}))
    print("Status of partition reassignment:")
    for tp in sorted(plan):
        if tp in ongoing:
            print(f"Reassignment of partition {tp} is still in progress.")
        elif current.get(tp) == plan[tp]:
            print(f"Reassignment of partition {tp} is completed.")
        else:
            print(f"There is no active reassignment of partition {tp}, but replica set is "
                  f"{','.join(map(str, current.get(tp, [])))} rather than {','.join(map(str, plan[tp]))}.")
    print()  # Kafka's status of log directory moves: none are built here
    if not ongoing and not preserve_throttles:
        clear_all_throttles(admin, plan)
    return 0


def clear_all_throttles(admin: AdminClient, plan: dict[TopicPartition, list[int]]) -> None:
    """Kafka's clearAllThrottles: every broker's, and the plan's topics' (Java HashSets, printed in
    their order: small broker ids ascending, topic names by hash)."""
    brokers = sorted({node.node_id for node in admin.describe_cluster()[2]} | {b for r in plan.values()
                                                                               for b in r})
    print(f"Clearing broker-level throttles on broker{'' if len(brokers) == 1 else 's'} "
          f"{','.join(map(str, brokers))}")
    for broker in brokers:
        admin.incremental_alter_configs(BROKER_RESOURCE, str(broker),
                                        [(k, DELETE, None) for k in BROKER_LEVEL_THROTTLES])
    topics = java_hash_map_order(list(dict.fromkeys(tp.topic for tp in plan)))
    print(f"Clearing topic-level throttles on topic{'' if len(topics) == 1 else 's'} {','.join(topics)}")
    for topic in topics:
        admin.incremental_alter_configs(TOPIC_RESOURCE, topic,
                                        [(k, DELETE, None) for k in TOPIC_LEVEL_THROTTLES])


def list_reassignments(admin: AdminClient) -> int:
    ongoing = admin.list_partition_reassignments()
    if not ongoing:
        print("No partition reassignments found.")
        return 0
    print("Current partition reassignments:")
    for tp, r in sorted(ongoing.items()):
        print(f"{tp}: replicas: {_ids(r.replicas)}. adding: {_ids(r.adding_replicas)}. "
              f"removing: {_ids(r.removing_replicas)}.")
    return 0


def cancel(admin: AdminClient, plan: dict[TopicPartition, list[int]]) -> int:
    results = admin.alter_partition_reassignments({tp: None for tp in plan})
    _raise_failures(results, "cancel the reassignment of")
    print(f"Successfully cancelled partition reassignments for: {','.join(str(tp) for tp in sorted(plan))}")
    return 0


# ------------------------------------------------------------------ helpers
def assign_replicas(brokers: list[int], partitions: int, replication: int, start: int = 0,
                    shift: int = 0) -> list[list[int]]:
    """Kafka's rack-unaware assignment: partition p's first replica is broker (p + start) % n; the
    others follow at a distance that grows by one every n partitions, so leaders and followers
    spread evenly. Kafka draws start and shift at random; 0 keeps a plan reproducible."""
    n = len(brokers)
    result = []
    for p in range(partitions):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start) % n
        replicas = [brokers[first]]
        for j in range(replication - 1):
            replicas.append(brokers[(first + 1 + (shift + j) % (n - 1)) % n])
        result.append(replicas)
    return result


def current_assignment(admin: AdminClient, topics: list[str]) -> dict[TopicPartition, list[int]]:
    return {TopicPartition(name, p.partition): list(p.replicas)
            for name, desc in sorted(admin.describe_topics(topics).items()) for p in desc.partitions}


def read_plan(path: str) -> dict[TopicPartition, list[int]]:
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    return {TopicPartition(p["topic"], int(p["partition"])): [int(r) for r in p["replicas"]]
            for p in document["partitions"]}


def plan_json(assignment: dict[TopicPartition, list[int]]) -> str:
    return json.dumps({"version": 1, "partitions": [
        {"topic": tp.topic, "partition": tp.partition, "replicas": replicas,
         "log_dirs": ["any"] * len(replicas)}
        for tp, replicas in sorted(assignment.items())]}, separators=(",", ":"))


def _raise_failures(results: dict, what: str) -> None:
    failed = {tp: error for tp, error in results.items() if error is not None}
    if failed:
        details = "; ".join(f"{tp}: {error}" for tp, error in sorted(failed.items()))
        raise ValueError(f"could not {what} {len(failed)} partition(s): {details}")


def _ids(replicas: list[int]) -> str:
    return ",".join(map(str, replicas))


def _required(value, flag: str):
    if value is None:
        raise ValueError(f"missing required argument {flag}")
    return value


if __name__ == "__main__":
    sys.exit(main())
