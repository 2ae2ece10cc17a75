"""DynamicBrokerConfig: broker settings changed at run time, without a restart (Kafka's
kafka.server.DynamicBrokerConfig, KIP-226).

`kafka-configs --entity-type brokers --alter` sends IncrementalAlterConfigs for a BROKER resource: "<id>"
for one broker, "" for the cluster-wide default. The broker that receives it checks the change here first
(`validate`, Kafka's ConfigAdminManager.preprocess), forwards it to the active controller, which writes
ConfigRecords; every broker's DynamicConfigPublisher then hands its own and the default's configs to
`update_broker_config` / `update_default_config`, and the reconfigurables (broker_reconfigurables.py) act
on what changed. A value comes from, most specific first:

    DYNAMIC_BROKER_CONFIG            this broker's ConfigRecords (resource "<id>")
    DYNAMIC_DEFAULT_BROKER_CONFIG    the cluster default's (resource "")
    STATIC_BROKER_CONFIG             server.properties and --override
    DEFAULT_CONFIG                   Kafka's default

Only the keys of ALL_DYNAMIC_CONFIGS may change; security and listener keys only per broker, and the
ssl.* ones only with their listener prefix (listener.name.<listener>.ssl.keystore.location). A change
that does not pass is refused as a whole with Kafka's INVALID_REQUEST and message; nothing is applied.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Protocol

import structlog

from kafka.server.abstract_kafka_config import CONFIG_KEYS
from kafka.server.config_def import ConfigError, RequirementError

log = structlog.get_logger("kafka.server.DynamicBrokerConfig")

# Kafka's SslConfigs.RECONFIGURABLE_CONFIGS: settable per listener only (DynamicSecurityConfigs)
DYNAMIC_SECURITY_CONFIGS = frozenset({
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.type", "ssl.truststore.location",
    "ssl.truststore.password", "ssl.truststore.certificates"})
# Kafka's DynamicListenerConfig.ReconfigurableConfigs
LISTENER_RECONFIGURABLE_CONFIGS = frozenset({
    "listeners", "listener.security.protocol.map", "principal.builder.class", "ssl.protocol", "ssl.provider",
    "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keystore.type", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.key.password", "ssl.truststore.type", "ssl.truststore.location",
    "ssl.truststore.password", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation", "ssl.client.auth",
    "ssl.engine.factory.class", "sasl.mechanism.inter.broker.protocol", "sasl.jaas.config",
    "sasl.enabled.mechanisms", "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.ticket.renew.window.factor", "sasl.kerberos.ticket.renew.jitter",
    "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter",
    "sasl.login.refresh.min.period.seconds", "sasl.login.refresh.buffer.seconds",
    "max.connections", "max.connection.creation.rate", "num.network.threads"})
# Every key Kafka 4.4 lets IncrementalAlterConfigs change (its AllDynamicConfigs, as DescribeConfigs
# reports them read_only=false); this broker acts on those in broker_reconfigurables.py and keeps the rest.
ALL_DYNAMIC_CONFIGS = DYNAMIC_SECURITY_CONFIGS | LISTENER_RECONFIGURABLE_CONFIGS | frozenset({
    # LogCleaner.ReconfigurableConfigs
    "log.cleaner.threads", "log.cleaner.dedupe.buffer.size", "log.cleaner.io.buffer.load.factor",
    "log.cleaner.io.buffer.size", "log.cleaner.io.max.bytes.per.second", "log.cleaner.backoff.ms",
    # DynamicLogConfig: the broker keys of the topic configs (ServerTopicConfigSynonyms)
    "log.segment.bytes", "log.roll.ms", "log.roll.jitter.ms", "log.index.size.max.bytes",
    "log.index.interval.bytes", "message.max.bytes", "log.retention.ms", "log.retention.bytes",
    "log.cleanup.policy", "log.cleaner.delete.retention.ms", "log.cleaner.min.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms", "log.cleaner.min.cleanable.ratio", "log.segment.delete.delay.ms",
    "min.insync.replicas", "unclean.leader.election.enable", "log.message.timestamp.type",
    "log.message.timestamp.before.max.ms", "log.message.timestamp.after.max.ms", "compression.type",
    "compression.gzip.level", "compression.lz4.level", "compression.zstd.level", "log.local.retention.ms",
    "log.local.retention.bytes", "log.remote.copy.lag.ms", "log.remote.copy.lag.bytes",
    "max.decompressed.message.bytes", "log.flush.interval.messages", "log.flush.interval.ms",
    "log.preallocate",
    # DynamicThreadPool
    "num.io.threads", "num.replica.fetchers", "num.recovery.threads.per.data.dir", "background.threads",
    # SocketServer.ReconfigurableConfigs
    "max.connections.per.ip", "max.connections.per.ip.overrides",
    # the rest: metric reporters, producer state, remote storage, coordinators' buffers, DLQ, cordoned dirs
    "metric.reporters", "producer.id.expiration.ms", "transaction.partition.verification.enable",
    "config.providers", "cordoned.log.dirs", "follower.fetch.last.tiered.offset.enable",
    "remote.fetch.max.wait.ms", "remote.list.offsets.request.timeout.ms",
    "remote.log.index.file.cache.total.size.bytes", "remote.log.manager.copier.thread.pool.size",
    "remote.log.manager.copy.max.bytes.per.second", "remote.log.manager.expiration.thread.pool.size",
    "remote.log.manager.fetch.max.bytes.per.second", "remote.log.manager.follower.thread.pool.size",
    "remote.log.reader.threads", "group.consumer.assignment.interval.ms",
    "group.share.assignment.interval.ms", "group.streams.assignment.interval.ms",
    "group.coordinator.cached.buffer.max.bytes", "share.coordinator.cached.buffer.max.bytes",
    "errors.deadletterqueue.auto.create.topics.enable", "errors.deadletterqueue.topic.name.prefix"})
CLUSTER_LEVEL_LISTENER_CONFIGS = frozenset({"max.connections", "max.connection.creation.rate",
                                            "num.network.threads"})
PER_BROKER_CONFIGS = ((DYNAMIC_SECURITY_CONFIGS | LISTENER_RECONFIGURABLE_CONFIGS)
                      - CLUSTER_LEVEL_LISTENER_CONFIGS)
LISTENER_CONFIG = re.compile(r"listener\.name\.[^.]*\.(.*)")
# Broker keys that set one value, the most specific first (Kafka's brokerConfigSynonyms)
_SYNONYMS = (("log.roll.ms", "log.roll.hours"), ("log.roll.jitter.ms", "log.roll.jitter.hours"),
             ("log.flush.interval.ms", "log.flush.scheduler.interval.ms"),
             ("log.retention.ms", "log.retention.minutes", "log.retention.hours"))
INVALID_DYNAMIC_CONFIGURATION = "Invalid dynamic configuration"
# Kafka's DynamicConfig.Broker knows these too (QuotaConfigs): LONG, at least 0; kept by the broker's quota
# managers, not in KafkaConfig, so DescribeConfigs does not list them. Replication throttles are not built
# here: they are checked and stored (kafka-reassign-partitions sets and clears them), and nothing reads them.
BROKER_QUOTA_CONFIGS = frozenset({"leader.replication.throttled.rate", "follower.replication.throttled.rate",
                                  "replica.alter.log.dirs.io.max.bytes.per.second"})


class DynamicConfigError(ValueError):
    """A change Kafka refuses (its ConfigException): answered INVALID_REQUEST with this message."""


def invalid_dynamic_configuration(cause: str) -> DynamicConfigError:
    """Kafka's wrapping of a reconfigurable's refusal (ConfigException("Invalid dynamic configuration", e)),
    word for word, so that kafka-configs prints what it prints against Kafka."""
    return DynamicConfigError(f"Invalid value org.apache.kafka.common.config.ConfigException: {cause} "
                              f"for configuration {INVALID_DYNAMIC_CONFIGURATION}")


def broker_config_synonyms(name: str, match_listener_override: bool) -> list[str]:
    """Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the keys that set `name`'s value."""
    group = next((g for g in _SYNONYMS if name in g), None)
    if group is not None:
        return list(group)
    match = LISTENER_CONFIG.fullmatch(name)
    if match and match_listener_override:
        return [name, match.group(1)]
    return [name]


def _names(keys) -> str:
    return "[" + ", ".join(sorted(keys)) + "]"


def validate_configs(props: Mapping[str, str], per_broker_config: bool) -> None:
    """Kafka's DynamicBrokerConfig.validateConfigs, its checks in its order: keys that cannot change at
    run time, ssl keys without their listener prefix, values of the wrong type, per-broker keys for the
    cluster default."""
    non_dynamic = {k for k in props if k in CONFIG_KEYS and CONFIG_KEYS[k].in_kafka_config
                   and k not in ALL_DYNAMIC_CONFIGS}
    if non_dynamic:
        raise DynamicConfigError(f"Cannot update these configs dynamically: {_names(non_dynamic)}")
    unprefixed = {k for k in props if k in DYNAMIC_SECURITY_CONFIGS}
    if unprefixed:
        raise DynamicConfigError("These security configs can be dynamically updated only per-listener using "
                                 f"the listener prefix: {_names(unprefixed)}")
    for key, value in props.items():
        match = LISTENER_CONFIG.fullmatch(key)
        _validate_type(match.group(1) if match else key, value)
    if not per_broker_config:
        per_broker = {k for k in props if k in PER_BROKER_CONFIGS or _per_broker_listener_config(k)}
        if per_broker:
            raise DynamicConfigError("Cannot update these configs at default cluster level, broker id must "
                                     f"be specified: {_names(per_broker)}")


def _per_broker_listener_config(name: str) -> bool:
    match = LISTENER_CONFIG.fullmatch(name)
    return match is not None and match.group(1) not in CLUSTER_LEVEL_LISTENER_CONFIGS


def _validate_type(name: str, value: str) -> None:
    """One value against its key's type and validator, in Kafka's ConfigDef words (a key this broker does
    not know is a custom config: kept as it is, as Kafka keeps it)."""
    if name in BROKER_QUOTA_CONFIGS:
        invalid = f"Invalid value {value} for configuration {name}"
        if not re.fullmatch(r"\s*-?\d+\s*", value or "") or not -2**63 <= int(value) < 2**63:
            raise DynamicConfigError(f"{invalid}: Not a number of type LONG")
        if int(value) < 0:
            raise DynamicConfigError(f"{invalid}: Value must be at least 0")
        return
    key = CONFIG_KEYS.get(name)
    if key is None or value is None:
        return
    try:
        parsed = key.parse(value)
    except ValueError:
        kind = key.type.name
        reason = ("Expected value to be either true or false" if kind == "BOOLEAN"
                  else f"Not a number of type {kind}" if kind in ("INT", "LONG", "SHORT", "DOUBLE")
                  else "not a valid value")
        raise DynamicConfigError(f"Invalid value {value} for configuration {name}: {reason}") from None
    problem = key.validator(parsed) if key.validator else None
    if problem and (at_least := re.fullmatch(r"must be between (\S+) and (2147483647|9223372036854775807)",
                                             problem)):
        problem = f"must be at least {at_least.group(1)}"  # Kafka's atLeast, which this broker bounds above
    if problem:
        raise DynamicConfigError(f"Invalid value {value} for configuration {name}: "
                                 f"{'Value ' + problem if problem.startswith('must') else problem}")


class BrokerReconfigurable(Protocol):
    """Kafka's BrokerReconfigurable: a component that takes some keys' new values without a restart."""

    reconfigurable_configs: frozenset[str]

    def validate_reconfiguration(self, new_config) -> None:
        """Raise DynamicConfigError (Kafka's ConfigException) if the new values (a KafkaConfig) cannot be
        taken."""

    def reconfigure(self, old_config, new_config) -> None: ...


class DynamicBrokerConfig:
    """One broker's dynamic configs over its KafkaConfig (`config.dynamic_config`, made with it, as
    Kafka's KafkaConfig makes its dynamicConfig). New effective configs are KafkaConfigs of the same class,
    built here without importing it: kafka_config.py makes this."""

    def __init__(self, kafka_config) -> None:
        self.kafka_config = kafka_config
        self._config_class = type(kafka_config)
        self.static_broker_configs = dict(kafka_config.originals)
        self.dynamic_broker_configs: dict[str, str] = {}
        self.dynamic_default_configs: dict[str, str] = {}
        # a copy: the shared config's dynamic values change in place, this one is what they were (old_config)
        self.current_config = self._config_class(kafka_config.originals)
        self.reconfigurables: list[BrokerReconfigurable] = []
        self._lock = threading.RLock()

    def add_broker_reconfigurable(self, reconfigurable: BrokerReconfigurable) -> None:
        non_dynamic = {k for k in reconfigurable.reconfigurable_configs if k not in ALL_DYNAMIC_CONFIGS}
        if non_dynamic:
            raise ValueError(f"Reconfigurable contains non-dynamic configs {sorted(non_dynamic)}")
        self.reconfigurables.append(reconfigurable)

    # ------------------------------------------------------------------ from the metadata image
    def update_broker_config(self, props: Mapping[str, str]) -> None:
        """This broker's own ConfigRecords, all of them (Kafka's updateBrokerConfig)."""
        with self._lock:
            self.dynamic_broker_configs = self._from_persistent_props(props, per_broker_config=True)
            self._update_current_config()

    def update_default_config(self, props: Mapping[str, str]) -> None:
        """The cluster default's ConfigRecords (Kafka's updateDefaultConfig)."""
        with self._lock:
            self.dynamic_default_configs = self._from_persistent_props(props, per_broker_config=False)
            self._update_current_config()

    def _from_persistent_props(self, props: Mapping[str, str], per_broker_config: bool) -> dict[str, str]:
        """What the controller wrote, less what this broker may not take (logged and ignored, as Kafka's
        fromPersistentProps does: one bad record must not stop a broker)."""
        kept = dict(props)
        for key, value in props.items():
            try:
                validate_configs({key: value}, per_broker_config)
            except DynamicConfigError as e:
                log.error("a dynamic config is ignored", key=key, error=str(e))
                kept.pop(key)
        return kept

    def _update_current_config(self) -> None:
        new_props = dict(self.static_broker_configs)
        _override_props(new_props, self.dynamic_default_configs)
        _override_props(new_props, self.dynamic_broker_configs)
        old_config = self.current_config
        try:
            new_config, to_update = self._process_reconfiguration(new_props)
        except DynamicConfigError as e:
            log.error("Failed to update broker configuration", error=str(e))
            return
        if new_config is old_config:
            return
        self.current_config = new_config
        changed = {k for k in new_config.values if new_config.values[k] != old_config.values.get(k)}
        self.kafka_config.values.update({k: new_config.values[k] for k in changed & ALL_DYNAMIC_CONFIGS})
        for reconfigurable in to_update:
            try:
                reconfigurable.reconfigure(old_config, new_config)
            except Exception:  # one component failing must not keep the others on the old values
                log.exception("reconfiguration failed", reconfigurable=type(reconfigurable).__name__)

    # ------------------------------------------------------------------ checking a change
    def validate(self, props: Mapping[str, str], per_broker_config: bool) -> None:
        """A resource's whole new set of dynamic configs (Kafka's validate): DynamicConfigError if this
        broker would not take it. Nothing changes."""
        with self._lock:
            validate_configs(props, per_broker_config)
            new_props = dict(self.static_broker_configs)
            if per_broker_config:
                _override_props(new_props, self.dynamic_default_configs)
                _override_props(new_props, props)
            else:
                _override_props(new_props, props)
                _override_props(new_props, self.dynamic_broker_configs)
            self._process_reconfiguration(new_props)

    def _process_reconfiguration(self, new_props: dict[str, str]):
        """The KafkaConfig of `new_props`, and the reconfigurables whose keys it changes, each of which
        has checked the new values."""
        for reconfigurable in self.reconfigurables:  # what must be checked before a KafkaConfig is made
            if hasattr(reconfigurable, "validate_props"):
                try:
                    reconfigurable.validate_props(new_props)
                except DynamicConfigError as e:
                    raise invalid_dynamic_configuration(str(e)) from None
        try:
            prefixed = self._config_class._is_listener_override
            new_config = self._config_class({k: v for k, v in new_props.items()
                                             if k in CONFIG_KEYS or prefixed(k)})
        except RequirementError as e:  # Kafka's IllegalArgumentException goes out as it is
            raise DynamicConfigError(str(e)) from None
        except ConfigError as e:
            raise invalid_dynamic_configuration(str(e)) from None
        known = new_config.originals
        changed = {k for k in set(known) | set(self.current_config.originals)
                   if known.get(k) != self.current_config.originals.get(k)}
        if not changed:
            return self.current_config, []
        to_update = []
        for reconfigurable in self.reconfigurables:
            if _needs_reconfiguration(reconfigurable.reconfigurable_configs, changed):
                try:
                    reconfigurable.validate_reconfiguration(new_config)
                except DynamicConfigError as e:
                    raise invalid_dynamic_configuration(str(e)) from None
                to_update.append(reconfigurable)
        return new_config, to_update

    # ------------------------------------------------------------------ for DescribeConfigs
    def dynamic_configs(self, per_broker_config: bool) -> dict[str, str]:
        with self._lock:
            return dict(self.dynamic_broker_configs if per_broker_config else self.dynamic_default_configs)


def _needs_reconfiguration(configs: frozenset[str], changed: set[str]) -> bool:
    """A key of the component's changed, itself or with a listener prefix."""
    return any(k in configs or ((m := LISTENER_CONFIG.fullmatch(k)) is not None and m.group(1) in configs)
               for k in changed)


def _override_props(props: dict[str, str], overrides: Mapping[str, str]) -> None:
    """Kafka's overrideProps: each override replaces its synonyms too, so that a dynamic log.retention.ms
    wins over log.retention.hours in server.properties."""
    for key, value in overrides.items():
        for synonym in broker_config_synonyms(key, match_listener_override=False):
            props.pop(synonym, None)
        props[key] = value
