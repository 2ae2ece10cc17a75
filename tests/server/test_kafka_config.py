"""KafkaConfig's keys: each declared once (AbstractKafkaConfig) with its Kafka type, and read as a
typed attribute of the class; a mistyped attribute, an unknown key or a bad value fails at once."""

from __future__ import annotations

import pytest

from kafka.server.abstract_kafka_config import CONFIG_KEYS, AbstractKafkaConfig, config_def_type_of
from kafka.server.config_def import BOOLEAN, INT, LIST, LONG, SHORT, ConfigError, ConfigKey, ConfigType
from kafka.server.kafka_config import KafkaConfig

# ConfigDef.Type
KAFKA_TYPES = {"BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}


def test_a_mistyped_attribute_raises_attribute_error():
    config = KafkaConfig({})
    with pytest.raises(AttributeError, match="num_io_thread"):
        config.num_io_thread  # noqa: B018
    with pytest.raises(AttributeError):
        KafkaConfig.log_retention_hour  # noqa: B018
    assert not hasattr(config, "num_io_thread")


def test_every_declared_key_has_a_kafka_type_and_is_an_attribute_of_the_class():
    assert len(CONFIG_KEYS) > 100
    for name, key in CONFIG_KEYS.items():
        assert isinstance(key.type, ConfigType) and key.type.name in KAFKA_TYPES, name
        attribute = name.replace(".", "_")
        assert attribute in dir(KafkaConfig), name
        assert getattr(AbstractKafkaConfig, attribute) is key, name


def test_an_attribute_is_the_parsed_value_of_its_type():
    config = KafkaConfig({"num.io.threads": "3", "log.retention.ms": "86400000000",
                          "auto.create.topics.enable": "false",
                          "log.dirs": "/tmp/a, /tmp/b"})
    assert config.num_io_threads == 3 and KafkaConfig.num_io_threads.type is INT
    assert config.log_retention_ms == 86_400_000_000 and KafkaConfig.log_retention_ms.type is LONG
    assert config.auto_create_topics_enable is False and KafkaConfig.auto_create_topics_enable.type is BOOLEAN
    assert config.log_dirs == ["/tmp/a", "/tmp/b"] and KafkaConfig.log_dirs.type is LIST
    assert config.offsets_topic_replication_factor == 1
    assert KafkaConfig.offsets_topic_replication_factor.type is SHORT


def test_a_key_kept_as_more_than_its_type_still_declares_kafkas_type():
    config = KafkaConfig({})
    assert KafkaConfig.process_roles.type is LIST and config.process_roles == frozenset({"broker",
                                                                                         "controller"})
    assert config_def_type_of("listeners") is LIST
    assert config_def_type_of("metrics.listener") is None  # this broker's own key: not Kafka's KafkaConfig's
    assert config_def_type_of("no.such.key") is None


def test_an_attribute_is_read_only():
    config = KafkaConfig({})
    with pytest.raises(AttributeError, match="num.io.threads"):
        config.num_io_threads = 2
    assert config.num_io_threads == 8


def test_an_unknown_key_fails_naming_the_key():
    with pytest.raises(ConfigError, match="unknown configuration key 'num.io.thread'"):
        KafkaConfig({"num.io.thread": "16"})


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("num.io.threads", "x", "invalid literal"),
    ("num.io.threads", "0", "must be at least 1"),
    ("num.io.threads", "2147483648", "not a number of type INT"),
    ("offsets.topic.replication.factor", "40000", "not a number of type SHORT"),
    ("log.retention.ms", "9223372036854775808", "not a number of type LONG"),
    ("auto.create.topics.enable", "yes", "expected true or false"),
])
def test_a_bad_value_fails_naming_the_key(key, value, problem):
    with pytest.raises(ConfigError,
                       match=f"invalid value '{value}' for configuration key '{key}': {problem}"):
        KafkaConfig({key: value})


def test_a_key_declared_under_another_attribute_name_is_refused_when_the_class_is_made():
    with pytest.raises((TypeError, RuntimeError)) as refused:  # Python 3.11 wraps __set_name__'s error
        type("Misnamed", (), {"io_threads": ConfigKey("num.io.threads", INT, "8", None, "I/O threads.")})
    assert "name it num_io_threads" in f"{refused.value} {refused.value.__cause__}"
