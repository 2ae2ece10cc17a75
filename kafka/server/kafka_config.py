"""KafkaConfig: the broker's configuration, read from server.properties (Kafka's kafka.server.KafkaConfig).

Keys, types and defaults are Kafka's own, so a learner can look any of them up in Kafka's
documentation. `--override key=value` on the command line wins over the file. An unknown key or a
value of the wrong type stops start-up with a message naming the key, as Kafka's ConfigDef does.

Each listener speaks the SecurityProtocol listener.security.protocol.map gives it; an SSL listener
takes the ssl.* keys, each overridable per listener as listener.name.<listener>.ssl.* (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka.coordinator.group import group_config
from kafka.coordinator.group.group_coordinator_config import group_coordinator_config_problem
from kafka.network.end_point import EndPoint, parse_listeners
from kafka.security import sasl_configs
from kafka.security.sasl_configs import SaslConfigError, SaslListenerConfig
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SSL_DEFAULTS, SslConfigError, SslFactory
from kafka.server.abstract_kafka_config import CONFIG_KEYS, AbstractKafkaConfig
from kafka.server.config_def import ConfigError
from kafka.server.remote_log_manager_configs import is_plugin_key
from kafka.server.share.share_group_config import share_group_config_problem

_LISTENER_PREFIX = "listener.name."
_SERVER_ONLY_SSL_KEYS = ("ssl.client.auth", "ssl.principal.mapping.rules")  # a client has no such keys


class KafkaConfig(AbstractKafkaConfig):
    """The broker's parsed configuration: each key a typed attribute declared by AbstractKafkaConfig
    (`config.num_io_threads`), and the values derived from several keys (below). Three of those take
    the attribute of the key they start from, whose own value stays in `values`:
    `advertised_listeners`, `inter_broker_listener_name` and `metadata_log_dir`."""

    def __init__(self, props: Mapping[str, str]) -> None:
        self.originals = dict(props)
        self.values: dict[str, Any] = {}
        for name in props:
            known = name in CONFIG_KEYS or self._is_listener_override(name) or is_plugin_key(name, props)
            if not known:
                raise ConfigError(f"unknown configuration key '{name}'")
        for key in CONFIG_KEYS.values():
            raw = props.get(key.name, key.default)
            self.values[key.name] = None if raw is None else key.parse_value(raw)
        self._validate_kraft()
        self._validate_values()
        self.values["listeners"] = [self._with_protocol(e) for e in self.listeners]
        self._advertised_end_points = [self._with_protocol(e) for e in self._advertised_listeners()
                                       if e.listener_name not in self.controller_listener_names]
        self._validate_security()

    @property
    def dynamic_config(self):
        """Kafka's config.dynamicConfig: the DynamicBrokerConfig that changes this config's dynamic keys at
        run time (kafka/server/dynamic_broker_config.py), made on first use."""
        if "_dynamic_config" not in self.__dict__:
            from kafka.server.dynamic_broker_config import DynamicBrokerConfig
            self.__dict__["_dynamic_config"] = DynamicBrokerConfig(self)
        return self.__dict__["_dynamic_config"]

    @property
    def advertised_listeners(self) -> list[EndPoint]:
        """advertised.listeners, else listeners, each with its security protocol; no controller listener."""
        return self._advertised_end_points

    # ------------------------------------------------------------------ security protocols and ssl.* keys
    @staticmethod
    def _is_listener_override(name: str) -> bool:
        """listener.name.<listener>.ssl.keystore.location and the like (Kafka's per-listener configs)."""
        if not name.startswith(_LISTENER_PREFIX):
            return False
        _, _, key = name[len(_LISTENER_PREFIX):].partition(".")
        return key in SSL_DEFAULTS or sasl_configs.is_listener_sasl_key(key)

    def security_protocol(self, listener_name: str) -> SecurityProtocol:
        """Kafka's effective listener.security.protocol.map: the map, else a listener named after its
        protocol, else PLAINTEXT for a controller listener when the map was not given (left at its
        default)."""
        name = listener_name.upper()
        mapping = self.listener_security_protocol_map
        if name in mapping:
            return mapping[name]
        if name in SecurityProtocol.__members__:
            return SecurityProtocol[name]
        if "listener.security.protocol.map" not in self.originals and name in self.controller_listener_names:
            return SecurityProtocol.PLAINTEXT
        raise ConfigError(f"listener {name} is not in configuration key 'listener.security.protocol.map' "
                          f"({','.join(f'{k}:{v.name}' for k, v in mapping.items()) or 'empty'})")

    def _with_protocol(self, end_point: EndPoint) -> EndPoint:
        return EndPoint(end_point.listener_name, end_point.host, end_point.port,
                        self.security_protocol(end_point.listener_name))

    def ssl_configs(self, listener_name: str) -> dict[str, str | None]:
        """The ssl.* keys of one listener: listener.name.<listener>.ssl.* over ssl.*."""
        prefix = f"{_LISTENER_PREFIX}{listener_name.lower()}."
        overrides = {k[len(prefix):]: v for k, v in self.originals.items() if k.lower().startswith(prefix)}
        return {key: overrides.get(key, self.values[key]) for key in SSL_DEFAULTS}

    def _sasl_get(self, key: str) -> str | None:
        value = next((v for k, v in self.originals.items() if k.lower() == key.lower()), self.values.get(key))
        return None if value is None else str(value)

    # sasl.enabled.mechanisms, JAAS (security.md)
    def sasl_config(self, listener_name: str) -> SaslListenerConfig:
        return sasl_configs.listener_config(self._sasl_get, listener_name)

    def client_configs(self, listener_name: str) -> dict[str, str]:
        """What the broker's own clients (replica fetchers, the controller channel, raft) need to reach
        a listener of another node: security.protocol and, for SSL, the listener's ssl.* keys."""
        protocol = self.security_protocol(listener_name)
        configs = {"security.protocol": protocol.name}
        if protocol.uses_tls:
            configs.update({k: v for k, v in self.ssl_configs(listener_name).items()
                            if v is not None and k not in _SERVER_ONLY_SSL_KEYS})
        if protocol.uses_sasl:  # and the sasl.* keys it logs in with (docs/security.md)
            configs.update(sasl_configs.client_configs(self._sasl_get, listener_name,
                                                       listener_name in self.controller_listener_names))
        return configs

    @property
    def inter_broker_listener_name(self) -> str:
        return (self.values["inter.broker.listener.name"]
                or self.values["security.inter.broker.protocol"].name).upper()

    def _validate_security(self) -> None:
        # its default is PLAINTEXT, as Kafka's
        protocol_set = "security.inter.broker.protocol" in self.originals
        if self.values["inter.broker.listener.name"] and protocol_set:
            raise ConfigError("configuration keys 'inter.broker.listener.name' and "
                              "'security.inter.broker.protocol' cannot both be set: name the listener only")
        for end_point in self.listeners:
            protocol, name = end_point.security_protocol, end_point.listener_name
            try:
                sasl_configs.validate_listener(self._sasl_get, name, protocol,
                                               name in self.controller_listener_names,
                                               self.is_broker and name == self.inter_broker_listener_name)
                if protocol.uses_tls:
                    SslFactory(self.ssl_configs(name), server_mode=True)
            except (SslConfigError, SaslConfigError) as e:
                raise ConfigError(f"listener {name} ({protocol.name}): {e}") from None
        broker_listener_names = [e.listener_name for e in self.broker_listeners]
        if self.is_broker and self.inter_broker_listener_name not in broker_listener_names:
            if self.values["inter.broker.listener.name"] or protocol_set:
                raise ConfigError(f"configuration key 'inter.broker.listener.name' names "
                                  f"{self.inter_broker_listener_name}, which is not in 'listeners'")

    def _validate_values(self) -> None:
        """Kafka's KafkaConfig.validateValues for the network keys."""
        queued, request_max = self.queued_max_request_bytes, self.socket_request_max_bytes
        if queued > 0 and queued < request_max:
            raise ConfigError(f"configuration key 'queued.max.request.bytes' ({queued}) must be larger or "
                              f"equal to socket.request.max.bytes ({request_max}), or -1 for no bound")
        if (problem := share_group_config_problem(self.values)) is not None:
            raise ConfigError(problem)
        if (problem := group_coordinator_config_problem(self.values)) is not None:
            raise ConfigError(problem)

    # ------------------------------------------------------------------ KRaft roles and listeners
    def _validate_kraft(self) -> None:
        """Kafka's KafkaConfig checks of the KRaft keys, each error naming the key to fix.

        An empty controller.quorum.voters on a node with the controller role is the teaching
        broker's embedded default: a quorum of this node alone, its control plane on an ephemeral
        loopback port (CONTROLLER://127.0.0.1:0), so `make run` and every test need no other key."""
        roles, voters = self.process_roles, self.controller_quorum_voters
        names = [n.upper() for n in self.controller_listener_names or []]
        listener_names = [e.listener_name for e in self.listeners]
        # KIP-853: voters from the log
        dynamic = not voters and bool(self.controller_quorum_bootstrap_servers)
        if not voters and not dynamic and "controller" not in roles:
            raise ConfigError("configuration key 'controller.quorum.voters' must name the controllers "
                              "of a node with process.roles=broker")
        if "controller" in roles:
            if voters and self.node_id not in voters:
                raise ConfigError(f"node.id {self.node_id} is not one of the voters in configuration key "
                                  f"'controller.quorum.voters' ({','.join(map(str, voters))}), but "
                                  "process.roles includes controller")
            if not names and not voters and not dynamic:  # the embedded one-node quorum
                names = ["CONTROLLER"]
                if "CONTROLLER" not in listener_names:
                    self.values["listeners"] = [*self.listeners, EndPoint("CONTROLLER", "127.0.0.1", 0)]
            if not names:
                raise ConfigError("configuration key 'controller.listener.names' must name the control-plane "
                                  "listener of a node with process.roles including controller")
            missing = [n for n in names if n not in [e.listener_name for e in self.listeners]]
            if missing:
                raise ConfigError(f"configuration key 'controller.listener.names' names {','.join(missing)}, "
                                  f"which is not in 'listeners' ({','.join(listener_names)})")
        elif not names:
            names = ["CONTROLLER"]  # what a broker-only node calls the controllers' listener
        self.values["controller.listener.names"] = names
        if "broker" in roles and not self.broker_listeners:
            raise ConfigError("configuration key 'listeners' has no listener for clients besides "
                              f"controller.listener.names ({','.join(names)})")

    @property
    def is_controller(self) -> bool:
        return "controller" in self.process_roles

    @property
    def is_broker(self) -> bool:
        return "broker" in self.process_roles

    @property
    def controller_listener_name(self) -> str:
        return self.controller_listener_names[0]

    @property
    def broker_listeners(self) -> list[EndPoint]:
        return [e for e in self.listeners if e.listener_name not in self.controller_listener_names]

    @property
    def controller_listeners(self) -> list[EndPoint]:
        return [e for e in self.listeners if e.listener_name in self.controller_listener_names]

    @property
    def metadata_log_dir(self) -> str:
        return self.values["metadata.log.dir"] or self.log_dirs[0]

    def _advertised_listeners(self) -> list[EndPoint]:
        raw = self.values["advertised.listeners"]
        if not raw:
            return list(self.listeners)
        try:
            return parse_listeners(raw)
        except ValueError as e:
            raise ConfigError(
                f"invalid value {raw!r} for configuration key 'advertised.listeners': {e}") from None

    @property
    def log_retention_time_ms(self) -> int:
        ms = self.values["log.retention.ms"]
        minutes = self.values.get("log.retention.minutes")
        if ms is None and minutes is not None:
            ms = minutes * 60_000
        return ms if ms is not None else self.values["log.retention.hours"] * 3_600_000

    @property
    def log_roll_time_ms(self) -> int:
        ms = self.values.get("log.roll.ms")
        return ms if ms is not None else self.values["log.roll.hours"] * 3_600_000

    @property
    def log_flush_interval_ms_or_default(self) -> int:
        ms = self.values.get("log.flush.interval.ms")
        return ms if ms is not None else self.values["log.flush.scheduler.interval.ms"]

    def non_default_values(self) -> dict[str, str]:
        """What the operator set, secrets masked as Kafka prints its PASSWORD configs."""
        return {k: "[hidden]" if is_sensitive(k) else v
                for k, v in self.originals.items() if k not in CONFIG_KEYS or CONFIG_KEYS[k].default != v}

    def extract_group_config_map(self) -> dict[str, Any]:
        """Kafka's AbstractKafkaConfig.extractGroupConfigMap: the broker's defaults of the group configs, each
        group key given its broker synonym's value (group.consumer.session.timeout.ms for
        consumer.session.timeout.ms; the first of group.streams.assignors for streams.assignor.name). An
        internal key only when server.properties sets its synonym."""
        defaults = {}
        for name in sorted(group_config.config_names()):
            broker_key = group_config.broker_synonym(name)
            internal = group_config.is_internal(name)
            if broker_key in self.values and (not internal or broker_key in self.originals):
                defaults[name] = self.values[broker_key]
        if defaults.get("streams.assignor.name"):
            defaults["streams.assignor.name"] = defaults["streams.assignor.name"][0]
        return defaults

    @classmethod
    def from_file(cls, path: str, overrides: Mapping[str, str] | None = None) -> KafkaConfig:
        try:
            with open(path, encoding="utf-8") as f:
                props = parse_properties(f.read())
        except OSError as e:
            raise ConfigError(f"cannot read configuration file {path}: {e.strerror}") from None
        props.update(overrides or {})
        return cls(props)


def is_sensitive(key: str) -> bool:
    """Kafka's PASSWORD configs: never logged, never returned by DescribeConfigs."""
    return key.endswith((".password", "ssl.keystore.key", "ssl.keystore.certificate.chain",
                         "ssl.truststore.certificates",
                         "sasl.jaas.config"))


def parse_properties(text: str) -> dict[str, str]:
    """Java .properties: `key=value` or `key: value`, # and ! comments, backslash continuations."""
    props: dict[str, str] = {}
    logical = ""
    for raw_line in text.splitlines():
        line = raw_line.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        key, value = _split_property(logical)
        props[key] = value
        logical = ""
    if logical:
        key, value = _split_property(logical)
        props[key] = value
    return props


def _split_property(line: str) -> tuple[str, str]:
    for i, ch in enumerate(line):
        if ch in "=:":
            return line[:i].strip(), line[i + 1 :].strip()
        if ch.isspace():
            rest = line[i:].lstrip()
            if rest[:1] in ("=", ":"):
                rest = rest[1:]
            return line[:i].strip(), rest.strip()
    return line.strip(), ""
