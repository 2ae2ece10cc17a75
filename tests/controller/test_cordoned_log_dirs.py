"""Cordoned log directories (KIP-1066) on a QuorumController over real records: a broker registers its
directories, a heartbeat from metadata.version 4.3-IV0 on says which are cordoned (a
BrokerRegistrationChangeRecord, version 3, that the standby and the MetadataImage replay), new replicas
stay off a broker whose every directory is cordoned, by placement and by a manual assignment, with Kafka's
words; below 4.3-IV0 the heartbeat's directories are not heard, and `cordoned.log.dirs` cannot be set."""

from __future__ import annotations

import uuid

from kafka.controller.configuration_control_manager import (
    DISABLED_CORDONED_LOG_DIRS,
    INVALID_CORDONED_LOG_DIRS,
)
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, deserialize
from tests.controller.metadata_version_cluster import ClusterAt
from tests.controller.test_acl_control_manager import image_of
from tests.controller.test_quorum_controller import CLUSTER, record

BELOW, AT = 29, 30  # 4.2-IV1, 4.3-IV0
SET, BROKER = 0, 4


def registration(broker_id: int, dirs: list[uuid.UUID]):
    return record(broker_id=broker_id, cluster_id=CLUSTER, incarnation_id=uuid.uuid4(), rack=None,
                  listeners=[record(name="PLAINTEXT", host="127.0.0.1", port=9090 + broker_id,
                                    security_protocol=0)],
                  features=[record(name="metadata.version", min_supported_version=7,
                                   max_supported_version=33)],
                  log_dirs=dirs)


def heartbeat(cluster, broker_id: int, epoch: int, cordoned=None):
    return cluster.call(cluster.active.process_broker_heartbeat(record(
        broker_id=broker_id, broker_epoch=epoch, current_metadata_offset=cluster.raft.committed,
        want_fence=False, want_shut_down=False, offline_log_dirs=[], cordoned_log_dirs=cordoned)))


def start_broker(cluster, broker_id: int, dirs: list[uuid.UUID]) -> int:
    epoch = cluster.call(cluster.active.register_broker(registration(broker_id, dirs)))["broker_epoch"]
    assert heartbeat(cluster, broker_id, epoch)["is_fenced"] is False
    return epoch


def written(cluster, type_: MetadataRecordType):
    return [r for r in map(deserialize, cluster.raft.entries[:cluster.raft.committed]) if r.type == type_]


def test_a_heartbeat_cordons_directories_and_the_registration_records_carry_them():
    cluster = ClusterAt(AT)
    d1, d2 = uuid.uuid4(), uuid.uuid4()
    epoch = start_broker(cluster, 1, [d1, d2])
    [registered] = written(cluster, MetadataRecordType.REGISTER_BROKER_RECORD)
    assert registered.version == 4 and registered.data.log_dirs == [d1, d2]
    assert registered.data.cordoned_log_dirs is None  # nothing said yet
    heartbeat(cluster, 1, epoch, cordoned=[d1])
    change = written(cluster, MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD)[-1]
    assert (change.version, change.data.cordoned_log_dirs) == (3, [d1])
    assert cluster.standby.cluster.brokers[1].cordoned_directories == (d1,)
    broker = image_of(cluster).cluster.broker(1)
    assert broker.cordoned_directories == (d1,) and broker.has_uncordoned_dirs()
    count = len(cluster.raft.entries)
    heartbeat(cluster, 1, epoch, cordoned=[d1])  # the same set again: nothing written
    assert len(cluster.raft.entries) == count


def test_a_broker_whose_every_directory_is_cordoned_gets_no_new_replica():
    cluster = ClusterAt(AT)
    one, two = [uuid.uuid4()], [uuid.uuid4(), uuid.uuid4()]
    epoch = start_broker(cluster, 1, one)
    start_broker(cluster, 2, two)
    heartbeat(cluster, 1, epoch, cordoned=one)
    assert cluster.active.cluster.usable_brokers() == {2: None}
    topic = cluster.create_topic("orders", 3, 2)
    assert topic["error_code"] == Errors.INVALID_REPLICATION_FACTOR
    assert topic["error_message"] == (
        "Unable to replicate the partition 2 time(s): The target replication factor of 2 cannot be reached "
        "because only 1 broker(s) are registered or some brokers have all their log directories cordoned.")
    assert cluster.create_topic("payments", 3, 1)["error_code"] == Errors.NONE
    placed = {r.data.replicas[0] for r in written(cluster, MetadataRecordType.PARTITION_RECORD)}
    assert placed == {2}
    manual = record(name="manual", num_partitions=-1, replication_factor=-1, configs=[],
                    assignments=[record(partition_index=0, broker_ids=[1])])
    created = cluster.call(cluster.active.create_topics(record(topics=[manual], validate_only=False)))
    [result] = created["topics"]
    assert (result["error_code"], result["error_message"]) == (
        Errors.INVALID_REPLICA_ASSIGNMENT,
        "The manual partition assignment includes broker 1, but all its log directories are cordoned.")
    heartbeat(cluster, 1, epoch, cordoned=[])  # uncordoned: placed on again
    assert cluster.active.cluster.usable_brokers() == {1: None, 2: None}


def test_below_4_3_iv0_the_heartbeats_directories_are_not_heard():
    cluster = ClusterAt(BELOW)
    d1 = uuid.uuid4()
    epoch = start_broker(cluster, 1, [d1])
    [registered] = written(cluster, MetadataRecordType.REGISTER_BROKER_RECORD)
    assert registered.version == 3  # the directories, no cordoned ones
    count = len(cluster.raft.entries)
    heartbeat(cluster, 1, epoch, cordoned=[d1])
    assert len(cluster.raft.entries) == count
    assert cluster.active.cluster.usable_brokers() == {1: None}


def alter(cluster, value, forwarded=True, name="1"):
    op = dict(name="cordoned.log.dirs", config_operation=SET, value=value)
    request = record(resources=[record(resource_type=BROKER, resource_name=name, configs=[op])],
                     validate_only=False)
    [response] = cluster.call(cluster.active.incremental_alter_configs(request, forwarded))["responses"]
    return response["error_code"], response["error_message"]


def test_cordoned_log_dirs_needs_4_3_iv0_and_through_a_controller_may_only_shrink():
    assert alter(ClusterAt(BELOW), "/data/a") == (Errors.INVALID_CONFIG, DISABLED_CORDONED_LOG_DIRS)
    assert DISABLED_CORDONED_LOG_DIRS.endswith("requires metadata.version >= 4.3-IV0")
    cluster = ClusterAt(AT)
    assert alter(cluster, "/data/a,/data/b") == (Errors.NONE, None)  # a broker checked it against log.dirs
    assert alter(cluster, "/data/a,/data/c", forwarded=False) == (Errors.INVALID_CONFIG,
                                                                  INVALID_CORDONED_LOG_DIRS)
    assert alter(cluster, "/data/b", forwarded=False) == (Errors.NONE, None)
    assert cluster.active.configs.config_props(BROKER, "1") == {"cordoned.log.dirs": "/data/b"}
