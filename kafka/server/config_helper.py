"""ConfigHelper: DescribeConfigs and IncrementalAlterConfigs for topics, the broker and groups (Kafka's
kafka.server.ConfigHelper and ConfigAdminManager).

A topic's effective configuration is the broker defaults (`log.*` keys of server.properties)
overridden by the topic's own configs (`segment.bytes`, `retention.ms`, `cleanup.policy`, ...),
the overrides being what CreateTopics and IncrementalAlterConfigs stored. DescribeConfigs reports
every key with the source of its value, the way `kafka-configs.sh --describe --all` shows it:

    DYNAMIC_TOPIC_CONFIG (1)            the topic overrides it
    DYNAMIC_BROKER_CONFIG (2)           this broker's dynamic config (kafka-configs --entity-name N)
    DYNAMIC_DEFAULT_BROKER_CONFIG (3)   the cluster-wide dynamic default (--entity-default)
    STATIC_BROKER_CONFIG (4)            server.properties (or --override) sets the broker-wide default
    DEFAULT_CONFIG (5)                  Kafka's default

A BROKER resource ("<id>", or "" for the cluster default) is described and altered through the broker's
DynamicBrokerConfig (docs/dynamic_configs.md): a change is checked here and then written by the controller.

IncrementalAlterConfigs (KIP-339) changes only the keys it names: SET, DELETE (back to the
default), APPEND and SUBTRACT for list configs such as cleanup.policy. The new configs are checked
as a whole before anything is stored; a bad one gets INVALID_CONFIG with a message naming the key.

A group's configs (GROUP, KIP-848 and KIP-932: share.auto.offset.reset, consumer.session.timeout.ms, ...)
are described the same way, each key with its value for the group: the group's own (GROUP_CONFIG, 8),
else its broker synonym's (group.share.record.lock.duration.ms...), else GroupConfig's default. Their
changes go to the controller as they came: it applies and checks them (GroupConfig.validate).
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from enum import Enum

from kafka.coordinator.group import group_config
from kafka.coordinator.group.group_config import GroupConfig
from kafka.log.log_config import TOPIC_CONFIG_SYNONYMS, TOPIC_CONFIGS
from kafka.protocol.errors import Errors
from kafka.server.abstract_kafka_config import config_def_type_of
from kafka.server.admin_manager import AdminManager, TopicError
from kafka.server.client_metrics_configs import CLIENT_METRICS_RESOURCE as CLIENT_METRICS
from kafka.server.client_metrics_configs import describe_client_metrics
from kafka.server.dynamic_broker_config import (
    ALL_DYNAMIC_CONFIGS,
    BROKER_QUOTA_CONFIGS,
    DynamicConfigError,
    broker_config_synonyms,
)
from kafka.server.kafka_config import CONFIG_KEYS, is_sensitive
from kafka.utils import future_utils

TOPIC = 2  # ConfigResource.Type
BROKER = 4
GROUP = 32
DYNAMIC_TOPIC_CONFIG = 1  # DescribeConfigsResponse.ConfigSource
DYNAMIC_BROKER_CONFIG = 2
DYNAMIC_DEFAULT_BROKER_CONFIG = 3
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5
GROUP_CONFIG = 8
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3  # AlterConfigOp.OpType
# DescribeConfigsResponse.ConfigType, by Kafka's ConfigDef.Type name
CONFIG_TYPES = {"BOOLEAN": 1, "STRING": 2, "INT": 3, "SHORT": 4, "LONG": 5, "DOUBLE": 6, "LIST": 7,
                "CLASS": 8,
                "PASSWORD": 9}
_LIST_CONFIGS = {"cleanup.policy"}


# Keys Kafka declares with no default (a node must set them): no DEFAULT_CONFIG synonym, as in Kafka's
# ConfigHelper, though this broker starts without them (node 1 in /tmp/kraft-combined-logs, combined).
_NO_KAFKA_DEFAULT = {"node.id", "log.dirs", "process.roles"}


def broker_config_type(name: str) -> int:
    """A broker key's ConfigType: the type it is declared with (abstract_kafka_config.py), as Kafka's
    ConfigHelper.configType asks AbstractKafkaConfig.configDefTypeOf; UNKNOWN (0) for a key Kafka's
    KafkaConfig does not define (super.users, metrics.listener)."""
    config_type = config_def_type_of(name)
    return CONFIG_TYPES[config_type.name] if config_type is not None else 0


class ConfigError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


def _as_config_error(done: Future) -> None:
    """The controller's verdict on an alteration: None, or its TopicError raised as a ConfigError."""
    error = done.exception()
    if isinstance(error, TopicError):
        raise ConfigError(error.error, str(error))
    if error is not None:
        raise error


@dataclass(frozen=True)
class DescribedConfig:
    name: str
    value: str | None
    source: int
    read_only: bool = False
    synonyms: tuple[tuple[str, str | None, int], ...] = ()
    documentation: str | None = None
    sensitive: bool = False  # a password: its value is never sent (Kafka's is_sensitive)
    config_type: int = 0  # UNKNOWN

    def to_response(self, version: int, include_synonyms: bool, include_documentation: bool = False) -> dict:
        entry = dict(name=self.name, value=self.value, read_only=self.read_only, config_source=self.source,
                     is_sensitive=self.sensitive,
                     synonyms=[dict(name=n, value=v, source=s) for n, v, s in self.synonyms]
                     if include_synonyms else [])
        if version >= 3:  # KIP-569
            entry["config_type"] = self.config_type
            entry["documentation"] = self.documentation if include_documentation else None
        if version == 0:  # v1 replaced is_default with config_source
            entry["is_default"] = self.source == DEFAULT_CONFIG
        return entry


class ConfigHelper:
    def __init__(self, admin_manager: AdminManager, config, client_metrics_manager=None) -> None:
        self.admin_manager = admin_manager
        self.config = config  # the KafkaConfig
        self.client_metrics_manager = client_metrics_manager  # the subscriptions' configs (KIP-714)

    # ------------------------------------------------------------------------------ describe

    def describe_configs(self, resource_type: int, name: str,
                         keys: list[str] | None) -> list[DescribedConfig]:
        if resource_type == TOPIC:
            described = self.describe_topic(name)
        elif resource_type == BROKER:
            described = self.describe_broker(name)
        elif resource_type == GROUP:
            described = self.describe_group(name)
        elif resource_type == CLIENT_METRICS:  # client_metrics_configs.py, as Kafka's ConfigHelper does it
            if not name:
                raise ConfigError(Errors.INVALID_REQUEST,
                                  "Client metrics subscription name must not be empty")
            described = [DescribedConfig(*entry) for entry in describe_client_metrics(
                self.client_metrics_manager.subscription_props(name))]
        else:
            raise ConfigError(Errors.INVALID_REQUEST, f"unsupported resource type {resource_type}")
        return [d for d in described if keys is None or d.name in keys]

    def describe_topic(self, name: str) -> list[DescribedConfig]:
        topic = self.admin_manager.metadata_cache.get_topic(name)
        if topic is None:
            raise ConfigError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "")  # Kafka says no more
        effective = self.admin_manager.log_config_for(topic).to_props()
        described = []
        for key, value in sorted(effective.items()):
            broker_key = TOPIC_CONFIG_SYNONYMS.get(key)
            synonyms = [(key, value, DYNAMIC_TOPIC_CONFIG)] if key in topic.configs else []
            if broker_key is not None:
                synonyms += self.config_synonyms(broker_key)
            # the broker default's doc
            doc = CONFIG_KEYS[broker_key].doc if broker_key in CONFIG_KEYS else None
            source = synonyms[0][2] if synonyms else DEFAULT_CONFIG
            described.append(DescribedConfig(key, value, source, synonyms=tuple(synonyms), documentation=doc,
                                             config_type=CONFIG_TYPES[TOPIC_CONFIGS[key].kind]))
        return described

    def config_synonyms(self, name: str) -> list[tuple[str, str | None, int]]:
        """Kafka's ConfigHelper.configSynonyms: the broker keys that set `name`'s value, each where it is
        set, static ones (server.properties) before defaults, starting from `name` itself. So
        log.retention.hours=168 in server.properties is no synonym of log.retention.ms (nor of a topic's
        retention.ms): Kafka drops the synonyms listed before the key asked about."""
        names = broker_config_synonyms(name, match_listener_override=True)
        dynamic = self.config.dynamic_config
        found = [(n, layer[n], source) for layer, source in (
            (dynamic.dynamic_configs(True), DYNAMIC_BROKER_CONFIG),
            (dynamic.dynamic_configs(False), DYNAMIC_DEFAULT_BROKER_CONFIG)) for n in names if n in layer]
        found += [(n, self.config.originals[n], STATIC_BROKER_CONFIG) for n in names
                  if n in self.config.originals]
        found += [(n, CONFIG_KEYS[n].default, DEFAULT_CONFIG) for n in names
                  if n in CONFIG_KEYS and CONFIG_KEYS[n].default is not None and n not in _NO_KAFKA_DEFAULT]
        while found and found[0][0] != name:
            found.pop(0)
        return found

    def created_topic_configs(self, overrides: dict[str, str], log_config) -> list[dict]:
        """CreateTopics' configs of a new topic, with the sources the controller reports (Kafka's
        KafkaConfigSchema.resolveEffectiveTopicConfigs): the topic's own, else STATIC_BROKER_CONFIG when
        server.properties sets any broker key for it (log.retention.hours counts for retention.ms here,
        unlike DescribeConfigs), else the default."""
        dynamic = self.config.dynamic_config
        levels = ((dynamic.dynamic_configs(True), DYNAMIC_BROKER_CONFIG),
                  (dynamic.dynamic_configs(False), DYNAMIC_DEFAULT_BROKER_CONFIG),
                  (self.config.originals, STATIC_BROKER_CONFIG))

        def source(key: str) -> int:
            if key in overrides:
                return DYNAMIC_TOPIC_CONFIG
            broker_key = TOPIC_CONFIG_SYNONYMS.get(key)
            names = broker_config_synonyms(broker_key, match_listener_override=False) if broker_key else []
            return next((s for layer, s in levels if any(n in layer for n in names)), DEFAULT_CONFIG)
        return [dict(name=key, value=value, read_only=False, is_sensitive=False, config_source=source(key))
                for key, value in sorted(log_config.to_props().items())]

    def describe_broker(self, name: str) -> list[DescribedConfig]:
        if name not in ("", str(self.config.node_id)):
            raise ConfigError(Errors.INVALID_REQUEST,
                              f"Unexpected broker id, expected {self.config.node_id} or empty "
                              f"string, but received {name}")
        dynamic = self.config.dynamic_config
        if name == "":  # the cluster-wide dynamic defaults: DYNAMIC_DEFAULT_BROKER_CONFIG only
            return [self._broker_config_entry(key, value, per_broker_config=False)
                    for key, value in sorted(dynamic.dynamic_configs(False).items())]
        # every key, valued as this broker runs it, and the dynamic ones it does not know (custom keys,
        # listener.name.<l>.* overrides), as Kafka's allConfigs lists them
        values: dict = dict(self.config.values)
        for layer in (dynamic.dynamic_configs(False), dynamic.dynamic_configs(True)):
            values.update({k: v for k, v in layer.items()
                           if k not in CONFIG_KEYS and k not in BROKER_QUOTA_CONFIGS})
        return [self._broker_config_entry(key, value, per_broker_config=True)
                for key, value in sorted(values.items())]

    def _broker_config_entry(self, key: str, value, per_broker_config: bool) -> DescribedConfig:
        """Kafka's createBrokerConfigEntry: the value, where it comes from (the first synonym's source),
        read-only unless the key is one of DynamicBrokerConfig's, sensitive when a password or when no
        key of its synonyms is known (a custom config may hold anything)."""
        names = broker_config_synonyms(key, match_listener_override=True)
        known = key if key in CONFIG_KEYS else next((n for n in names if n in CONFIG_KEYS), None)
        sensitive = known is None or is_sensitive(known)
        text = None if sensitive else self._broker_value_text(known, value) if known == key else value
        synonyms = self.config_synonyms(key)
        if not per_broker_config:
            synonyms = [s for s in synonyms if s[2] == DYNAMIC_DEFAULT_BROKER_CONFIG]
        if sensitive:
            synonyms = [(n, None, s) for n, _, s in synonyms]
        return DescribedConfig(key, text, synonyms[0][2] if synonyms else DEFAULT_CONFIG,
                               read_only=key not in ALL_DYNAMIC_CONFIGS, synonyms=tuple(synonyms),
                               documentation=CONFIG_KEYS[known].doc if known else None, sensitive=sensitive,
                               config_type=broker_config_type(known) if known else 0)

    def describe_group(self, name: str) -> list[DescribedConfig]:
        """Kafka's ConfigHelper for a GROUP: every group config but the internal ones (those too where the
        group sets them), valued for this group: its own, else the broker's, else GroupConfig's default."""
        if not name:
            raise ConfigError(Errors.INVALID_REQUEST, "Group name must not be empty")
        props = self.admin_manager.metadata_cache.group_config(name)  # Kafka's ConfigRepository.groupConfig
        try:
            config = GroupConfig.from_props(self.config.extract_group_config_map(), props)
        except group_config.InvalidConfigurationError as e:  # the controller checked them: not to happen
            raise ConfigError(Errors.INVALID_CONFIG, str(e)) from None
        shown = config.non_internal_values()
        set_internal = {k: v for k, v in config.originals.items() if v is not None and k not in shown}
        return [self._group_config_entry(props, key, value)
                for key, value in {**set_internal, **shown}.items()]

    def _group_config_entry(self, props: dict[str, str], key: str, value) -> DescribedConfig:
        """Kafka's createGroupConfigEntry: the group's own value first (GROUP_CONFIG), then the broker
        key's synonyms (server.properties, Kafka's default), or GroupConfig's default where no broker key
        sets it."""
        kind = group_config.config_type(key)
        text = group_config.convert_to_string(value, kind)
        broker_key = group_config.broker_synonym(key)
        default = group_config.CONFIG_DEF[key].default if key in group_config.CONFIG_DEF else None
        default_text = group_config.convert_to_string(default, kind)
        if broker_key in CONFIG_KEYS:
            synonyms = self.config_synonyms(broker_key)
        elif broker_key is not None:  # Kafka's internal broker key (group.streams.num.warmup.replicas...),
            synonyms = [(broker_key, default_text, DEFAULT_CONFIG)]  # not one here: the same default
        else:
            synonyms = [] if default is None else [(key, default_text, DEFAULT_CONFIG)]
        if key in props:
            synonyms = [(key, text, GROUP_CONFIG), *synonyms]
        return DescribedConfig(key, text, synonyms[0][2] if synonyms else DEFAULT_CONFIG, read_only=False,
                               synonyms=tuple(synonyms), documentation=GroupConfig.documentation_of(key),
                               config_type=CONFIG_TYPES[kind] if kind else 0)

    def _broker_value_text(self, key: str, value) -> str | None:
        """A broker config's value as Kafka's ConfigDef.convertToString writes it. Values parsed into
        more than a string, a number or a list of those (listeners' endpoints, a map, a set, the metrics
        listener's address) show the text they were parsed from: server.properties', else the default."""
        if isinstance(value, Enum):  # security.inter.broker.protocol's SecurityProtocol
            return value.name
        if value is None or isinstance(value, bool):
            return None if value is None else "true" if value else "false"
        if isinstance(value, (str, int, float)):
            return str(value)
        if isinstance(value, list) and all(isinstance(item, (str, int)) for item in value):
            return ",".join(map(str, value))
        return self.config.originals.get(key, CONFIG_KEYS[key].default)

    # ------------------------------------------------------------------------------ alter

    def alter_configs(self, resource_type: int, name: str, configs: dict[str, str | None],
                      validate_only: bool) -> Future[None]:
        """AlterConfigs: ``configs`` become the topic's (or group's) only overrides (keys left out return to
        their defaults, as in Kafka). Raise ConfigError if any is bad; the Future fails with one if
        the controller refuses them."""
        if resource_type == BROKER:  # the same: the broker's dynamic configs become these
            self._check_broker_resource(name, [(k, SET, v) for k, v in configs.items()])
            current = self.config.dynamic_config.dynamic_configs(bool(name))
            return self._alter_broker_configs(name, [(k, SET, v) for k, v in configs.items()] + [
                (k, DELETE, None) for k in sorted(set(current) - set(configs))], validate_only)
        if resource_type == GROUP:  # the group's configs become these: SET them, DELETE the others
            current = self.admin_manager.metadata_cache.group_config(name)
            ops = [dict(name=k, config_operation=SET, value=v) for k, v in configs.items()]
            ops += [dict(name=k, config_operation=DELETE, value=None)
                    for k in sorted(set(current) - set(configs))]
            return future_utils.handle(self.admin_manager.alter_group_configs(name, ops, validate_only),
                                       _as_config_error)
        if resource_type == CLIENT_METRICS:  # the same, for a client-metrics subscription
            current = self.client_metrics_manager.subscription_props(name)
            ops = [(k, SET, v) for k, v in configs.items()]
            ops += [(k, DELETE, None) for k in sorted(set(current) - set(configs))]
            return self.incremental_alter_configs(resource_type, name, ops, validate_only)
        topic = self._alterable_topic(resource_type, name)
        for key, value in configs.items():
            if key not in TOPIC_CONFIGS:
                raise ConfigError(Errors.INVALID_CONFIG, f"Unknown topic config name: {key}")
            if value is None:
                raise ConfigError(Errors.INVALID_REQUEST, f"null value for '{key}'")
        return future_utils.handle(self.admin_manager.alter_topic_configs(topic.name, dict(configs),
                                                                          validate_only),
                                   _as_config_error)

    def _alterable_topic(self, resource_type: int, name: str):
        if resource_type != TOPIC:
            raise ConfigError(Errors.INVALID_REQUEST, f"unsupported resource type {resource_type}")
        topic = self.admin_manager.metadata_cache.get_topic(name)
        if topic is None:
            raise ConfigError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        return topic

    def incremental_alter_configs(self, resource_type: int, name: str, ops: list[tuple[str, int, str | None]],
                                  validate_only: bool) -> Future[None]:
        """Apply (key, operation, value) changes to a topic's overrides. Raise ConfigError if any is
        bad; the Future fails with one if the controller refuses them."""
        if resource_type == BROKER:
            return self._alter_broker_configs(name, ops, validate_only)
        if resource_type == GROUP:  # to the controller as they came: it applies and checks them
            return future_utils.handle(self.admin_manager.alter_group_configs(
                name, [dict(name=k, config_operation=op, value=v) for k, op, v in ops], validate_only),
                _as_config_error)
        if resource_type == CLIENT_METRICS:  # to the controller as they came, as a group's
            return future_utils.handle(self.admin_manager.alter_client_metrics_configs(
                name, [dict(name=k, config_operation=op, value=v) for k, op, v in ops], validate_only,
                self.client_metrics_manager.subscription_props), _as_config_error)
        topic = self._alterable_topic(resource_type, name)
        overrides = dict(topic.configs)
        effective = self.admin_manager.log_config_for(topic).to_props()
        for key, op, value in ops:
            # Kafka checks the names of the configs that result: deleting one it does not know (a
            # replication throttle, here) removes nothing and is no error.
            if key not in TOPIC_CONFIGS and op != DELETE:
                raise ConfigError(Errors.INVALID_CONFIG, f"Unknown topic config name: {key}")
            if op == SET:
                overrides[key] = value if value is not None else ""
            elif op == DELETE:
                overrides.pop(key, None)
            elif op in (APPEND, SUBTRACT):
                if key not in _LIST_CONFIGS:
                    raise ConfigError(Errors.INVALID_CONFIG,
                                      f"Can't {'APPEND' if op == APPEND else 'SUBTRACT'} to "
                                      f"key {key} because its type is not LIST.")
                items = [i for i in overrides.get(key, effective[key]).split(",") if i]
                changes = [i.strip() for i in (value or "").split(",") if i.strip()]
                if op == APPEND:
                    items += [i for i in changes if i not in items]
                else:
                    items = [i for i in items if i not in changes]
                overrides[key] = ",".join(items)
            else:
                raise ConfigError(Errors.INVALID_REQUEST, f"unknown config operation {op} for '{key}'")
        return future_utils.handle(self.admin_manager.alter_topic_configs(name, overrides, validate_only),
                                   _as_config_error)

    # ------------------------------------------------------------------------------ dynamic broker configs

    def _check_broker_resource(self, name: str, ops: list[tuple[str, int, str | None]]) -> None:
        """Kafka's ConfigAdminManager.preprocess for a BROKER resource: this broker's id or "" (the cluster
        default), each key once, a value for each but a DELETE."""
        if name:
            if not name.lstrip("-").isdigit():
                raise ConfigError(Errors.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}")
            if int(name) != self.config.node_id:
                raise ConfigError(Errors.INVALID_REQUEST, f"Unexpected broker id, expected "
                                  f"{self.config.node_id}, but received {name}")
        keys = [key for key, _, _ in ops]
        if len(set(keys)) != len(keys):
            raise ConfigError(Errors.INVALID_REQUEST, "Error due to duplicate config keys")
        nulls = [key for key, op, value in ops if op != DELETE and value is None]
        if nulls:
            raise ConfigError(Errors.INVALID_REQUEST, "Null value not supported for : " + ", ".join(nulls))

    def _alter_broker_configs(self, name: str, ops: list[tuple[str, int, str | None]],
                              validate_only: bool) -> Future[None]:
        """A broker's (or the cluster default's) dynamic configs after `ops`, checked by this broker's
        DynamicBrokerConfig before they go to the controller (INVALID_REQUEST and Kafka's message if it
        would not take them: nothing is written)."""
        self._check_broker_resource(name, ops)
        dynamic_config = self.config.dynamic_config
        props = dynamic_config.dynamic_configs(bool(name))
        for key, op, value in ops:  # Kafka's prepareIncrementalConfigs
            if op == SET:
                props[key] = value
            elif op == DELETE:
                props.pop(key, None)
            elif op in (APPEND, SUBTRACT):
                key_def = CONFIG_KEYS.get(key)
                if key_def is None or key_def.type.name != "LIST":
                    kind = "append" if op == APPEND else "subtract"
                    raise ConfigError(Errors.INVALID_CONFIG,
                                      f"Config value {kind} is not allowed for config key: {key}")
                items = [i for i in props.get(key, key_def.default or "").split(",") if i]
                given = (value or "").split(",")
                props[key] = ",".join(items + [i for i in given if i not in items] if op == APPEND
                                      else [i for i in items if i not in given])
            else:
                raise ConfigError(Errors.INVALID_REQUEST, f"Unknown operations type {op}")
        try:
            dynamic_config.validate(props, per_broker_config=bool(name))
        except DynamicConfigError as e:
            raise ConfigError(Errors.INVALID_REQUEST, str(e)) from None
        forwarded = [dict(name=k, config_operation=op, value=v) for k, op, v in ops]
        altered = self.admin_manager.alter_broker_configs(name, forwarded, props, validate_only)
        return future_utils.handle(altered, _as_config_error)
