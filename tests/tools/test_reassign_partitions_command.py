"""kafka-reassign-partitions' plans: Kafka's JSON both ways, and the rack-unaware round robin that
--generate proposes (the cluster test runs --execute, --verify and --list against three nodes)."""

from __future__ import annotations

import json

from kafka.tools.reassign_partitions_command import assign_replicas, build_parser, plan_json, read_plan
from kafka.utils.topic_partition import TopicPartition


def test_round_robin_spreads_leaders_and_followers():
    plan = assign_replicas([1, 2, 3], partitions=6, replication=2)
    assert plan == [[1, 2], [2, 3], [3, 1], [1, 3], [2, 1], [3, 2]]
    assert sorted(p[0] for p in plan) == [1, 1, 2, 2, 3, 3], "each broker leads as many"


def test_a_plan_survives_a_round_trip_through_kafkas_json(tmp_path):
    plan = {TopicPartition("orders", 1): [3, 1], TopicPartition("orders", 0): [2, 3]}
    text = plan_json(plan)
    assert json.loads(text)["partitions"][0] == {"topic": "orders", "partition": 0, "replicas": [2, 3],
                                                 "log_dirs": ["any", "any"]}
    path = tmp_path / "plan.json"
    path.write_text(text)
    assert read_plan(str(path)) == plan


def test_execute_may_disallow_a_replication_factor_change():
    """KIP-860's flag, as Kafka's tool names it: --execute then sends AlterPartitionReassignments v1 with
    AllowReplicationFactorChange false (the controller's refusal: test_partition_reassignment.py)."""
    args = build_parser().parse_args(["--bootstrap-server", "b:9092", "--execute", "--reassignment-json-file",
                                      "plan.json", "--disallow-replication-factor-change"])
    assert args.execute and args.disallow_replication_factor_change
    listing = build_parser().parse_args(["--bootstrap-server", "b:9092", "--list"])
    assert not listing.disallow_replication_factor_change
