import pytest

from kafka.log.log_config import TOPIC_CONFIG_SYNONYMS, TOPIC_CONFIGS, LogConfig


def test_defaults_are_kafkas():
    config = LogConfig()
    assert config.segment_bytes == 1024**3
    assert config.index_interval_bytes == 4096
    assert config.max_message_bytes == 1048588
    assert config.retention_ms == 7 * 24 * 3600 * 1000
    assert config.segment_ms == 7 * 24 * 3600 * 1000
    assert config.retention_bytes == -1
    assert config.cleanup_policy == "delete"
    assert config.segment_index_bytes == 10 * 1024 * 1024
    assert config.max_index_entries == 10 * 1024 * 1024 // 8


def test_from_props_overrides_only_given_keys():
    defaults = LogConfig(segment_bytes=1000)
    config = LogConfig.from_props({"retention.ms": "60000", "cleanup.policy": "compact,delete",
                                   "min.insync.replicas": "2", "flush.messages": "10",
                                   "message.timestamp.type": "LogAppendTime", "preallocate": "true"},
                                   defaults)
    assert config.segment_bytes == 1000
    assert config.retention_ms == 60000
    assert config.cleanup_policy == "compact,delete" and config.compact and config.delete
    assert config.min_insync_replicas == 2
    assert config.flush_messages == 10
    assert config.message_timestamp_type == "LogAppendTime"
    assert config.preallocate is True


def test_to_props_round_trips_every_key():
    config = LogConfig(segment_bytes=12345, cleanup_policy="compact", unclean_leader_election_enable=True)
    props = config.to_props()
    assert set(props) == set(TOPIC_CONFIGS)
    assert props["segment.bytes"] == "12345"
    assert props["unclean.leader.election.enable"] == "true"
    assert LogConfig.from_props(props) == config
    assert config.overrides(LogConfig()) == {"segment.bytes": "12345", "cleanup.policy": "compact",
                                             "unclean.leader.election.enable": "true"}


def test_every_topic_config_has_a_server_synonym_except_kafkas_topic_only_ones():
    topic_only = {"leader.replication.throttled.replicas", "follower.replication.throttled.replicas",
                  "errors.deadletterqueue.group.enable", "remote.storage.enable", "remote.log.copy.disable",
                  "remote.log.delete.on.disable"}
    assert set(TOPIC_CONFIG_SYNONYMS) == set(TOPIC_CONFIGS) - topic_only


@pytest.mark.parametrize("key,value", [
    ("segment.bytes", "abc"), ("segment.bytes", "10"), ("segment.ms", "0"), ("retention.ms", "-2"),
    ("cleanup.policy", "shred"), ("message.timestamp.type", "Now"),
    ("compression.type", "brotli"), ("min.insync.replicas", "0"), ("max.message.bytes", "2147483648"),
    ("preallocate", "yes"), ("min.cleanable.dirty.ratio", "1.5"), ("flush.messages", "0"),
])
def test_bad_values_name_the_key(key, value):
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        LogConfig.from_props({key: value})


def test_unknown_key_is_rejected():
    with pytest.raises(ValueError, match="log.segment.bytes"):
        LogConfig.from_props({"log.segment.bytes": "100"})


def test_tiered_storage_validation_with_kafkas_messages():
    from kafka.log.log_config import TIERED_STORAGE_DISABLED, validate

    tiered = {"remote.storage.enable": "true"}
    assert validate({}, tiered, None, True).remote_storage_enable
    with pytest.raises(ValueError, match=TIERED_STORAGE_DISABLED):
        validate({}, tiered, None, False)
    with pytest.raises(ValueError, match="only supports topics with cleanup.policy=delete"):
        validate({}, {**tiered, "cleanup.policy": "compact"}, None, True)
    with pytest.raises(ValueError, match="Invalid value 2000 for configuration local.retention.bytes: "
                                         "Value must not be more than retention.bytes property value: 1000"):
        validate({}, {**tiered, "retention.bytes": "1000", "local.retention.bytes": "2000"}, None, True)
    with pytest.raises(ValueError, match="Value must not be -1 as retention.ms value is set as 1000"):
        validate({}, {**tiered, "retention.ms": "1000", "local.retention.ms": "-1"}, None, True)
    with pytest.raises(ValueError, match="It is invalid to disable remote storage without deleting"):
        validate(tiered, {}, None, True)
    assert not validate(tiered, {"remote.log.delete.on.disable": "true"}, None, True).remote_storage_enable
    assert LogConfig.from_props(tiered).remote_storage_enable, "parsing alone accepts it: validation decides"
