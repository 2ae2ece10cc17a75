"""KafkaConfig: the broker's configuration, read from server.properties (Kafka's kafka.server.KafkaConfig).

Keys, types and defaults are Kafka's own, so a learner can look any of them up in Kafka's
documentation. `--override key=value` on the command line wins over the file. An unknown key or a
value of the wrong type stops start-up with a message naming the key, as Kafka's ConfigDef does.

Each listener speaks the SecurityProtocol listener.security.protocol.map gives it; an SSL listener
takes the ssl.* keys, each overridable per listener as listener.name.<listener>.ssl.* (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka.metrics.prometheus_exporter import parse_metrics_listener
from kafka.network.connection_quotas import parse_max_connections_per_ip_overrides
from kafka.network.end_point import EndPoint, parse_listeners
from kafka.security import sasl_configs
from kafka.security.sasl_configs import SASL_DEFAULTS, SaslConfigError, SaslListenerConfig
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SSL_DEFAULTS, SslConfigError, SslFactory


class ConfigError(ValueError):
    """A bad configuration; the message names the key."""


# ---------------------------------------------------------------------------------- types

def _int(value: str) -> int:
    return int(value.strip())


def _bool(value: str) -> bool:
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ValueError("expected true or false")
    return v == "true"


def _str(value: str) -> str:
    return value.strip()


def _list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _at_least(n: int) -> Callable[[Any], str | None]:
    return lambda v: None if v >= n else f"must be at least {n}"


def _between(low: int, high: int) -> Callable[[Any], str | None]:
    return lambda v: None if low <= v <= high else f"must be between {low} and {high}"


def _non_empty(v: Any) -> str | None:
    return None if v else "must not be empty"


def _cleanup_policy(v: str) -> str | None:
    policies = {p.strip() for p in v.split(",")}
    return None if policies and policies <= {"delete", "compact"} else "must be delete, compact or both"


def _roles(value: str) -> frozenset[str]:
    roles = frozenset(_list(value))
    if not roles or not roles <= {"broker", "controller"}:
        raise ValueError("expected broker, controller, or broker,controller")
    return roles


@dataclass(frozen=True)
class QuorumVoter:
    """One entry of controller.quorum.voters: id@host:port."""
    node_id: int
    host: str
    port: int


def _voters(value: str) -> dict[int, QuorumVoter]:
    voters: dict[int, QuorumVoter] = {}
    for item in _list(value):
        node, at, address = item.partition("@")
        host, colon, port = address.rpartition(":")
        if not at or not colon or not node.strip().isdigit() or not port.isdigit():
            raise ValueError(f"{item!r} is not of the form id@host:port")
        voter = QuorumVoter(int(node), host.strip("[]"), int(port))
        if voter.node_id in voters:
            raise ValueError(f"voter {voter.node_id} is listed twice")
        voters[voter.node_id] = voter
    return voters


def _protocol_map(value: str) -> dict[str, SecurityProtocol]:
    mapping = {}
    for item in _list(value):
        name, colon, protocol = item.partition(":")
        if not colon:
            raise ValueError(f"{item!r} is not of the form NAME:PROTOCOL")
        mapping[name.strip().upper()] = SecurityProtocol.for_name(protocol)
    return mapping


def _security_protocol(value: str) -> SecurityProtocol:
    return SecurityProtocol.for_name(value)


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    return lambda v: None if v.lower() in choices else f"must be one of {', '.join(choices)}"


_LISTENER_PREFIX = "listener.name."
_SERVER_ONLY_SSL_KEYS = ("ssl.client.auth", "ssl.principal.mapping.rules")  # a client has no such keys


INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class ConfigKey:
    name: str
    parse: Callable[[str], Any]
    default: str | None
    doc: str
    validate: Callable[[Any], str | None] | None = None


_KEYS = [
    ConfigKey("node.id", _int, "1", "The id of this broker.", _at_least(0)),
    ConfigKey("listeners", parse_listeners, "PLAINTEXT://:9092", "Where the broker accepts connections."),
    ConfigKey("advertised.listeners", _str, "", "What Metadata tells clients; defaults to listeners."),
    ConfigKey("log.dirs", _list, "/tmp/kraft-combined-logs", "Directories holding the partition logs.",
              _non_empty),
    ConfigKey("num.network.threads", _int, "3", "Processor threads per listener.", _at_least(1)),
    ConfigKey("num.io.threads", _int, "8", "Request handler (I/O) threads.", _at_least(1)),
    ConfigKey("queued.max.requests", _int, "500", "Requests queued before network threads stop reading.",
              _at_least(1)),
    ConfigKey("socket.request.max.bytes", _int, "104857600", "Largest request frame accepted.", _at_least(1)),
    ConfigKey("queued.max.request.bytes", _int, "-1",
              "Bytes of requests being read or waiting for an I/O thread before network threads stop reading "
              "(the MemoryPool); -1 for no bound. At least socket.request.max.bytes when set."),
    ConfigKey("connections.max.idle.ms", _int, "600000",
              "A connection with no traffic for this long is closed by its network thread; -1 never."),
    ConfigKey("max.connections", _int, str(INT32_MAX),
              "Connections the broker holds on a socket server; at it, the acceptor waits for one to close.",
              _at_least(0)),
    ConfigKey("max.connections.per.ip", _int, str(INT32_MAX),
              "Connections allowed from one address; a connection over it is closed at once.", _at_least(0)),
    ConfigKey("max.connections.per.ip.overrides", parse_max_connections_per_ip_overrides, "",
              "Per-address exceptions to max.connections.per.ip: host:count,host:count."),
    ConfigKey("max.connection.creation.rate", _int, str(INT32_MAX),
              "New connections per second the broker accepts; faster, the acceptor delays accepting.",
              _at_least(0)),
    ConfigKey("num.partitions", _int, "1", "Partitions of an auto-created topic.", _at_least(1)),
    ConfigKey("default.replication.factor", _int, "1", "Replication factor of an auto-created topic.",
              _at_least(1)),
    ConfigKey("auto.create.topics.enable", _bool, "true", "Create a topic when a Metadata request first names it."),
    ConfigKey("delete.topic.enable", _bool, "true", "Whether DeleteTopics is allowed."),
    ConfigKey("log.segment.bytes", _int, "1073741824", "Size at which a segment rolls.", _between(14, INT32_MAX)),
    ConfigKey("log.index.interval.bytes", _int, "4096", "Bytes between two offset index entries.",
              _at_least(0)),
    ConfigKey("message.max.bytes", _int, "1048588", "Largest record batch accepted.", _between(0, INT32_MAX)),
    ConfigKey("log.retention.hours", _int, "168", "Retention time (hours) of log segments.", _at_least(-1)),
    ConfigKey("log.retention.ms", _int, None, "Retention time (ms); overrides log.retention.hours.",
              _at_least(-1)),
    ConfigKey("log.retention.bytes", _int, "-1", "Retention size per partition; -1 is unlimited.",
              _at_least(-1)),
    ConfigKey("log.cleanup.policy", _str, "delete", "delete or compact.", _cleanup_policy),
    ConfigKey("min.insync.replicas", _int, "1", "Replicas that must have a batch for acks=all.", _at_least(1)),
    # fetch sessions (KIP-227, docs/performance.md)
    ConfigKey("max.incremental.fetch.session.cache.slots", _int, "1000",
              "Fetch sessions the broker remembers; a fetcher without one sends full fetch requests.", _at_least(0)),
    # replication: followers fetch from leaders (docs/replication.md)
    ConfigKey("replica.lag.time.max.ms", _int, "30000",
              "A follower not caught up with its leader for this long leaves the ISR.", _at_least(1)),
    ConfigKey("replica.fetch.wait.max.ms", _int, "500", "How long a leader may hold a follower's fetch.",
              _at_least(0)),
    ConfigKey("replica.fetch.min.bytes", _int, "1", "Bytes a follower's fetch waits for.", _at_least(1)),
    ConfigKey("replica.fetch.max.bytes", _int, "1048576", "Bytes a follower fetches per partition.", _at_least(0)),
    ConfigKey("replica.fetch.response.max.bytes", _int, "10485760", "Bytes a follower's fetch response may hold.",
              _at_least(0)),
    ConfigKey("replica.fetch.backoff.ms", _int, "1000", "A follower's pause after a fetch error.", _at_least(0)),
    ConfigKey("replica.socket.timeout.ms", _int, "30000", "How long a follower waits for its leader's answer.",
              _at_least(1)),
    ConfigKey("num.replica.fetchers", _int, "1", "Fetcher threads per source broker.", _at_least(1)),
    # log: retention, cleaner, flush, recovery
    ConfigKey("log.roll.hours", _int, "168", "Age (hours) at which a segment rolls.", _at_least(1)),
    ConfigKey("log.roll.ms", _int, None, "Age (ms) at which a segment rolls; overrides log.roll.hours.", _at_least(1)),
    ConfigKey("log.index.size.max.bytes", _int, "10485760", "Largest offset/time index per segment.", _at_least(4)),
    ConfigKey("log.retention.minutes", _int, None, "Retention time (minutes); between hours and ms."),
    ConfigKey("log.retention.check.interval.ms", _int, "300000", "How often retention deletes old segments.",
              _at_least(1)),
    ConfigKey("log.segment.delete.delay.ms", _int, "60000", "Delay before a deleted segment's files go.",
              _at_least(0)),
    ConfigKey("log.flush.interval.messages", _int, str(2**63 - 1), "fsync after this many records.",
              _at_least(1)),
    ConfigKey("log.flush.interval.ms", _int, None, "fsync a log after this long; default: flush scheduler's."),
    ConfigKey("log.flush.scheduler.interval.ms", _int, str(2**63 - 1), "How often to look for logs to flush."),
    ConfigKey("log.flush.offset.checkpoint.interval.ms", _int, "60000",
              "How often recovery-point-offset-checkpoint is written.", _at_least(0)),
    ConfigKey("log.flush.start.offset.checkpoint.interval.ms", _int, "60000",
              "How often log-start-offset-checkpoint is written.", _at_least(0)),
    ConfigKey("replica.high.watermark.checkpoint.interval.ms", _int, "5000",
              "How often replication-offset-checkpoint (high watermarks) is written.", _at_least(1)),
    ConfigKey("log.cleaner.enable", _bool, "true", "Run the LogCleaner for cleanup.policy=compact topics."),
    ConfigKey("log.cleaner.threads", _int, "1", "Log cleaner threads.", _at_least(0)),
    ConfigKey("log.cleaner.backoff.ms", _int, "15000", "Sleep when no log needs cleaning.", _at_least(0)),
    ConfigKey("log.cleaner.dedupe.buffer.size", _int, "134217728", "Memory for the cleaners' offset maps.",
              _at_least(1)),
    ConfigKey("log.cleaner.delete.retention.ms", _int, "86400000", "How long tombstones are kept.", _at_least(0)),
    ConfigKey("log.cleaner.min.cleanable.ratio", float, "0.5", "Dirty ratio at which a log is cleaned.",
              lambda v: None if 0.0 <= v <= 1.0 else "must be between 0 and 1"),
    ConfigKey("log.cleaner.min.compaction.lag.ms", _int, "0", "Minimum age of a record before compaction.",
              _at_least(0)),
    # idempotent producers (KIP-98): how long a partition remembers a silent producer, and how often it looks
    ConfigKey("producer.id.expiration.ms", _int, "86400000",
              "A partition forgets a producer id that has written nothing for this long.", _at_least(1)),
    ConfigKey("producer.id.expiration.check.interval.ms", _int, "600000",
              "How often expired producer ids are removed.", _at_least(1)),
    # group coordinator and __consumer_offsets
    ConfigKey("group.initial.rebalance.delay.ms", _int, "3000",
              "How long an empty group waits for more members before its first rebalance.", _at_least(0)),
    ConfigKey("group.min.session.timeout.ms", _int, "6000", "Smallest session.timeout.ms a member may ask for.",
              _at_least(0)),
    ConfigKey("group.max.session.timeout.ms", _int, "1800000", "Largest session.timeout.ms a member may ask for.",
              _at_least(0)),
    ConfigKey("group.max.size", _int, "2147483647", "Most members one consumer group may have.", _at_least(1)),
    ConfigKey("offsets.topic.num.partitions", _int, "50", "Partitions of __consumer_offsets (fixed once created).",
              _at_least(1)),
    ConfigKey("offsets.topic.segment.bytes", _int, "104857600", "Segment size of __consumer_offsets.",
              _at_least(14)),
    ConfigKey("offsets.retention.minutes", _int, "10080",
              "How long an empty group's committed offsets are kept.", _at_least(1)),
    ConfigKey("offsets.retention.check.interval.ms", _int, "600000", "How often expired offsets are looked for.",
              _at_least(1)),
    ConfigKey("offsets.commit.timeout.ms", _int, "5000",
              "How long an offset commit waits for its record to be committed.", _at_least(1)),
    ConfigKey("offset.metadata.max.bytes", _int, "4096", "Largest metadata string an offset commit may carry."),
    # transaction coordinator and __transaction_state (KIP-98); Kafka's keys and defaults, except the
    # replication factor and min ISR, which default to 1 like offsets.topic.replication.factor here
    ConfigKey("transaction.state.log.num.partitions", _int, "50",
              "Partitions of __transaction_state (fixed once created).", _at_least(1)),
    ConfigKey("transaction.state.log.replication.factor", _int, "1",
              "Replication factor of __transaction_state when it is created.", _at_least(1)),
    ConfigKey("transaction.state.log.min.isr", _int, "1", "min.insync.replicas of __transaction_state.",
              _at_least(1)),
    ConfigKey("transaction.state.log.segment.bytes", _int, "104857600", "Segment size of __transaction_state.",
              _at_least(14)),
    ConfigKey("transaction.state.log.load.buffer.size", _int, "5242880",
              "Bytes read at a time when loading __transaction_state.", _at_least(1)),
    ConfigKey("transaction.max.timeout.ms", _int, "900000",
              "Largest transaction.timeout.ms a producer may ask for.", _at_least(1)),
    ConfigKey("transactional.id.expiration.ms", _int, "604800000",
              "A transactional id with no transaction for this long is forgotten.", _at_least(1)),
    ConfigKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", _int, "10000",
              "How often transactions open past their timeout are aborted.", _at_least(1)),
    ConfigKey("transaction.remove.expired.transaction.cleanup.interval.ms", _int, "3600000",
              "How often expired transactional ids are removed.", _at_least(1)),
    # client quotas (docs/quotas.md): the windows a client's byte rate and request time are measured over
    ConfigKey("quota.window.num", _int, "11", "Windows a client quota's rate is measured over.", _at_least(1)),
    ConfigKey("quota.window.size.seconds", _int, "1", "Length of each of those windows, in seconds.",
              _at_least(1)),
    # metrics, logging and the request trace
    ConfigKey("metrics.listener", parse_metrics_listener, "http://127.0.0.1:9404",
              "Where /metrics (Prometheus) and /requests are served: http://host:port; empty disables."),
    ConfigKey("request.trace.enable", _bool, "false",
              "Record every request's hand-offs and threads for /requests and kafka-request-trace."),
    # KRaft (docs/kraft.md): the roles of this node, the static voters of the metadata quorum and
    # the control-plane listener they talk on; Kafka's keys and defaults.
    ConfigKey("process.roles", _roles, "broker,controller",
              "broker, controller, or both (a combined node; the one-node default)."),
    ConfigKey("controller.quorum.voters", _voters, "",
              "The static voters, id@host:port,...; empty: this node alone, on an ephemeral CONTROLLER port."),
    ConfigKey("controller.quorum.bootstrap.servers", _str, "", "Accepted, not acted on (dynamic quorums)."),
    ConfigKey("controller.listener.names", _list, "", "Listeners of the control plane (the first is used)."),
    ConfigKey("inter.broker.listener.name", _str, None,
              "The listener brokers use to reach each other; default: security.inter.broker.protocol's name."),
    ConfigKey("security.inter.broker.protocol", _security_protocol, None,
              "The protocol brokers use to reach each other (PLAINTEXT); not with inter.broker.listener.name."),
    ConfigKey("listener.security.protocol.map", _protocol_map, "",
              "NAME:PROTOCOL,... (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); a listener named after "
              "a protocol needs no entry."),
    # TLS (docs/security.md); Kafka's SslConfigs and BrokerSecurityConfigs, listener.name.<l>.ssl.* overrides
    *(ConfigKey(name, _str, default, "See docs/security.md.") for name, default in SSL_DEFAULTS.items()
      if name != "ssl.client.auth"),
    *(ConfigKey(k, _int if v and v.isdigit() else _str, v, "See docs/security.md.") for k, v in SASL_DEFAULTS.items()),
    ConfigKey("ssl.client.auth", _str, "none", "required, requested or none: ask TLS clients for a certificate.",
              _one_of("required", "requested", "none")),
    ConfigKey("controller.quorum.election.timeout.ms", _int, "1000",
              "How long a voter waits without hearing from a leader before it stands for election.", _at_least(1)),
    ConfigKey("controller.quorum.fetch.timeout.ms", _int, "2000",
              "How long a follower waits for a successful Fetch before it suspects the leader.", _at_least(1)),
    ConfigKey("controller.quorum.election.backoff.max.ms", _int, "1000",
              "The longest a candidate backs off before standing again.", _at_least(1)),
    ConfigKey("controller.quorum.request.timeout.ms", _int, "2000", "Timeout of a request between voters.",
              _at_least(1)),
    ConfigKey("controller.quorum.retry.backoff.ms", _int, "20", "Backoff before a failed quorum request is retried.",
              _at_least(0)),
    ConfigKey("controller.quorum.append.linger.ms", _int, "25",
              "How long the leader waits to batch appends to the metadata log.", _at_least(0)),
    ConfigKey("broker.session.timeout.ms", _int, "9000",
              "A broker whose heartbeats stop for this long is fenced by the controller.", _at_least(1)),
    ConfigKey("broker.heartbeat.interval.ms", _int, "2000", "How often a broker heartbeats the controller.",
              _at_least(1)),
    ConfigKey("metadata.log.dir", _str, "", "Where __cluster_metadata-0 lives; empty: the first of log.dirs."),
    ConfigKey("metadata.log.segment.bytes", _int, "1073741824", "Segment size of the metadata log.", _at_least(14)),
    ConfigKey("metadata.log.segment.ms", _int, "604800000", "Age at which a metadata log segment rolls.",
              _at_least(1)),
    ConfigKey("metadata.max.retention.bytes", _int, "104857600",
              "Metadata log bytes kept behind the latest snapshot.", _at_least(-1)),
    ConfigKey("metadata.max.retention.ms", _int, "604800000", "How long metadata log segments are kept.",
              _at_least(-1)),
    ConfigKey("metadata.log.max.record.bytes.between.snapshots", _int, "20971520",
              "A snapshot is written after this many bytes of new metadata records.", _at_least(1)),
    ConfigKey("metadata.log.max.snapshot.interval.ms", _int, "3600000",
              "A snapshot is written at least this often when there are new records (0: never by time).",
              _at_least(0)),
    ConfigKey("metadata.max.idle.interval.ms", _int, "500",
              "The active controller appends a NoOpRecord this often, so brokers see it is alive.", _at_least(0)),
    ConfigKey("unclean.leader.election.enable", _bool, "false",
              "Elect a leader outside the ISR when no ISR member is alive (may lose records)."),
    ConfigKey("auto.leader.rebalance.enable", _bool, "true",
              "The controller moves leadership back to preferred replicas when brokers lead too little."),
    ConfigKey("leader.imbalance.check.interval.seconds", _int, "300", "How often the leader balance is checked.",
              _at_least(1)),
    ConfigKey("leader.imbalance.per.broker.percentage", _int, "10",
              "Share of a broker's preferred partitions led elsewhere that triggers preferred elections.",
              _between(0, 100)),
    ConfigKey("offsets.topic.replication.factor", _int, "1",
              "Replication factor of __consumer_offsets when it is created.", _at_least(1)),
    # Keys of Kafka's sample server.properties that the teaching broker accepts without acting on them,
    # so that Kafka's own file starts it. They are listed in docs/configuration.md.
    ConfigKey("socket.send.buffer.bytes", _int, "102400", "Accepted, not acted on."),
    ConfigKey("socket.receive.buffer.bytes", _int, "102400", "Accepted, not acted on."),
    ConfigKey("num.recovery.threads.per.data.dir", _int, "1", "Accepted, not acted on."),
    ConfigKey("share.coordinator.state.topic.replication.factor", _int, "1", "Accepted, not acted on."),
    ConfigKey("share.coordinator.state.topic.min.isr", _int, "1", "Accepted, not acted on."),
]
CONFIG_KEYS: dict[str, ConfigKey] = {key.name: key for key in _KEYS}


class KafkaConfig:
    """Typed broker configuration. Attribute names are the keys with dots turned into underscores."""

    def __init__(self, props: Mapping[str, str]) -> None:
        self.originals = dict(props)
        self.values: dict[str, Any] = {}
        for name in props:
            if name not in CONFIG_KEYS and not self._is_listener_override(name):
                raise ConfigError(f"unknown configuration key '{name}'")
        for key in _KEYS:
            raw = props.get(key.name, key.default)
            self.values[key.name] = None if raw is None else self._parse(key, raw)
        self._validate_kraft()
        self._validate_values()
        self.values["listeners"] = [self._with_protocol(e) for e in self.listeners]
        self.advertised_listeners = [self._with_protocol(e) for e in self._advertised_listeners()
                                     if e.listener_name not in self.controller_listener_names]
        self._validate_security()

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
        protocol, else PLAINTEXT for a controller listener when the map was not given."""
        name = listener_name.upper()
        mapping = self.listener_security_protocol_map
        if name in mapping:
            return mapping[name]
        if name in SecurityProtocol.__members__:
            return SecurityProtocol[name]
        if not mapping and name in self.controller_listener_names:
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

    def sasl_config(self, listener_name: str) -> SaslListenerConfig:  # sasl.enabled.mechanisms, JAAS (security.md)
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
        protocol = self.values["security.inter.broker.protocol"]
        return (self.values["inter.broker.listener.name"] or (protocol or SecurityProtocol.PLAINTEXT).name).upper()

    def _validate_security(self) -> None:
        protocol_set = self.values["security.inter.broker.protocol"] is not None  # PLAINTEXT is 0, falsy
        if self.values["inter.broker.listener.name"] and protocol_set:
            raise ConfigError("configuration keys 'inter.broker.listener.name' and 'security.inter.broker.protocol' "
                              "cannot both be set: name the listener only")
        for end_point in self.listeners:
            protocol, name = end_point.security_protocol, end_point.listener_name
            try:
                sasl_configs.validate_listener(self._sasl_get, name, protocol, name in self.controller_listener_names,
                                               self.is_broker and name == self.inter_broker_listener_name)
                if protocol.uses_tls:
                    SslFactory(self.ssl_configs(name), server_mode=True)
            except (SslConfigError, SaslConfigError) as e:
                raise ConfigError(f"listener {name} ({protocol.name}): {e}") from None
        if self.is_broker and self.inter_broker_listener_name not in [e.listener_name for e in self.broker_listeners]:
            if self.values["inter.broker.listener.name"] or protocol_set:
                raise ConfigError(f"configuration key 'inter.broker.listener.name' names "
                                  f"{self.inter_broker_listener_name}, which is not in 'listeners'")

    def _validate_values(self) -> None:
        """Kafka's KafkaConfig.validateValues for the network keys."""
        queued, request_max = self.queued_max_request_bytes, self.socket_request_max_bytes
        if queued > 0 and queued < request_max:
            raise ConfigError(f"configuration key 'queued.max.request.bytes' ({queued}) must be larger or equal to "
                              f"socket.request.max.bytes ({request_max}), or -1 for no bound")

    # ------------------------------------------------------------------ KRaft roles and listeners
    def _validate_kraft(self) -> None:
        """Kafka's KafkaConfig checks of the KRaft keys, each error naming the key to fix.

        An empty controller.quorum.voters on a node with the controller role is the teaching
        broker's embedded default: a quorum of this node alone, its control plane on an ephemeral
        loopback port (CONTROLLER://127.0.0.1:0), so `make run` and every test need no other key."""
        roles, voters = self.process_roles, self.controller_quorum_voters
        names = [n.upper() for n in self.controller_listener_names]
        listener_names = [e.listener_name for e in self.listeners]
        if not voters and "controller" not in roles:
            raise ConfigError("configuration key 'controller.quorum.voters' must name the controllers "
                              "of a node with process.roles=broker")
        if "controller" in roles:
            if voters and self.node_id not in voters:
                raise ConfigError(f"node.id {self.node_id} is not one of the voters in configuration key "
                                  f"'controller.quorum.voters' ({','.join(map(str, voters))}), but "
                                  "process.roles includes controller")
            if not names and not voters:  # the embedded one-node quorum
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

    @staticmethod
    def _parse(key: ConfigKey, raw: str) -> Any:
        try:
            value = key.parse(raw)
        except ValueError as e:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{key.name}': {e}") from None
        problem = key.validate(value) if key.validate else None
        if problem:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{key.name}': {problem}")
        return value

    def _advertised_listeners(self) -> list[EndPoint]:
        raw = self.values["advertised.listeners"]
        if not raw:
            return list(self.listeners)
        try:
            return parse_listeners(raw)
        except ValueError as e:
            raise ConfigError(f"invalid value {raw!r} for configuration key 'advertised.listeners': {e}") from None

    def __getattr__(self, attr: str) -> Any:
        name = attr.replace("_", ".")
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(attr)

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
        return {k: "[hidden]" if k.endswith((".password", "ssl.keystore.key", "sasl.jaas.config")) else v
                for k, v in self.originals.items() if k not in CONFIG_KEYS or CONFIG_KEYS[k].default != v}

    @classmethod
    def from_file(cls, path: str, overrides: Mapping[str, str] | None = None) -> KafkaConfig:
        try:
            with open(path, encoding="utf-8") as f:
                props = parse_properties(f.read())
        except OSError as e:
            raise ConfigError(f"cannot read configuration file {path}: {e.strerror}") from None
        props.update(overrides or {})
        return cls(props)


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
