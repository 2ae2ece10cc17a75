"""DynamicBrokerConfig with real collaborators (a LogManager on a temporary directory, a
KafkaRequestHandlerPool on a RequestChannel, a MetadataCache, MockTime): Kafka's checks and messages,
the precedence of the two dynamic levels over server.properties, and what the reconfigurables do."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kafka.log.log_manager import LogManager
from kafka.network.request_channel import RequestChannel
from kafka.server.broker_reconfigurables import BrokerDynamicThreadPool, DynamicLogConfig
from kafka.server.dynamic_broker_config import (
    ALL_DYNAMIC_CONFIGS,
    PER_BROKER_CONFIGS,
    DynamicConfigError,
    broker_config_synonyms,
    validate_configs,
)
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka.server.metadata_cache import Broker, MetadataCache
from kafka.server.server_log_configs import default_log_config
from kafka.utils.time import MockTime
from tests.helpers import wait_until

HOUR_MS = 3_600_000


@pytest.mark.parametrize("props, per_broker, message", [
    ({"log.dirs": "/x", "node.id": "2"}, True,
     "Cannot update these configs dynamically: [log.dirs, node.id]"),
    ({"ssl.keystore.location": "/k"}, True, "These security configs can be dynamically updated only "
     "per-listener using the listener prefix: [ssl.keystore.location]"),
    ({"num.io.threads": "many"}, True, "Invalid value many for configuration num.io.threads: Not a number "
                                       "of type INT"),
    ({"listener.name.ssl.num.io.threads": "0"}, True, "Invalid value 0 for configuration num.io.threads: "
                                                      "Value must be at least 1"),
    ({"message.max.bytes": "-1"}, True, "Invalid value -1 for configuration message.max.bytes: Value must "
                                        "be at least 0"),
    ({"listener.name.ssl.ssl.keystore.location": "/k", "listeners": "PLAINTEXT://:1"}, False,
     "Cannot update these configs at default cluster level, broker id must be specified: "
     "[listener.name.ssl.ssl.keystore.location, listeners]"),
])
def test_kafkas_checks_and_messages(props, per_broker, message):
    with pytest.raises(DynamicConfigError) as refused:
        validate_configs(props, per_broker)
    assert str(refused.value) == message


def test_what_may_change_and_where():
    validate_configs({"listener.name.ssl.max.connections": "10", "num.network.threads": "4",
                      "no.such.config": "anything"}, per_broker_config=False)  # cluster-wide, and custom
    assert "listener.name.ssl.ssl.keystore.location" not in PER_BROKER_CONFIGS  # a prefix: matched by pattern
    assert {"ssl.keystore.location", "listeners"} <= PER_BROKER_CONFIGS
    assert not {"num.network.threads", "max.connections", "log.retention.ms"} & PER_BROKER_CONFIGS
    assert {"log.retention.ms", "num.io.threads", "message.max.bytes"} <= ALL_DYNAMIC_CONFIGS
    assert broker_config_synonyms("log.retention.hours", True) == [
        "log.retention.ms", "log.retention.minutes", "log.retention.hours"]
    assert broker_config_synonyms("listener.name.ssl.max.connections", True) == [
        "listener.name.ssl.max.connections", "max.connections"]


class _Apis:
    def handle(self, request) -> None:
        pass

    def handle_error(self, request) -> None:
        pass


@pytest.fixture
def server(tmp_path):
    """The parts of a broker the log and thread-pool reconfigurables reach, real and started."""
    config = KafkaConfig({"node.id": "1", "log.dirs": str(tmp_path / "data"), "log.retention.hours": "168",
                          "num.io.threads": "4", "listeners": "PLAINTEXT://127.0.0.1:0"})
    time = MockTime()
    log_manager = LogManager([str(tmp_path / "data")], default_log_config(config), time, node_id=1,
                             cluster_id="c")
    log_manager.startup({})
    channel = RequestChannel(10)
    pool = KafkaRequestHandlerPool(channel, _Apis(), config.num_io_threads)
    pool.startup()
    server = SimpleNamespace(config=config, log_manager=log_manager, request_handler_pool=pool,
                             metadata_cache=MetadataCache("c", Broker(1, ())),
                             admin_manager=SimpleNamespace(), metadata_publisher=SimpleNamespace(),
                             request_channel=channel)
    yield server
    pool.shutdown()
    log_manager.shutdown()


def test_a_brokers_own_value_wins_over_the_cluster_default_which_wins_over_server_properties(server):
    dynamic = server.config.dynamic_config
    dynamic.add_broker_reconfigurable(DynamicLogConfig(server))
    log = server.log_manager.get_or_create_log("t", 0)
    assert log.config.retention_ms == 168 * HOUR_MS

    dynamic.update_default_config({"log.retention.ms": str(HOUR_MS)})
    assert log.config.retention_ms == HOUR_MS
    assert server.admin_manager.default_log_config.retention_ms == HOUR_MS  # new topics start from it
    dynamic.update_broker_config({"log.retention.ms": str(2 * HOUR_MS)})
    assert (log.config.retention_ms, server.config.log_retention_time_ms) == (2 * HOUR_MS, 2 * HOUR_MS)
    dynamic.update_broker_config({})
    assert log.config.retention_ms == HOUR_MS
    dynamic.update_default_config({})
    assert log.config.retention_ms == 168 * HOUR_MS
    assert server.log_manager.get_or_create_log("t", 1).config.retention_ms == 168 * HOUR_MS


def test_num_io_threads_resizes_the_pool_both_ways(server):
    dynamic = server.config.dynamic_config
    dynamic.add_broker_reconfigurable(BrokerDynamicThreadPool(server))
    pool = server.request_handler_pool

    def alive() -> int:
        return sum(h.is_alive() for h in pool.handlers) + sum(h.is_alive() for h in pool._retiring)

    dynamic.update_broker_config({"num.io.threads": "8"})
    assert len(pool.handlers) == 8 and server.config.num_io_threads == 8
    wait_until(lambda: alive() == 8, message="eight handlers")
    dynamic.update_broker_config({"num.io.threads": "4"})
    assert len(pool.handlers) == 4
    wait_until(lambda: alive() == 4, message="the four let go to stop")


def test_a_change_the_pool_refuses_changes_nothing(server):
    dynamic = server.config.dynamic_config
    dynamic.add_broker_reconfigurable(BrokerDynamicThreadPool(server))
    with pytest.raises(DynamicConfigError) as refused:
        dynamic.validate({"num.io.threads": "9"}, per_broker_config=True)
    assert str(refused.value) == (
        "Invalid value org.apache.kafka.common.config.ConfigException: Dynamic thread count update "
        "validation failed for num.io.threads=9, value should not be greater than double the current value "
        "4 for configuration Invalid dynamic configuration")
    assert len(server.request_handler_pool.handlers) == 4 and dynamic.dynamic_configs(True) == {}


def test_a_record_this_broker_may_not_take_is_ignored_and_the_rest_applied(server):
    """The controller wrote it (another broker checked it, or an older version did): logged and left out,
    as Kafka's fromPersistentProps does."""
    dynamic = server.config.dynamic_config
    dynamic.add_broker_reconfigurable(DynamicLogConfig(server))
    dynamic.update_default_config({"log.retention.ms": str(HOUR_MS), "log.dirs": "/elsewhere",
                                   "listener.name.x.ssl.key.password": "p"})
    assert dynamic.dynamic_configs(False) == {"log.retention.ms": str(HOUR_MS)}
    assert server.log_manager.get_or_create_log("t", 0).config.retention_ms == HOUR_MS
