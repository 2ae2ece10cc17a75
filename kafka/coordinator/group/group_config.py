"""GroupConfig: the configs one group may set for itself (Kafka's
org.apache.kafka.coordinator.group.GroupConfig, the dynamic group configs of KIP-848 and KIP-932).

An admin sets them with IncrementalAlterConfigs on a GROUP resource (ConfigResource.Type.GROUP, 32), or
`kafka-configs --entity-type groups --entity-name g --alter --add-config share.auto.offset.reset=earliest`.
The controller checks the group's whole new set (`validate`) and stores it as ConfigRecords; every broker
hands them to its GroupConfigManager, which the group coordinator and the share partitions ask.

Most keys override a broker key of the group coordinator (`broker_synonym`): consumer.session.timeout.ms
is the group's own group.consumer.session.timeout.ms, held between group.consumer.min.session.timeout.ms and
group.consumer.max.session.timeout.ms. A few have no broker key (share.auto.offset.reset,
share.isolation.level, share.renew.acknowledge.enable and the dead-letter queue's): their default is this
class's. Internal keys (Kafka's defineInternal) may be set but DescribeConfigs lists them only when set.

A GroupConfig built from a group's props parses every key (a bad value raises InvalidConfigurationError) and
answers the keys the group sets, None for the others (Kafka's Optional getters): whoever asks falls back
to the broker's value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.share_group_auto_offset_reset_strategy import ShareGroupAutoOffsetResetStrategy

READ_UNCOMMITTED, READ_COMMITTED = "read_uncommitted", "read_committed"  # Kafka's IsolationLevel, as text
_INTEGER = re.compile(r"[+-]?\d+")
_LIMITS = {"INT": 2**31, "LONG": 2**63}


class InvalidConfigurationError(ValueError):
    """Kafka's InvalidConfigurationException and ConfigException: the controller answers INVALID_CONFIG
    with this message."""


@dataclass(frozen=True)
class GroupConfigKey:
    """One ConfigDef.define of GroupConfig: name, Kafka type, default, validator, documentation."""

    name: str
    type: str  # ConfigDef.Type: INT, LONG, BOOLEAN, STRING or LIST
    default: Any  # the parsed default; None: no default
    doc: str
    at_least: int | None = None  # Range.atLeast
    one_of: tuple[str, ...] = ()  # ValidString.in
    check: Callable[[str], str | None] | None = None  # another validator: None, or what is wrong
    internal: bool = False  # defineInternal: DescribeConfigs lists it only where it is set


# Kafka's CONFIG_DEF, in its order (ConfigDef.parse reports the first bad key in this order).
_key = GroupConfigKey
CONFIG_DEF: dict[str, GroupConfigKey] = {k.name: k for k in (
    _key("consumer.session.timeout.ms", "INT", 45000, "A silent member of this consumer group is removed "
         "after this long.", at_least=1),
    _key("consumer.heartbeat.interval.ms", "INT", 5000, "How often this consumer group's members heartbeat.",
         at_least=1),
    _key("consumer.assignment.interval.ms", "INT", 1000, "This consumer group's target assignment is "
         "computed at most this often.", at_least=0),
    _key("consumer.assignor.offload.enable", "BOOLEAN", True, "Whether this consumer group's assignor runs "
         "off the coordinator's event thread.", internal=True),
    _key("share.session.timeout.ms", "INT", 45000, "A silent member of this share group is fenced after "
         "this long.", at_least=1),
    _key("share.heartbeat.interval.ms", "INT", 5000, "How often this share group's members heartbeat.",
         at_least=1),
    _key("share.record.lock.duration.ms", "INT", 30000, "How long a member of this share group holds a "
         "record it acquired.", at_least=1000),
    _key("share.delivery.count.limit", "INT", 5, "Deliveries of a record to this share group before it is "
         "archived.", at_least=2),
    _key("share.partition.max.record.locks", "INT", 2000, "Records of this share group in flight per share "
         "partition.", at_least=100),
    _key("share.auto.offset.reset", "STRING", "latest", "Where a share partition with no state starts: "
         "earliest, latest or by_duration:<ISO-8601 duration>.",
         check=ShareGroupAutoOffsetResetStrategy.validate),
    _key("share.isolation.level", "STRING", READ_UNCOMMITTED, "read_committed: this share group gets only "
         "committed transactional records; read_uncommitted: all records.",
         one_of=(READ_COMMITTED, READ_UNCOMMITTED)),
    _key("share.renew.acknowledge.enable", "BOOLEAN", True, "Whether members of this share group may renew "
         "the lock of a record they hold (acknowledge type RENEW)."),
    _key("share.assignment.interval.ms", "INT", 1000, "This share group's target assignment is computed at "
         "most this often.", at_least=0),
    _key("share.assignor.offload.enable", "BOOLEAN", True, "Whether this share group's assignor runs off the "
         "coordinator's event thread.", internal=True),
    _key("streams.session.timeout.ms", "INT", 45000, "A silent member of this streams group is removed after "
         "this long.", at_least=1),
    _key("streams.heartbeat.interval.ms", "INT", 5000, "How often this streams group's members heartbeat.",
         at_least=1),
    _key("streams.num.standby.replicas", "INT", 0, "Standby replicas of each task of this streams group.",
         at_least=0),
    _key("streams.initial.rebalance.delay.ms", "INT", 3000, "How long a new streams group waits for more "
         "members before its first rebalance.", at_least=0),
    _key("streams.assignment.interval.ms", "INT", 1000, "This streams group's target assignment is computed "
         "at most this often.", at_least=0),
    _key("streams.assignor.offload.enable", "BOOLEAN", True, "Whether this streams group's assignor runs off "
         "the coordinator's event thread.", internal=True),
    _key("streams.task.offset.interval.ms", "INT", 60000, "How often members report their warm-up tasks' "
         "changelog offsets.", at_least=1, internal=True),
    _key("streams.num.warmup.replicas", "INT", 2, "Warm-up task replicas of this streams group at most.",
         at_least=0, internal=True),
    _key("streams.rack.aware.assignment.tags", "LIST", [], "Client tags standby tasks are spread over."),
    _key("streams.acceptable.recovery.lag", "LONG", 10000, "Offsets a member may lag and still be given an "
         "active task.", at_least=0, internal=True),
    _key("streams.assignor.name", "STRING", None, "The task assignor of this streams group, by the short "
         "name group.streams.assignors registers it under."),
    _key("errors.deadletterqueue.topic.name", "STRING", "", "The dead-letter queue topic of this share "
         "group; empty: none."),
    _key("errors.deadletterqueue.copy.record.enable", "BOOLEAN", False, "Whether a record sent to the "
         "dead-letter queue is copied whole, not only its context headers."),
)}

# Kafka's ALL_GROUP_CONFIG_SYNONYMS: the broker key whose value a group's unset key takes.
ALL_GROUP_CONFIG_SYNONYMS: dict[str, str | None] = {
    **{key: f"group.{key}" for key in CONFIG_DEF if key.split(".")[0] in ("consumer", "share", "streams")},
    "share.auto.offset.reset": None, "share.isolation.level": None, "share.renew.acknowledge.enable": None,
    "streams.assignor.name": "group.streams.assignors",
    "errors.deadletterqueue.topic.name": None, "errors.deadletterqueue.copy.record.enable": None,
}


def is_internal(name: str) -> bool:
    key = CONFIG_DEF.get(name)
    return key is not None and key.internal


def broker_synonym(name: str) -> str | None:
    return ALL_GROUP_CONFIG_SYNONYMS.get(name)


def config_type(name: str) -> str | None:
    key = CONFIG_DEF.get(name)
    return key.type if key is not None else None


def config_names() -> set[str]:
    return set(CONFIG_DEF)


def convert_to_string(value: Any, kind: str | None) -> str | None:
    """Kafka's ConfigDef.convertToString: a parsed value as DescribeConfigs shows it."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "LIST" and isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


# ------------------------------------------------------------------ parsing (Kafka's ConfigDef.parse)
def _parse_value(key: GroupConfigKey, value: Any) -> Any:
    """One value as ConfigDef.parseType and the key's validator take it; InvalidConfigurationError if not."""
    def invalid(reason: str, shown: Any = value) -> InvalidConfigurationError:  # Kafka's ConfigException
        return InvalidConfigurationError(f"Invalid value {shown} for configuration {key.name}: {reason}")

    if not isinstance(value, str):  # a parsed default
        parsed = value
    elif key.type in _LIMITS:
        text = value.strip()
        if not _INTEGER.fullmatch(text) or not -_LIMITS[key.type] <= int(text) < _LIMITS[key.type]:
            raise invalid(f"Not a number of type {key.type}")
        parsed = int(text)
    elif key.type == "BOOLEAN":
        if value.strip().lower() not in ("true", "false"):
            raise invalid("Expected value to be either true or false")
        parsed = value.strip().lower() == "true"
    elif key.type == "LIST":
        text = value.strip()
        parsed = re.split(r"\s*,\s*", text) if text else []
    else:
        parsed = value.strip()
    if parsed is None:
        return None
    if key.at_least is not None and parsed < key.at_least:
        raise invalid(f"Value must be at least {key.at_least}", parsed)
    if key.one_of and parsed not in key.one_of:
        raise invalid(f"String must be one of: {', '.join(key.one_of)}", parsed)
    if key.check is not None and (problem := key.check(parsed)) is not None:
        raise invalid(problem, parsed)
    return parsed


def parse(props: Mapping[str, Any]) -> dict[str, Any]:
    """Every key's value: the props' where they set it, else its default (Kafka's ConfigDef.parse)."""
    return {name: _parse_value(key, props[name] if name in props else key.default)
            for name, key in CONFIG_DEF.items()}


# ------------------------------------------------------------------ validation, on the controller
def validate_names(props: Mapping[str, str]) -> None:
    for name in props:
        if name not in CONFIG_DEF:
            raise InvalidConfigurationError(f"Unknown group config name: {name}")


def validate(props: Mapping[str, str], config: GroupCoordinatorConfig) -> None:
    """Kafka's GroupConfig.validate: a group's whole set of configs, as it would be after a change: the
    names, the values' types and validators, then the broker's bounds on each. Kafka also passes its
    ShareGroupConfig; here GroupCoordinatorConfig carries the share bounds too."""
    validate_names(props)
    _validate_no_duplicate_rack_aware_assignment_tags(props)
    parsed = {name: value for name, value in parse(props).items() if name in props}
    _validate_values(parsed, config)


def _validate_no_duplicate_rack_aware_assignment_tags(props: Mapping[str, str]) -> None:
    tags = props.get("streams.rack.aware.assignment.tags")
    if tags is None:
        return
    items = re.split(r"\s*,\s*", tags.strip()) if tags.strip() else []
    if len(set(items)) != len(items):
        raise InvalidConfigurationError(
            "streams.rack.aware.assignment.tags must not contain duplicate tag keys.")


def bounds(config: GroupCoordinatorConfig) -> dict[str, tuple[int | None, int | None]]:
    """Each bounded key's (min, max) from the broker (None: no bound that side), in Kafka's order of
    checks."""
    c = config
    return {
        "consumer.heartbeat.interval.ms": (c.consumer_group_min_heartbeat_interval_ms,
                                           c.consumer_group_max_heartbeat_interval_ms),
        "consumer.session.timeout.ms": (c.consumer_group_min_session_timeout_ms,
                                        c.consumer_group_max_session_timeout_ms),
        "consumer.assignment.interval.ms": (c.consumer_group_min_assignment_interval_ms,
                                            c.consumer_group_max_assignment_interval_ms),
        "share.heartbeat.interval.ms": (c.share_group_min_heartbeat_interval_ms,
                                        c.share_group_max_heartbeat_interval_ms),
        "share.session.timeout.ms": (c.share_group_min_session_timeout_ms,
                                     c.share_group_max_session_timeout_ms),
        "share.record.lock.duration.ms": (c.share_group_min_record_lock_duration_ms,
                                          c.share_group_max_record_lock_duration_ms),
        "share.delivery.count.limit": (c.share_group_min_delivery_count_limit,
                                       c.share_group_max_delivery_count_limit),
        "share.partition.max.record.locks": (c.share_group_min_partition_max_record_locks,
                                             c.share_group_max_partition_max_record_locks),
        "share.assignment.interval.ms": (c.share_group_min_assignment_interval_ms,
                                         c.share_group_max_assignment_interval_ms),
        "streams.heartbeat.interval.ms": (c.streams_group_min_heartbeat_interval_ms,
                                          c.streams_group_max_heartbeat_interval_ms),
        "streams.session.timeout.ms": (c.streams_group_min_session_timeout_ms,
                                       c.streams_group_max_session_timeout_ms),
        "streams.num.standby.replicas": (None, c.streams_group_max_standby_replicas),
        "streams.assignment.interval.ms": (c.streams_group_min_assignment_interval_ms,
                                           c.streams_group_max_assignment_interval_ms),
        "streams.task.offset.interval.ms": (c.streams_group_min_task_offset_interval_ms, None),
        "streams.num.warmup.replicas": (None, c.streams_group_max_warmup_replicas),
    }


# (session timeout key, its broker value, heartbeat key, its broker value): the session must be longer
def _session_and_heartbeat(config: GroupCoordinatorConfig) -> list[tuple[str, int, str, int]]:
    return [("consumer.session.timeout.ms", config.consumer_group_session_timeout_ms,
             "consumer.heartbeat.interval.ms", config.consumer_group_heartbeat_interval_ms),
            ("share.session.timeout.ms", config.share_group_session_timeout_ms,
             "share.heartbeat.interval.ms", config.share_group_heartbeat_interval_ms),
            ("streams.session.timeout.ms", config.streams_group_session_timeout_ms,
             "streams.heartbeat.interval.ms", config.streams_group_heartbeat_interval_ms)]


def _validate_values(parsed: dict[str, Any], config: GroupCoordinatorConfig) -> None:
    for name, (low, high) in bounds(config).items():
        value = parsed.get(name)
        if value is None:
            continue
        if low is not None and high is not None and not low <= value <= high:
            raise InvalidConfigurationError(f"{name} must be in the range {low} to {high} inclusive.")
        if low is None and high is not None and value > high:
            raise InvalidConfigurationError(f"{name} must be less than or equal to {high}")
        if high is None and low is not None and value < low:
            raise InvalidConfigurationError(f"{name} must be greater than or equal to {low}")
    assignor = parsed.get("streams.assignor.name")
    if "streams.assignor.name" in parsed and assignor not in config.streams_group_assignors:
        raise InvalidConfigurationError(
            f"streams.assignor.name '{assignor}' is not a registered task assignor. Registered assignors "
            f"are: [{', '.join(config.streams_group_assignors)}].")
    for session_key, session_default, heartbeat_key, heartbeat_default in _session_and_heartbeat(config):
        if session_key in parsed or heartbeat_key in parsed:
            if parsed.get(session_key, session_default) <= parsed.get(heartbeat_key, heartbeat_default):
                raise InvalidConfigurationError(f"{session_key} must be greater than {heartbeat_key}")
    topic = parsed.get("errors.deadletterqueue.topic.name")
    if topic and topic.startswith("__"):
        raise InvalidConfigurationError(
            "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'")


def evaluate(props: Mapping[str, str], group_id: str, config: GroupCoordinatorConfig,
             warn: Callable[[str], None] = lambda message: None) -> dict[str, str]:
    """Kafka's GroupConfig.evaluate: a group's stored configs held to the broker's bounds as they are now
    (the bounds may have narrowed since the configs were set): a value outside is capped, with a warning."""
    evaluated = dict(props)
    for name, (low, high) in bounds(config).items():
        if name not in evaluated:
            continue
        value = int(evaluated[name])
        if low is not None and value < low:
            warn(f"The group config '{name}' for group '{group_id}' has value {value} which is below the "
                 f"broker's allowed minimum {low}. The effective value will be capped to {low}.")
            evaluated[name] = str(low)
        elif high is not None and value > high:
            warn(f"The group config '{name}' for group '{group_id}' has value {value} which exceeds the "
                 f"broker's allowed maximum {high}. The effective value will be capped to {high}.")
            evaluated[name] = str(high)
    for session_key, session_default, heartbeat_key, heartbeat_default in _session_and_heartbeat(config):
        if session_key in evaluated or heartbeat_key in evaluated:
            session = int(evaluated.get(session_key, session_default))
            heartbeat = int(evaluated.get(heartbeat_key, heartbeat_default))
            if session <= heartbeat:
                warn(f"The effective {session_key} ({session}) for group '{group_id}' is not greater than "
                     f"{heartbeat_key} ({heartbeat}). Check that the broker-level min/max bounds for session "
                     "timeout and heartbeat interval do not overlap.")
    return evaluated


# ------------------------------------------------------------------ one group's configs
class GroupConfig:
    """A group's configs parsed (Kafka's GroupConfig, an AbstractConfig): `originals` as given, `values`
    every key's value, and a getter per key that answers only what the props set, None otherwise."""

    def __init__(self, props: Mapping[str, Any]) -> None:
        self.originals = dict(props)
        self.values = parse(props)
        self.consumer_session_timeout_ms: int | None = self._if_set("consumer.session.timeout.ms")
        self.consumer_heartbeat_interval_ms: int | None = self._if_set("consumer.heartbeat.interval.ms")
        self.consumer_assignment_interval_ms: int | None = self._if_set("consumer.assignment.interval.ms")
        self.share_session_timeout_ms: int | None = self._if_set("share.session.timeout.ms")
        self.share_heartbeat_interval_ms: int | None = self._if_set("share.heartbeat.interval.ms")
        self.share_record_lock_duration_ms: int | None = self._if_set("share.record.lock.duration.ms")
        self.share_delivery_count_limit: int | None = self._if_set("share.delivery.count.limit")
        self.share_partition_max_record_locks: int | None = self._if_set("share.partition.max.record.locks")
        reset = self._if_set("share.auto.offset.reset")
        self.share_auto_offset_reset: ShareGroupAutoOffsetResetStrategy | None = (
            None if reset is None else ShareGroupAutoOffsetResetStrategy.parse(reset))
        self.share_isolation_level: str | None = self._if_set("share.isolation.level")
        self.share_renew_acknowledge_enable: bool | None = self._if_set("share.renew.acknowledge.enable")
        self.share_assignment_interval_ms: int | None = self._if_set("share.assignment.interval.ms")
        self.streams_session_timeout_ms: int | None = self._if_set("streams.session.timeout.ms")
        self.streams_heartbeat_interval_ms: int | None = self._if_set("streams.heartbeat.interval.ms")
        self.streams_num_standby_replicas: int | None = self._if_set("streams.num.standby.replicas")
        self.streams_initial_rebalance_delay_ms: int | None = self._if_set(
            "streams.initial.rebalance.delay.ms")
        self.streams_assignment_interval_ms: int | None = self._if_set("streams.assignment.interval.ms")
        self.streams_assignor_name: str | None = self._if_set("streams.assignor.name")
        self.errors_dlq_topic_name: str = self.values["errors.deadletterqueue.topic.name"]
        self.errors_dlq_copy_record_enable: bool = self.values["errors.deadletterqueue.copy.record.enable"]

    def _if_set(self, name: str) -> Any:
        return self.values[name] if name in self.originals else None

    @classmethod
    def from_props(cls, defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> GroupConfig:
        """The broker's group defaults (KafkaConfig.extract_group_config_map) overridden by a group's own."""
        return cls({**defaults, **overrides})

    def non_internal_values(self) -> dict[str, Any]:
        return {name: value for name, value in self.values.items() if not CONFIG_DEF[name].internal}

    @staticmethod
    def documentation_of(name: str) -> str | None:
        key = CONFIG_DEF.get(name)
        return key.doc if key is not None else None


def default_share_auto_offset_reset() -> ShareGroupAutoOffsetResetStrategy:
    return ShareGroupAutoOffsetResetStrategy.parse(CONFIG_DEF["share.auto.offset.reset"].default)


def default_share_isolation_level() -> str:
    return CONFIG_DEF["share.isolation.level"].default
