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

from kafka.coordinator.group.assignor import assignors_problem
from kafka.metadata.authorizer.standard_authorizer import authorizer_class_problem, parse_super_users
from kafka.metrics.prometheus_exporter import parse_metrics_listener
from kafka.network.connection_quotas import parse_max_connections_per_ip_overrides
from kafka.network.end_point import EndPoint, parse_listeners
from kafka.raft.raft_config import parse_bootstrap_servers, parse_voter_connections
from kafka.security import sasl_configs
from kafka.security.sasl_configs import SASL_DEFAULTS, SaslConfigError, SaslListenerConfig
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SSL_DEFAULTS, SslConfigError, SslFactory
from kafka.server.config_def import (
    BOOLEAN,
    INT,
    INT32_MAX,
    LIST,
    STRING,
    ConfigError,
    ConfigKey,
    at_least,
    between,
    non_empty,
    one_of,
)
from kafka.server.share.share_group_config import SHARE_GROUP_CONFIG_KEYS, share_group_config_problem

# ---------------------------------------------------------------------------------- types

def _cleanup_policy(v: str) -> str | None:
    policies = {p.strip() for p in v.split(",")}
    return None if policies and policies <= {"delete", "compact"} else "must be delete, compact or both"


def _roles(value: str) -> frozenset[str]:
    roles = frozenset(LIST(value))
    if not roles or not roles <= {"broker", "controller"}:
        raise ValueError("expected broker, controller, or broker,controller")
    return roles


def _protocol_map(value: str) -> dict[str, SecurityProtocol]:
    mapping = {}
    for item in LIST(value):
        name, colon, protocol = item.partition(":")
        if not colon:
            raise ValueError(f"{item!r} is not of the form NAME:PROTOCOL")
        mapping[name.strip().upper()] = SecurityProtocol.for_name(protocol)
    return mapping


def _security_protocol(value: str) -> SecurityProtocol:
    return SecurityProtocol.for_name(value)


_LISTENER_PREFIX = "listener.name."
_SERVER_ONLY_SSL_KEYS = ("ssl.client.auth", "ssl.principal.mapping.rules")  # a client has no such keys


_KEYS = [
    ConfigKey("node.id", INT, "1", "The id of this broker.", at_least(0)),
    ConfigKey("listeners", parse_listeners, "PLAINTEXT://:9092", "Where the broker accepts connections."),
    ConfigKey("advertised.listeners", STRING, None, "What Metadata tells clients; defaults to listeners."),
    ConfigKey("log.dirs", LIST, "/tmp/kraft-combined-logs", "Directories holding the partition logs.",
              non_empty),
    ConfigKey("num.network.threads", INT, "3", "Processor threads per listener.", at_least(1)),
    ConfigKey("num.io.threads", INT, "8", "Request handler (I/O) threads.", at_least(1)),
    ConfigKey("queued.max.requests", INT, "500", "Requests queued before network threads stop reading.",
              at_least(1)),
    ConfigKey("socket.request.max.bytes", INT, "104857600", "Largest request frame accepted.", at_least(1)),
    ConfigKey("queued.max.request.bytes", INT, "-1",
              "Bytes of requests being read or waiting for an I/O thread before network threads stop reading "
              "(the MemoryPool); -1 for no bound. At least socket.request.max.bytes when set."),
    ConfigKey("connections.max.idle.ms", INT, "600000",
              "A connection with no traffic for this long is closed by its network thread; -1 never."),
    ConfigKey("max.connections", INT, str(INT32_MAX),
              "Connections the broker holds on a socket server; at it, the acceptor waits for one to close.",
              at_least(0)),
    ConfigKey("max.connections.per.ip", INT, str(INT32_MAX),
              "Connections allowed from one address; a connection over it is closed at once.", at_least(0)),
    ConfigKey("max.connections.per.ip.overrides", parse_max_connections_per_ip_overrides, "",
              "Per-address exceptions to max.connections.per.ip: host:count,host:count."),
    ConfigKey("max.connection.creation.rate", INT, str(INT32_MAX),
              "New connections per second the broker accepts; faster, the acceptor delays accepting.",
              at_least(0)),
    ConfigKey("num.partitions", INT, "1", "Partitions of an auto-created topic.", at_least(1)),
    ConfigKey("default.replication.factor", INT, "1", "Replication factor of an auto-created topic.",
              at_least(1)),
    ConfigKey("auto.create.topics.enable", BOOLEAN, "true", "Create a topic when a Metadata request first names it."),
    ConfigKey("delete.topic.enable", BOOLEAN, "true", "Whether DeleteTopics is allowed."),
    ConfigKey("log.segment.bytes", INT, "1073741824", "Size at which a segment rolls.", between(14, INT32_MAX)),
    ConfigKey("log.index.interval.bytes", INT, "4096", "Bytes between two offset index entries.",
              at_least(0)),
    ConfigKey("message.max.bytes", INT, "1048588", "Largest record batch accepted.", between(0, INT32_MAX)),
    ConfigKey("log.retention.hours", INT, "168", "Retention time (hours) of log segments.", at_least(-1)),
    ConfigKey("log.retention.ms", INT, None, "Retention time (ms); overrides log.retention.hours.",
              at_least(-1)),
    ConfigKey("log.retention.bytes", INT, "-1", "Retention size per partition; -1 is unlimited.",
              at_least(-1)),
    ConfigKey("log.cleanup.policy", STRING, "delete", "delete or compact.", _cleanup_policy),
    ConfigKey("min.insync.replicas", INT, "1", "Replicas that must have a batch for acks=all.", at_least(1)),
    # fetch sessions (KIP-227, docs/performance.md)
    ConfigKey("max.incremental.fetch.session.cache.slots", INT, "1000",
              "Fetch sessions the broker remembers; a fetcher without one sends full fetch requests.", at_least(0)),
    # replication: followers fetch from leaders (docs/replication.md)
    ConfigKey("replica.lag.time.max.ms", INT, "30000",
              "A follower not caught up with its leader for this long leaves the ISR.", at_least(1)),
    ConfigKey("replica.fetch.wait.max.ms", INT, "500", "How long a leader may hold a follower's fetch.",
              at_least(0)),
    ConfigKey("replica.fetch.min.bytes", INT, "1", "Bytes a follower's fetch waits for.", at_least(1)),
    ConfigKey("replica.fetch.max.bytes", INT, "1048576", "Bytes a follower fetches per partition.", at_least(0)),
    ConfigKey("replica.fetch.response.max.bytes", INT, "10485760", "Bytes a follower's fetch response may hold.",
              at_least(0)),
    ConfigKey("replica.fetch.backoff.ms", INT, "1000", "A follower's pause after a fetch error.", at_least(0)),
    ConfigKey("replica.socket.timeout.ms", INT, "30000", "How long a follower waits for its leader's answer.",
              at_least(1)),
    ConfigKey("num.replica.fetchers", INT, "1", "Fetcher threads per source broker.", at_least(1)),
    # log: retention, cleaner, flush, recovery
    ConfigKey("log.roll.hours", INT, "168", "Age (hours) at which a segment rolls.", at_least(1)),
    ConfigKey("log.roll.ms", INT, None, "Age (ms) at which a segment rolls; overrides log.roll.hours.", at_least(1)),
    ConfigKey("log.index.size.max.bytes", INT, "10485760", "Largest offset/time index per segment.", at_least(4)),
    ConfigKey("log.retention.minutes", INT, None, "Retention time (minutes); between hours and ms."),
    ConfigKey("log.retention.check.interval.ms", INT, "300000", "How often retention deletes old segments.",
              at_least(1)),
    ConfigKey("log.segment.delete.delay.ms", INT, "60000", "Delay before a deleted segment's files go.",
              at_least(0)),
    ConfigKey("log.flush.interval.messages", INT, str(2**63 - 1), "fsync after this many records.",
              at_least(1)),
    ConfigKey("log.flush.interval.ms", INT, None, "fsync a log after this long; default: flush scheduler's."),
    ConfigKey("log.flush.scheduler.interval.ms", INT, str(2**63 - 1), "How often to look for logs to flush."),
    ConfigKey("log.flush.offset.checkpoint.interval.ms", INT, "60000",
              "How often recovery-point-offset-checkpoint is written.", at_least(0)),
    ConfigKey("log.flush.start.offset.checkpoint.interval.ms", INT, "60000",
              "How often log-start-offset-checkpoint is written.", at_least(0)),
    ConfigKey("replica.high.watermark.checkpoint.interval.ms", INT, "5000",
              "How often replication-offset-checkpoint (high watermarks) is written.", at_least(1)),
    ConfigKey("log.cleaner.enable", BOOLEAN, "true", "Run the LogCleaner for cleanup.policy=compact topics."),
    ConfigKey("log.cleaner.threads", INT, "1", "Log cleaner threads.", at_least(0)),
    ConfigKey("log.cleaner.backoff.ms", INT, "15000", "Sleep when no log needs cleaning.", at_least(0)),
    ConfigKey("log.cleaner.dedupe.buffer.size", INT, "134217728", "Memory for the cleaners' offset maps.",
              at_least(1)),
    ConfigKey("log.cleaner.delete.retention.ms", INT, "86400000", "How long tombstones are kept.", at_least(0)),
    ConfigKey("log.cleaner.min.cleanable.ratio", float, "0.5", "Dirty ratio at which a log is cleaned.",
              lambda v: None if 0.0 <= v <= 1.0 else "must be between 0 and 1"),
    ConfigKey("log.cleaner.min.compaction.lag.ms", INT, "0", "Minimum age of a record before compaction.",
              at_least(0)),
    # idempotent producers (KIP-98): how long a partition remembers a silent producer, and how often it looks
    ConfigKey("producer.id.expiration.ms", INT, "86400000",
              "A partition forgets a producer id that has written nothing for this long.", at_least(1)),
    ConfigKey("producer.id.expiration.check.interval.ms", INT, "600000",
              "How often expired producer ids are removed.", at_least(1)),
    # group coordinator and __consumer_offsets
    ConfigKey("group.initial.rebalance.delay.ms", INT, "3000",
              "How long an empty group waits for more members before its first rebalance.", at_least(0)),
    ConfigKey("group.min.session.timeout.ms", INT, "6000", "Smallest session.timeout.ms a member may ask for.",
              at_least(0)),
    ConfigKey("group.max.session.timeout.ms", INT, "1800000", "Largest session.timeout.ms a member may ask for.",
              at_least(0)),
    ConfigKey("group.max.size", INT, "2147483647", "Most members one consumer group may have.", at_least(1)),
    ConfigKey("group.coordinator.threads", INT, "4",
              "Threads of the group coordinator's event processor: one shard's events run one at a time.",
              at_least(1)),
    # KIP-848 consumer groups (group.protocol=consumer): the broker computes their assignment
    ConfigKey("group.consumer.session.timeout.ms", INT, "45000", "A silent member is removed after this.", at_least(1)),
    ConfigKey("group.consumer.heartbeat.interval.ms", INT, "5000", "Members heartbeat this often.", at_least(1)),
    ConfigKey("group.consumer.assignors", LIST, "uniform,range",
              "Server-side assignors, by name or class; the first is the default.", assignors_problem),
    ConfigKey("group.consumer.max.size", INT, "2147483647", "Most members one consumer group may have.", at_least(1)),
    ConfigKey("group.consumer.migration.policy", STRING, "bidirectional",
              "Which online conversions between a classic and a consumer group with members are allowed: "
              "disabled, upgrade, downgrade or bidirectional.",
              one_of("disabled", "upgrade", "downgrade", "bidirectional")),
    ConfigKey("offsets.topic.num.partitions", INT, "50", "Partitions of __consumer_offsets (fixed once created).",
              at_least(1)),
    ConfigKey("offsets.topic.segment.bytes", INT, "104857600", "Segment size of __consumer_offsets.",
              at_least(14)),
    ConfigKey("offsets.retention.minutes", INT, "10080",
              "How long an empty group's committed offsets are kept.", at_least(1)),
    ConfigKey("offsets.retention.check.interval.ms", INT, "600000", "How often expired offsets are looked for.",
              at_least(1)),
    ConfigKey("offsets.commit.timeout.ms", INT, "5000",
              "How long an offset commit waits for its record to be committed.", at_least(1)),
    ConfigKey("offset.metadata.max.bytes", INT, "4096", "Largest metadata string an offset commit may carry."),
    # transaction coordinator and __transaction_state (KIP-98); Kafka's keys and defaults, except the
    # replication factor and min ISR, which default to 1 like offsets.topic.replication.factor here
    ConfigKey("transaction.state.log.num.partitions", INT, "50",
              "Partitions of __transaction_state (fixed once created).", at_least(1)),
    ConfigKey("transaction.state.log.replication.factor", INT, "1",
              "Replication factor of __transaction_state when it is created.", at_least(1)),
    ConfigKey("transaction.state.log.min.isr", INT, "1", "min.insync.replicas of __transaction_state.",
              at_least(1)),
    ConfigKey("transaction.state.log.segment.bytes", INT, "104857600", "Segment size of __transaction_state.",
              at_least(14)),
    ConfigKey("transaction.state.log.load.buffer.size", INT, "5242880",
              "Bytes read at a time when loading __transaction_state.", at_least(1)),
    ConfigKey("transaction.max.timeout.ms", INT, "900000",
              "Largest transaction.timeout.ms a producer may ask for.", at_least(1)),
    ConfigKey("transactional.id.expiration.ms", INT, "604800000",
              "A transactional id with no transaction for this long is forgotten.", at_least(1)),
    ConfigKey("transaction.abort.timed.out.transaction.cleanup.interval.ms", INT, "10000",
              "How often transactions open past their timeout are aborted.", at_least(1)),
    ConfigKey("transaction.partition.verification.enable", BOOLEAN, "true",
              "Refuse a transactional batch for a partition not added to its transaction (KIP-890)."),
    ConfigKey("transaction.remove.expired.transaction.cleanup.interval.ms", INT, "3600000",
              "How often expired transactional ids are removed.", at_least(1)),
    # share coordinator and __share_group_state (KIP-932): Kafka 4.4's keys and defaults (ShareCoordinatorConfig;
    # its two internal keys, state.topic.prune.interval.ms and cold.partition.snapshot.interval.ms, keep defaults)
    ConfigKey("share.coordinator.state.topic.num.partitions", INT, "50", "Partitions of the state topic.", at_least(1)),
    ConfigKey("share.coordinator.state.topic.replication.factor", INT, "3", "Replication factor of the state topic.",
              at_least(1)),
    ConfigKey("share.coordinator.state.topic.min.isr", INT, "2", "Its min.insync.replicas.", at_least(1)),
    ConfigKey("share.coordinator.state.topic.segment.bytes", INT, "104857600", "Segment size of __share_group_state.",
              at_least(1)),
    ConfigKey("share.coordinator.load.buffer.size", INT, "5242880", "Bytes read at a time when loading.", at_least(1)),
    ConfigKey("share.coordinator.threads", INT, "1", "Threads of the share coordinator's runtime.", at_least(1)),
    ConfigKey("share.coordinator.write.timeout.ms", INT, "5000", "How long a write waits to commit.", at_least(1)),
    ConfigKey("share.coordinator.append.linger.ms", INT, "-1", "Accepted: each write is its own batch.", at_least(-1)),
    ConfigKey("share.coordinator.snapshot.update.records.per.snapshot", INT, "500",
              "Update records written for a share partition between two of its snapshots.", between(0, 500)),
    *SHARE_GROUP_CONFIG_KEYS,  # share groups (KIP-932): group.share.*, in share/share_group_config.py
    # client quotas (docs/quotas.md): the windows a client's byte rate and request time are measured over
    ConfigKey("quota.window.num", INT, "11", "Windows a client quota's rate is measured over.", at_least(1)),
    ConfigKey("quota.window.size.seconds", INT, "1", "Length of each of those windows, in seconds.",
              at_least(1)),
    # authorisation (docs/acls.md): Kafka's StandardAuthorizer over the ACLs in the metadata log
    ConfigKey("authorizer.class.name", STRING, "", "The authoriser enforcing ACLs; empty: none.", authorizer_class_problem),
    ConfigKey("super.users", parse_super_users, "", "Principals allowed everything: User:admin;User:b."),
    ConfigKey("allow.everyone.if.no.acl.found", BOOLEAN, "false", "Allow what no ACL names (default: deny it)."),
    # metrics, logging and the request trace
    ConfigKey("metrics.listener", parse_metrics_listener, "http://127.0.0.1:9404",
              "Where /metrics (Prometheus) and /requests are served: http://host:port; empty disables."),
    ConfigKey("request.trace.enable", BOOLEAN, "false",
              "Record every request's hand-offs and threads for /requests and kafka-request-trace."),
    # KRaft (docs/kraft.md): the roles of this node, the static voters of the metadata quorum and
    # the control-plane listener they talk on; Kafka's keys and defaults.
    ConfigKey("process.roles", _roles, "broker,controller",
              "broker, controller, or both (a combined node; the one-node default)."),
    ConfigKey("controller.quorum.voters", parse_voter_connections, "",
              "The static voters, id@host:port,...; empty: this node alone, on an ephemeral CONTROLLER port."),
    ConfigKey("controller.quorum.bootstrap.servers", parse_bootstrap_servers, "",
              "Controllers to reach first, host:port,...: the voters come from the metadata log (KIP-853)."),
    ConfigKey("controller.listener.names", LIST, None, "Listeners of the control plane (the first is used)."),
    ConfigKey("inter.broker.listener.name", STRING, None,
              "The listener brokers use to reach each other; default: security.inter.broker.protocol's name."),
    ConfigKey("security.inter.broker.protocol", _security_protocol, "PLAINTEXT",
              "The protocol brokers use to reach each other (PLAINTEXT); not with inter.broker.listener.name."),
    ConfigKey("listener.security.protocol.map", _protocol_map,
              "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
              "NAME:PROTOCOL,... (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); a listener named after "
              "a protocol needs no entry."),
    # TLS (docs/security.md); Kafka's SslConfigs and BrokerSecurityConfigs, listener.name.<l>.ssl.* overrides
    *(ConfigKey(name, STRING, default, "See docs/security.md.") for name, default in SSL_DEFAULTS.items()
      if name != "ssl.client.auth"),
    *(ConfigKey(k, INT if v and v.isdigit() else STRING, v, "See docs/security.md.") for k, v in SASL_DEFAULTS.items()),
    ConfigKey("ssl.client.auth", STRING, "none", "required, requested or none: ask TLS clients for a certificate.",
              one_of("required", "requested", "none")),
    ConfigKey("controller.quorum.election.timeout.ms", INT, "1000",
              "How long a voter waits without hearing from a leader before it stands for election.", at_least(1)),
    ConfigKey("controller.quorum.fetch.timeout.ms", INT, "2000",
              "How long a follower waits for a successful Fetch before it suspects the leader.", at_least(1)),
    ConfigKey("controller.quorum.election.backoff.max.ms", INT, "1000",
              "The longest a candidate backs off before standing again.", at_least(1)),
    ConfigKey("controller.quorum.request.timeout.ms", INT, "2000", "Timeout of a request between voters.",
              at_least(1)),
    ConfigKey("controller.quorum.retry.backoff.ms", INT, "20", "Backoff before a failed quorum request is retried.",
              at_least(0)),
    ConfigKey("controller.quorum.append.linger.ms", INT, "25",
              "How long the leader waits to batch appends to the metadata log.", at_least(0)),
    ConfigKey("broker.session.timeout.ms", INT, "9000",
              "A broker whose heartbeats stop for this long is fenced by the controller.", at_least(1)),
    ConfigKey("broker.heartbeat.interval.ms", INT, "2000", "How often a broker heartbeats the controller.",
              at_least(1)),
    ConfigKey("metadata.log.dir", STRING, None, "Where __cluster_metadata-0 lives; empty: the first of log.dirs."),
    ConfigKey("metadata.log.segment.bytes", INT, "1073741824", "Segment size of the metadata log.", at_least(14)),
    ConfigKey("metadata.log.segment.ms", INT, "604800000", "Age at which a metadata log segment rolls.",
              at_least(1)),
    ConfigKey("metadata.max.retention.bytes", INT, "104857600",
              "Metadata log bytes kept behind the latest snapshot.", at_least(-1)),
    ConfigKey("metadata.max.retention.ms", INT, "604800000", "How long metadata log segments are kept.",
              at_least(-1)),
    ConfigKey("metadata.log.max.record.bytes.between.snapshots", INT, "20971520",
              "A snapshot is written after this many bytes of new metadata records.", at_least(1)),
    ConfigKey("metadata.log.max.snapshot.interval.ms", INT, "3600000",
              "A snapshot is written at least this often when there are new records (0: never by time).",
              at_least(0)),
    ConfigKey("metadata.max.idle.interval.ms", INT, "500",
              "The active controller appends a NoOpRecord this often, so brokers see it is alive.", at_least(0)),
    # The broker-wide defaults of topic configs this broker stores and shows (docs/configuration.md).
    ConfigKey("compression.type", STRING, "producer", "Default compression.type of topics."),
    ConfigKey("compression.gzip.level", INT, "-1", "Default compression.gzip.level of topics."),
    ConfigKey("compression.lz4.level", INT, "9", "Default compression.lz4.level of topics."),
    ConfigKey("compression.zstd.level", INT, "3", "Default compression.zstd.level of topics."),
    ConfigKey("log.message.timestamp.type", STRING, "CreateTime", "Default message.timestamp.type of topics."),
    ConfigKey("log.message.timestamp.before.max.ms", INT, "9223372036854775807",
              "Default message.timestamp.before.max.ms of topics."),
    ConfigKey("log.message.timestamp.after.max.ms", INT, "3600000", "Default message.timestamp.after.max.ms of topics."),
    ConfigKey("log.preallocate", BOOLEAN, "false", "Default preallocate of topics."),
    ConfigKey("log.cleaner.max.compaction.lag.ms", INT, "9223372036854775807", "Default max.compaction.lag.ms of topics."),
    ConfigKey("max.decompressed.message.bytes", INT, "2147483639", "Default max.decompressed.message.bytes of topics."),
    ConfigKey("log.local.retention.ms", INT, "-2", "Default local.retention.ms of topics (tiered storage)."),
    ConfigKey("log.local.retention.bytes", INT, "-2", "Default local.retention.bytes of topics (tiered storage)."),
    ConfigKey("log.remote.copy.lag.ms", INT, "0", "Default remote.copy.lag.ms of topics (tiered storage)."),
    ConfigKey("log.remote.copy.lag.bytes", INT, "-1", "Default remote.copy.lag.bytes of topics (tiered storage)."),
    ConfigKey("unclean.leader.election.enable", BOOLEAN, "false",
              "Elect a leader outside the ISR when no ISR member is alive (may lose records)."),
    ConfigKey("auto.leader.rebalance.enable", BOOLEAN, "true",
              "The controller moves leadership back to preferred replicas when brokers lead too little."),
    ConfigKey("leader.imbalance.check.interval.seconds", INT, "300", "How often the leader balance is checked.",
              at_least(1)),
    ConfigKey("leader.imbalance.per.broker.percentage", INT, "10",
              "Share of a broker's preferred partitions led elsewhere that triggers preferred elections.",
              between(0, 100)),
    ConfigKey("offsets.topic.replication.factor", INT, "1",
              "Replication factor of __consumer_offsets when it is created.", at_least(1)),
    # Keys of Kafka's sample server.properties that the teaching broker accepts without acting on them,
    # so that Kafka's own file starts it. They are listed in docs/configuration.md.
    ConfigKey("socket.send.buffer.bytes", INT, "102400", "Accepted, not acted on."),
    ConfigKey("socket.receive.buffer.bytes", INT, "102400", "Accepted, not acted on."),
    ConfigKey("num.recovery.threads.per.data.dir", INT, "2", "Accepted, not acted on."),
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
        protocol, else PLAINTEXT for a controller listener when the map was not given (left at its default)."""
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
        return (self.values["inter.broker.listener.name"] or self.values["security.inter.broker.protocol"].name).upper()

    def _validate_security(self) -> None:
        protocol_set = "security.inter.broker.protocol" in self.originals  # its default is PLAINTEXT, as Kafka's
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
        if (problem := share_group_config_problem(self.values)) is not None:
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
        dynamic = not voters and bool(self.controller_quorum_bootstrap_servers)  # KIP-853: voters from the log
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
        return {k: "[hidden]" if is_sensitive(k) else v
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


def is_sensitive(key: str) -> bool:
    """Kafka's PASSWORD configs: never logged, never returned by DescribeConfigs."""
    return key.endswith((".password", "ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates",
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
