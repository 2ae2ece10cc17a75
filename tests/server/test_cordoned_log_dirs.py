"""Cordoned log directories (KIP-1066) on the broker: `cordoned.log.dirs` checked as Kafka's KafkaConfig
checks it, the LogManager keeping new partitions out of cordoned directories (unless every one is), and
the BrokerLifecycleManager registering the directories' ids and carrying the cordoned ones in its
heartbeats only once metadata.version 4.3-IV0 is finalized. Real LogManagers on temporary directories, a
real MetadataCache, MockTime."""

from __future__ import annotations

import os

import pytest

from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka.server.config_def import ConfigError
from kafka.server.dynamic_broker_config import DynamicConfigError
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata_cache import Broker, MetadataCache
from kafka.utils.time import MockTime
from tests.server.test_broker_lifecycle_manager import SentRequests


@pytest.mark.parametrize("cordoned, problem", [
    ("/data/c", "requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or "
                "log.dir. Missing entries : /data/c"),
    ("*,/data/a", "requirement failed: When cordoned.log.dirs is set to *, it must not contain other values"),
])
def test_cordoned_log_dirs_must_name_entries_of_log_dirs(cordoned, problem):
    with pytest.raises(ConfigError) as e:
        KafkaConfig({"log.dirs": "/data/a,/data/b", "cordoned.log.dirs": cordoned})
    assert str(e.value) == problem


def test_a_star_cordons_every_log_dir():
    config = KafkaConfig({"log.dirs": "/data/a,/data/b", "cordoned.log.dirs": "*"})
    assert config.cordoned_log_dirs == ["*"] and config.cordoned_log_dir_paths() == ["/data/a", "/data/b"]
    assert KafkaConfig({}).cordoned_log_dirs == []


def log_manager(tmp_path, cordoned=()) -> LogManager:
    dirs = [str(tmp_path / name) for name in ("a", "b", "c")]
    manager = LogManager(dirs, LogConfig(), MockTime(), node_id=1, cordoned_log_dirs=[tmp_path / c
                                                                                      for c in cordoned])
    manager.startup()
    return manager


def parents(manager: LogManager) -> set[str]:
    return {os.path.basename(os.path.dirname(log.dir)) for log in manager.all_logs()}


def test_new_partitions_stay_out_of_cordoned_directories(tmp_path):
    manager = log_manager(tmp_path, cordoned=["a", "b"])
    for p in range(4):
        manager.get_or_create_log("orders", p)
    assert parents(manager) == {"c"}
    manager.update_cordoned_log_dirs([tmp_path / "c"])  # a dynamic change: the next ones go elsewhere
    for p in range(4, 8):
        manager.get_or_create_log("orders", p)
    assert parents(manager) == {"a", "b", "c"}
    manager.shutdown()


def test_with_every_directory_cordoned_the_first_takes_new_partitions(tmp_path):
    manager = log_manager(tmp_path, cordoned=["a", "b", "c"])
    manager.get_or_create_log("orders", 0)
    manager.get_or_create_log("orders", 1)
    assert parents(manager) == {"a"}  # Kafka's nextLogDirs: the first live directory
    manager.shutdown()


def test_the_lifecycle_manager_registers_directory_ids_and_heartbeats_cordoned_ones_from_4_3_iv0(tmp_path):
    manager = log_manager(tmp_path, cordoned=["b"])
    ids = manager.directory_ids()
    assert len(ids) == 3 and manager.cordoned_directory_ids() == [ids[1]]
    config = KafkaConfig({"node.id": "4", "process.roles": "broker",
                          "controller.listener.names": "CONTROLLER",
                          "controller.quorum.voters": "1@127.0.0.1:9093"})
    channel, cache = SentRequests(), MetadataCache("cluster", Broker(4, ()))
    lifecycle = BrokerLifecycleManager(config, MockTime(), channel, "cluster",
                                       highest_metadata_offset=lambda: 0, features=[])
    lifecycle.use_log_dirs(manager, cache)
    lifecycle.listeners = []
    lifecycle._send_broker_registration()
    assert channel.sent[-1][1]["log_dirs"] == ids
    lifecycle.broker_epoch = 7
    cache.finalized_features = {"metadata.version": 29}  # 4.2-IV1: not a word about cordoning
    lifecycle._send_broker_heartbeat()
    assert "cordoned_log_dirs" not in channel.sent[-1][1]
    cache.finalized_features = {"metadata.version": 30}  # 4.3-IV0
    lifecycle._send_broker_heartbeat()
    assert channel.sent[-1][1]["cordoned_log_dirs"] == [ids[1]]
    lifecycle.propagate_directory_cordoned([])  # uncordoned dynamically: the next heartbeat, sent at once
    assert lifecycle._next_attempt_ms == 0
    lifecycle._send_broker_heartbeat()
    assert channel.sent[-1][1]["cordoned_log_dirs"] == []
    manager.shutdown()


def test_a_dynamic_value_outside_log_dirs_is_refused_in_kafkas_bare_words():
    """Kafka's KafkaConfig refuses it with Scala's require (an IllegalArgumentException):
    IncrementalAlterConfigs answers those words alone, not wrapped as an invalid dynamic configuration."""
    config = KafkaConfig({"log.dirs": "/data/a,/data/b"})
    config.dynamic_config.validate({"cordoned.log.dirs": "/data/b"}, per_broker_config=True)
    with pytest.raises(DynamicConfigError) as e:
        config.dynamic_config.validate({"cordoned.log.dirs": "/data/c"}, per_broker_config=True)
    assert str(e.value) == ("requirement failed: All entries in cordoned.log.dirs must be present in "
                            "log.dirs or log.dir. Missing entries : /data/c")
