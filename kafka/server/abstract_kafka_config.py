"""AbstractKafkaConfig: every key of server.properties, declared once (Kafka's
org.apache.kafka.server.config.AbstractKafkaConfig and its CONFIG_DEF, which Kafka merges from
ServerConfigs, SocketServerConfigs, ServerLogConfigs, ReplicationConfigs, KRaftConfigs, QuorumConfig,
GroupCoordinatorConfig, TransactionLogConfig and the security configs).

Each key is a ConfigKey (config_def.py): Kafka's name, Kafka's type, Kafka's default, a validator and
a line of documentation. Declared on this class, it is also the typed attribute that reads the
parsed value, named after the key with its dots turned into underscores: `config.num_io_threads` is
the int of num.io.threads, as Kafka's `numIoThreads()` is. KafkaConfig (kafka_config.py) parses
server.properties into these values, checks the keys against one another and derives the values
that depend on several keys.
"""

from __future__ import annotations

from typing import Any

from kafka.coordinator.group.assignor import assignors_problem
from kafka.metadata.authorizer.standard_authorizer import authorizer_class_problem, parse_super_users
from kafka.metrics.prometheus_exporter import parse_metrics_listener
from kafka.network.connection_quotas import parse_max_connections_per_ip_overrides
from kafka.network.end_point import parse_listeners
from kafka.raft.raft_config import parse_bootstrap_servers, parse_voter_connections
from kafka.security.sasl_configs import SASL_DEFAULTS
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SSL_DEFAULTS
from kafka.server.config_def import (
    BOOLEAN,
    DOUBLE,
    INT,
    INT32_MAX,
    LIST,
    LONG,
    PASSWORD,
    SHORT,
    STRING,
    ConfigKey,
    ConfigType,
    at_least,
    between,
    comma_separated,
    non_empty,
    one_of,
    text,
)
from kafka.server.remote_log_manager_configs import RemoteLogManagerConfigs
from kafka.server.share.share_group_config import ShareGroupConfig
from kafka.server.streams_group_configs import StreamsGroupConfigs

# ------------------------------------------------------------------ parsers of keys kept as more than a type


def _cleanup_policy(v: str) -> str | None:
    policies = {p.strip() for p in v.split(",")}
    return None if policies and policies <= {"delete", "compact"} else "must be delete, compact or both"


def _roles(value: str) -> frozenset[str]:
    roles = frozenset(comma_separated(value))
    if not roles or not roles <= {"broker", "controller"}:
        raise ValueError("expected broker, controller, or broker,controller")
    return roles


def _protocol_map(value: str) -> dict[str, SecurityProtocol]:
    mapping = {}
    for item in comma_separated(value):
        name, colon, protocol = item.partition(":")
        if not colon:
            raise ValueError(f"{item!r} is not of the form NAME:PROTOCOL")
        mapping[name.strip().upper()] = SecurityProtocol.for_name(protocol)
    return mapping


def _security_protocol(value: str) -> SecurityProtocol:
    return SecurityProtocol.for_name(value)


class AbstractKafkaConfig(ShareGroupConfig, StreamsGroupConfigs, RemoteLogManagerConfigs):
    """The declared keys, each a typed attribute of a parsed configuration (`values`: key -> value)."""

    values: dict[str, Any]

    node_id = ConfigKey("node.id", INT, "1", at_least(0), "The id of this broker.")
    listeners = ConfigKey(
        "listeners", LIST, "PLAINTEXT://:9092", None, "Where the broker accepts connections.",
        parse=parse_listeners)
    advertised_listeners = ConfigKey(
        "advertised.listeners", LIST, None, None, "What Metadata tells clients; defaults to listeners.",
        parse=text)
    log_dirs = ConfigKey(
        "log.dirs", LIST, "/tmp/kraft-combined-logs", non_empty, "Directories holding the partition logs.")
    num_network_threads = ConfigKey("num.network.threads", INT, "3", at_least(1),
                                    "Processor threads per listener.")
    num_io_threads = ConfigKey("num.io.threads", INT, "8", at_least(1), "Request handler (I/O) threads.")
    queued_max_requests = ConfigKey(
        "queued.max.requests", INT, "500", at_least(1),
        "Requests queued before network threads stop reading.")
    socket_request_max_bytes = ConfigKey(
        "socket.request.max.bytes", INT, "104857600", at_least(1), "Largest request frame accepted.")
    queued_max_request_bytes = ConfigKey(
        "queued.max.request.bytes", LONG, "-1", None,
        "Bytes of requests being read or waiting for an I/O thread before network threads stop reading (the "
        "MemoryPool); -1 for no bound. At least socket.request.max.bytes when set.")
    connections_max_idle_ms = ConfigKey(
        "connections.max.idle.ms", LONG, "600000", None,
        "A connection with no traffic for this long is closed by its network thread; -1 never.")
    max_connections = ConfigKey(
        "max.connections", INT, str(INT32_MAX), at_least(0),
        "Connections the broker holds on a socket server; at it, the acceptor waits for one to close.")
    max_connections_per_ip = ConfigKey(
        "max.connections.per.ip", INT, str(INT32_MAX), at_least(0),
        "Connections allowed from one address; a connection over it is closed at once.")
    max_connections_per_ip_overrides = ConfigKey(
        "max.connections.per.ip.overrides", STRING, "", None,
        "Per-address exceptions to max.connections.per.ip: host:count,host:count.",
        parse=parse_max_connections_per_ip_overrides)
    max_connection_creation_rate = ConfigKey(
        "max.connection.creation.rate", INT, str(INT32_MAX), at_least(0),
        "New connections per second the broker accepts; faster, the acceptor delays accepting.")
    num_partitions = ConfigKey("num.partitions", INT, "1", at_least(1),
                               "Partitions of an auto-created topic.")
    default_replication_factor = ConfigKey(
        "default.replication.factor", INT, "1", at_least(1), "Replication factor of an auto-created topic.")
    auto_create_topics_enable = ConfigKey(
        "auto.create.topics.enable", BOOLEAN, "true", None,
        "Create a topic when a Metadata request first names it.")
    delete_topic_enable = ConfigKey("delete.topic.enable", BOOLEAN, "true", None,
                                    "Whether DeleteTopics is allowed.")
    max_request_partition_size_limit = ConfigKey(
        "max.request.partition.size.limit", INT, "2000", at_least(1),
        "The most partitions one DescribeTopicPartitions response holds (KIP-966).")
    log_segment_bytes = ConfigKey(
        "log.segment.bytes", INT, "1073741824", between(14, INT32_MAX), "Size at which a segment rolls.")
    log_index_interval_bytes = ConfigKey(
        "log.index.interval.bytes", INT, "4096", at_least(0), "Bytes between two offset index entries.")
    message_max_bytes = ConfigKey(
        "message.max.bytes", INT, "1048588", between(0, INT32_MAX), "Largest record batch accepted.")
    log_retention_hours = ConfigKey(
        "log.retention.hours", INT, "168", at_least(-1), "Retention time (hours) of log segments.")
    log_retention_ms = ConfigKey(
        "log.retention.ms", LONG, None, at_least(-1), "Retention time (ms); overrides log.retention.hours.")
    log_retention_bytes = ConfigKey(
        "log.retention.bytes", LONG, "-1", at_least(-1), "Retention size per partition; -1 is unlimited.")
    log_cleanup_policy = ConfigKey(
        "log.cleanup.policy", LIST, "delete", _cleanup_policy, "delete or compact.", parse=text)
    min_insync_replicas = ConfigKey(
        "min.insync.replicas", INT, "1", at_least(1), "Replicas that must have a batch for acks=all.")
    # fetch sessions (KIP-227, docs/performance.md)
    max_incremental_fetch_session_cache_slots = ConfigKey(
        "max.incremental.fetch.session.cache.slots", INT, "1000", at_least(0),
        "Fetch sessions the broker remembers; a fetcher without one sends full fetch requests.")
    # replication: followers fetch from leaders (docs/replication.md)
    replica_lag_time_max_ms = ConfigKey(
        "replica.lag.time.max.ms", LONG, "30000", at_least(1),
        "A follower not caught up with its leader for this long leaves the ISR.")
    replica_fetch_wait_max_ms = ConfigKey(
        "replica.fetch.wait.max.ms", INT, "500", at_least(0),
        "How long a leader may hold a follower's fetch.")
    replica_fetch_min_bytes = ConfigKey(
        "replica.fetch.min.bytes", INT, "1", at_least(1), "Bytes a follower's fetch waits for.")
    replica_fetch_max_bytes = ConfigKey(
        "replica.fetch.max.bytes", INT, "1048576", at_least(0), "Bytes a follower fetches per partition.")
    replica_fetch_response_max_bytes = ConfigKey(
        "replica.fetch.response.max.bytes", INT, "10485760", at_least(0),
        "Bytes a follower's fetch response may hold.")
    replica_fetch_backoff_ms = ConfigKey(
        "replica.fetch.backoff.ms", INT, "1000", at_least(0), "A follower's pause after a fetch error.")
    replica_socket_timeout_ms = ConfigKey(
        "replica.socket.timeout.ms", INT, "30000", at_least(1),
        "How long a follower waits for its leader's answer.")
    num_replica_fetchers = ConfigKey(
        "num.replica.fetchers", INT, "1", at_least(1), "Fetcher threads per source broker.")
    # log: retention, cleaner, flush, recovery
    log_roll_hours = ConfigKey("log.roll.hours", INT, "168", at_least(1),
                               "Age (hours) at which a segment rolls.")
    log_roll_ms = ConfigKey(
        "log.roll.ms", LONG, None, at_least(1),
        "Age (ms) at which a segment rolls; overrides log.roll.hours.")
    log_index_size_max_bytes = ConfigKey(
        "log.index.size.max.bytes", INT, "10485760", at_least(4), "Largest offset/time index per segment.")
    log_retention_minutes = ConfigKey(
        "log.retention.minutes", INT, None, None, "Retention time (minutes); between hours and ms.")
    log_retention_check_interval_ms = ConfigKey(
        "log.retention.check.interval.ms", LONG, "300000", at_least(1),
        "How often retention deletes old segments.")
    log_segment_delete_delay_ms = ConfigKey(
        "log.segment.delete.delay.ms", LONG, "60000", at_least(0),
        "Delay before a deleted segment's files go.")
    log_flush_interval_messages = ConfigKey(
        "log.flush.interval.messages", LONG, str(2**63 - 1), at_least(1), "fsync after this many records.")
    log_flush_interval_ms = ConfigKey(
        "log.flush.interval.ms", LONG, None, None, "fsync a log after this long; default: flush scheduler's.")
    log_flush_scheduler_interval_ms = ConfigKey(
        "log.flush.scheduler.interval.ms", LONG, str(2**63 - 1), None, "How often to look for logs to flush.")
    log_flush_offset_checkpoint_interval_ms = ConfigKey(
        "log.flush.offset.checkpoint.interval.ms", INT, "60000", at_least(0),
        "How often recovery-point-offset-checkpoint is written.")
    log_flush_start_offset_checkpoint_interval_ms = ConfigKey(
        "log.flush.start.offset.checkpoint.interval.ms", INT, "60000", at_least(0),
        "How often log-start-offset-checkpoint is written.")
    replica_high_watermark_checkpoint_interval_ms = ConfigKey(
        "replica.high.watermark.checkpoint.interval.ms", LONG, "5000", at_least(1),
        "How often replication-offset-checkpoint (high watermarks) is written.")
    log_cleaner_enable = ConfigKey(
        "log.cleaner.enable", BOOLEAN, "true", None, "Run the LogCleaner for cleanup.policy=compact topics.")
    log_cleaner_threads = ConfigKey("log.cleaner.threads", INT, "1", at_least(0), "Log cleaner threads.")
    log_cleaner_backoff_ms = ConfigKey(
        "log.cleaner.backoff.ms", LONG, "15000", at_least(0), "Sleep when no log needs cleaning.")
    log_cleaner_dedupe_buffer_size = ConfigKey(
        "log.cleaner.dedupe.buffer.size", LONG, "134217728", at_least(1),
        "Memory for the cleaners' offset maps.")
    log_cleaner_delete_retention_ms = ConfigKey(
        "log.cleaner.delete.retention.ms", LONG, "86400000", at_least(0), "How long tombstones are kept.")
    log_cleaner_min_cleanable_ratio = ConfigKey(
        "log.cleaner.min.cleanable.ratio", DOUBLE, "0.5",
        lambda v: None if 0.0 <= v <= 1.0 else "must be between 0 and 1",
        "Dirty ratio at which a log is cleaned.")
    log_cleaner_min_compaction_lag_ms = ConfigKey(
        "log.cleaner.min.compaction.lag.ms", LONG, "0", at_least(0),
        "Minimum age of a record before compaction.")
    # idempotent producers (KIP-98): how long a partition remembers a silent producer, and how often it looks
    producer_id_expiration_ms = ConfigKey(
        "producer.id.expiration.ms", INT, "86400000", at_least(1),
        "A partition forgets a producer id that has written nothing for this long.")
    producer_id_expiration_check_interval_ms = ConfigKey(
        "producer.id.expiration.check.interval.ms", INT, "600000", at_least(1),
        "How often expired producer ids are removed.")
    # group coordinator and __consumer_offsets
    group_initial_rebalance_delay_ms = ConfigKey(
        "group.initial.rebalance.delay.ms", INT, "3000", at_least(0),
        "How long an empty group waits for more members before its first rebalance.")
    group_min_session_timeout_ms = ConfigKey(
        "group.min.session.timeout.ms", INT, "6000", at_least(0),
        "Smallest session.timeout.ms a member may ask for.")
    group_max_session_timeout_ms = ConfigKey(
        "group.max.session.timeout.ms", INT, "1800000", at_least(0),
        "Largest session.timeout.ms a member may ask for.")
    group_max_size = ConfigKey(
        "group.max.size", INT, "2147483647", at_least(1), "Most members one consumer group may have.")
    group_coordinator_threads = ConfigKey(
        "group.coordinator.threads", INT, "4", at_least(1),
        "Threads of the group coordinator's event processor: one shard's events run one at a time.")
    # KIP-848 consumer groups (group.protocol=consumer): the broker computes their assignment
    group_consumer_session_timeout_ms = ConfigKey(
        "group.consumer.session.timeout.ms", INT, "45000", at_least(1),
        "A silent member is removed after this.")
    group_consumer_heartbeat_interval_ms = ConfigKey(
        "group.consumer.heartbeat.interval.ms", INT, "5000", at_least(1), "Members heartbeat this often.")
    group_consumer_assignors = ConfigKey(
        "group.consumer.assignors", LIST, "uniform,range", assignors_problem,
        "Server-side assignors, by name or class; the first is the default.")
    group_consumer_max_size = ConfigKey(
        "group.consumer.max.size", INT, "2147483647", at_least(1),
        "Most members one consumer group may have.")
    group_consumer_migration_policy = ConfigKey(
        "group.consumer.migration.policy", STRING, "bidirectional",
        one_of("disabled", "upgrade", "downgrade", "bidirectional"),
        "Which online conversions between a classic and a consumer group with members are allowed: disabled, "
        "upgrade, downgrade or bidirectional.")
    # the bounds of a consumer group's own configs (consumer.session.timeout.ms, ...: group_config.py)
    group_consumer_min_session_timeout_ms = ConfigKey(
        "group.consumer.min.session.timeout.ms", INT, "45000", at_least(1),
        "Smallest session timeout of consumer-group members.")
    group_consumer_max_session_timeout_ms = ConfigKey(
        "group.consumer.max.session.timeout.ms", INT, "60000", at_least(1),
        "Largest session timeout of consumer-group members.")
    group_consumer_min_heartbeat_interval_ms = ConfigKey(
        "group.consumer.min.heartbeat.interval.ms", INT, "5000", at_least(1),
        "Smallest heartbeat interval of consumer-group members.")
    group_consumer_max_heartbeat_interval_ms = ConfigKey(
        "group.consumer.max.heartbeat.interval.ms", INT, "15000", at_least(1),
        "Largest heartbeat interval of consumer-group members.")
    group_consumer_assignment_interval_ms = ConfigKey(
        "group.consumer.assignment.interval.ms", INT, "1000", at_least(0),
        "Default of a consumer group's consumer.assignment.interval.ms.")
    group_consumer_min_assignment_interval_ms = ConfigKey(
        "group.consumer.min.assignment.interval.ms", INT, "0", at_least(0),
        "Smallest assignment interval of a consumer group.")
    group_consumer_max_assignment_interval_ms = ConfigKey(
        "group.consumer.max.assignment.interval.ms", INT, "15000", at_least(0),
        "Largest assignment interval of a consumer group.")
    offsets_topic_num_partitions = ConfigKey(
        "offsets.topic.num.partitions", INT, "50", at_least(1),
        "Partitions of __consumer_offsets (fixed once created).")
    offsets_topic_segment_bytes = ConfigKey(
        "offsets.topic.segment.bytes", INT, "104857600", at_least(14), "Segment size of __consumer_offsets.")
    offsets_retention_minutes = ConfigKey(
        "offsets.retention.minutes", INT, "10080", at_least(1),
        "How long an empty group's committed offsets are kept.")
    offsets_retention_check_interval_ms = ConfigKey(
        "offsets.retention.check.interval.ms", LONG, "600000", at_least(1),
        "How often expired offsets are looked for.")
    offsets_commit_timeout_ms = ConfigKey(
        "offsets.commit.timeout.ms", INT, "5000", at_least(1),
        "How long an offset commit waits for its record to be committed.")
    offset_metadata_max_bytes = ConfigKey(
        "offset.metadata.max.bytes", INT, "4096", None, "Largest metadata string an offset commit may carry.")
    # transaction coordinator and __transaction_state (KIP-98); Kafka's keys and defaults, except the
    # replication factor and min ISR, which default to 1 like offsets.topic.replication.factor here
    transaction_state_log_num_partitions = ConfigKey(
        "transaction.state.log.num.partitions", INT, "50", at_least(1),
        "Partitions of __transaction_state (fixed once created).")
    transaction_state_log_replication_factor = ConfigKey(
        "transaction.state.log.replication.factor", SHORT, "1", at_least(1),
        "Replication factor of __transaction_state when it is created.")
    transaction_state_log_min_isr = ConfigKey(
        "transaction.state.log.min.isr", INT, "1", at_least(1), "min.insync.replicas of __transaction_state.")
    transaction_state_log_segment_bytes = ConfigKey(
        "transaction.state.log.segment.bytes", INT, "104857600", at_least(14),
        "Segment size of __transaction_state.")
    transaction_state_log_load_buffer_size = ConfigKey(
        "transaction.state.log.load.buffer.size", INT, "5242880", at_least(1),
        "Bytes read at a time when loading __transaction_state.")
    transaction_max_timeout_ms = ConfigKey(
        "transaction.max.timeout.ms", INT, "900000", at_least(1),
        "Largest transaction.timeout.ms a producer may ask for.")
    transactional_id_expiration_ms = ConfigKey(
        "transactional.id.expiration.ms", INT, "604800000", at_least(1),
        "A transactional id with no transaction for this long is forgotten.")
    transaction_abort_timed_out_transaction_cleanup_interval_ms = ConfigKey(
        "transaction.abort.timed.out.transaction.cleanup.interval.ms", INT, "10000", at_least(1),
        "How often transactions open past their timeout are aborted.")
    transaction_partition_verification_enable = ConfigKey(
        "transaction.partition.verification.enable", BOOLEAN, "true", None,
        "Refuse a transactional batch for a partition not added to its transaction (KIP-890).")
    transaction_remove_expired_transaction_cleanup_interval_ms = ConfigKey(
        "transaction.remove.expired.transaction.cleanup.interval.ms", INT, "3600000", at_least(1),
        "How often expired transactional ids are removed.")
    # client quotas (docs/quotas.md): the windows a client's byte rate and request time are measured over
    # share coordinator and __share_group_state (KIP-932): Kafka 4.4's keys and defaults
    # (ShareCoordinatorConfig; its two internal keys, state.topic.prune.interval.ms and
    # cold.partition.snapshot.interval.ms, keep defaults)
    share_coordinator_state_topic_num_partitions = ConfigKey(
        "share.coordinator.state.topic.num.partitions", INT, "50", at_least(1),
        "Partitions of the state topic.")
    share_coordinator_state_topic_replication_factor = ConfigKey(
        "share.coordinator.state.topic.replication.factor", SHORT, "3", at_least(1),
        "Replication factor of the state topic.")
    share_coordinator_state_topic_min_isr = ConfigKey(
        "share.coordinator.state.topic.min.isr", SHORT, "2", at_least(1), "Its min.insync.replicas.")
    share_coordinator_state_topic_segment_bytes = ConfigKey(
        "share.coordinator.state.topic.segment.bytes", INT, "104857600", at_least(1),
        "Segment size of __share_group_state.")
    share_coordinator_load_buffer_size = ConfigKey(
        "share.coordinator.load.buffer.size", INT, "5242880", at_least(1),
        "Bytes read at a time when loading.")
    share_coordinator_threads = ConfigKey(
        "share.coordinator.threads", INT, "1", at_least(1), "Threads of the share coordinator's runtime.")
    share_coordinator_write_timeout_ms = ConfigKey(
        "share.coordinator.write.timeout.ms", INT, "5000", at_least(1), "How long a write waits to commit.")
    share_coordinator_append_linger_ms = ConfigKey(
        "share.coordinator.append.linger.ms", INT, "-1", at_least(-1),
        "Accepted: each write is its own batch.")
    share_coordinator_snapshot_update_records_per_snapshot = ConfigKey(
        "share.coordinator.snapshot.update.records.per.snapshot", INT, "500", between(0, 500),
        "Update records written for a share partition between two of its snapshots.")
    quota_window_num = ConfigKey(
        "quota.window.num", INT, "11", at_least(1), "Windows a client quota's rate is measured over.")
    quota_window_size_seconds = ConfigKey(
        "quota.window.size.seconds", INT, "1", at_least(1), "Length of each of those windows, in seconds.")
    # authorisation (docs/acls.md): Kafka's StandardAuthorizer over the ACLs in the metadata log
    authorizer_class_name = ConfigKey(
        "authorizer.class.name", STRING, "", authorizer_class_problem,
        "The authoriser enforcing ACLs; empty: none.")
    super_users = ConfigKey(
        "super.users", STRING, "", None, "Principals allowed everything: User:admin;User:b.",
        parse=parse_super_users,
        in_kafka_config=False)
    allow_everyone_if_no_acl_found = ConfigKey(
        "allow.everyone.if.no.acl.found", BOOLEAN, "false", None,
        "Allow what no ACL names (default: deny it).",
        in_kafka_config=False)
    # client metrics (KIP-714): the largest PushTelemetry payload a client may send (Kafka's ServerConfigs)
    telemetry_max_bytes = ConfigKey(
        "telemetry.max.bytes", INT, "1048576", at_least(1),
        "The maximum size (after compression if compression is used) of telemetry metrics pushed from a "
        "client to the broker.")
    # metrics, logging and the request trace
    metrics_listener = ConfigKey(
        "metrics.listener", STRING, "http://127.0.0.1:9404", None,
        "Where /metrics (Prometheus) and /requests are served: http://host:port; empty disables.",
        parse=parse_metrics_listener, in_kafka_config=False)
    request_trace_enable = ConfigKey(
        "request.trace.enable", BOOLEAN, "false", None,
        "Record every request's hand-offs and threads for /requests and kafka-request-trace.",
        in_kafka_config=False)
    # KRaft (docs/kraft.md): the roles of this node, the static voters of the metadata quorum and
    # the control-plane listener they talk on; Kafka's keys and defaults.
    process_roles = ConfigKey(
        "process.roles", LIST, "broker,controller", None,
        "broker, controller, or both (a combined node; the one-node default).", parse=_roles)
    controller_quorum_voters = ConfigKey(
        "controller.quorum.voters", LIST, "", None,
        "The static voters, id@host:port,...; empty: this node alone, on an ephemeral CONTROLLER port.",
        parse=parse_voter_connections)
    controller_quorum_bootstrap_servers = ConfigKey(
        "controller.quorum.bootstrap.servers", LIST, "", None,
        "Controllers to reach first, host:port,...: the voters come from the metadata log (KIP-853).",
        parse=parse_bootstrap_servers)
    controller_listener_names = ConfigKey(
        "controller.listener.names", LIST, None, None, "Listeners of the control plane (the first is used).")
    inter_broker_listener_name = ConfigKey(
        "inter.broker.listener.name", STRING, None, None,
        "The listener brokers use to reach each other; default: security.inter.broker.protocol's name.")
    security_inter_broker_protocol = ConfigKey(
        "security.inter.broker.protocol", STRING, "PLAINTEXT", None,
        "The protocol brokers use to reach each other (PLAINTEXT); not with inter.broker.listener.name.",
        parse=_security_protocol)
    listener_security_protocol_map = ConfigKey(
        "listener.security.protocol.map", STRING,
        "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT", None,
        "NAME:PROTOCOL,... (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); a listener named after a protocol "
        "needs no entry.",
        parse=_protocol_map)
    # TLS (docs/security.md); Kafka's SslConfigs and BrokerSecurityConfigs, listener.name.<l>.ssl.* overrides
    ssl_protocol = ConfigKey("ssl.protocol", STRING, SSL_DEFAULTS["ssl.protocol"], None,
                             "See docs/security.md.")
    ssl_enabled_protocols = ConfigKey(
        "ssl.enabled.protocols", LIST, SSL_DEFAULTS["ssl.enabled.protocols"], None, "See docs/security.md.",
        parse=text)
    ssl_cipher_suites = ConfigKey(
        "ssl.cipher.suites", LIST, SSL_DEFAULTS["ssl.cipher.suites"], None, "See docs/security.md.",
        parse=text)
    ssl_keystore_type = ConfigKey(
        "ssl.keystore.type", STRING, SSL_DEFAULTS["ssl.keystore.type"], None, "See docs/security.md.")
    ssl_keystore_location = ConfigKey(
        "ssl.keystore.location", STRING, SSL_DEFAULTS["ssl.keystore.location"], None, "See docs/security.md.")
    ssl_keystore_password = ConfigKey(
        "ssl.keystore.password", PASSWORD, SSL_DEFAULTS["ssl.keystore.password"], None,
        "See docs/security.md.")
    ssl_key_password = ConfigKey(
        "ssl.key.password", PASSWORD, SSL_DEFAULTS["ssl.key.password"], None, "See docs/security.md.")
    ssl_keystore_certificate_chain = ConfigKey(
        "ssl.keystore.certificate.chain", PASSWORD, SSL_DEFAULTS["ssl.keystore.certificate.chain"], None,
        "See docs/security.md.")
    ssl_keystore_key = ConfigKey(
        "ssl.keystore.key", PASSWORD, SSL_DEFAULTS["ssl.keystore.key"], None, "See docs/security.md.")
    ssl_truststore_type = ConfigKey(
        "ssl.truststore.type", STRING, SSL_DEFAULTS["ssl.truststore.type"], None, "See docs/security.md.")
    ssl_truststore_location = ConfigKey(
        "ssl.truststore.location", STRING, SSL_DEFAULTS["ssl.truststore.location"], None,
        "See docs/security.md.")
    ssl_truststore_password = ConfigKey(
        "ssl.truststore.password", PASSWORD, SSL_DEFAULTS["ssl.truststore.password"], None,
        "See docs/security.md.")
    ssl_truststore_certificates = ConfigKey(
        "ssl.truststore.certificates", PASSWORD, SSL_DEFAULTS["ssl.truststore.certificates"], None,
        "See docs/security.md.")
    ssl_endpoint_identification_algorithm = ConfigKey(
        "ssl.endpoint.identification.algorithm", STRING,
        SSL_DEFAULTS["ssl.endpoint.identification.algorithm"], None,
        "See docs/security.md.")
    ssl_principal_mapping_rules = ConfigKey(
        "ssl.principal.mapping.rules", STRING, SSL_DEFAULTS["ssl.principal.mapping.rules"], None,
        "See docs/security.md.")
    sasl_enabled_mechanisms = ConfigKey(
        "sasl.enabled.mechanisms", LIST, SASL_DEFAULTS["sasl.enabled.mechanisms"], None,
        "See docs/security.md.",
        parse=text)
    sasl_mechanism_inter_broker_protocol = ConfigKey(
        "sasl.mechanism.inter.broker.protocol", STRING, SASL_DEFAULTS["sasl.mechanism.inter.broker.protocol"],
        None,
        "See docs/security.md.")
    sasl_mechanism_controller_protocol = ConfigKey(
        "sasl.mechanism.controller.protocol", STRING, SASL_DEFAULTS["sasl.mechanism.controller.protocol"],
        None,
        "See docs/security.md.")
    sasl_jaas_config = ConfigKey(
        "sasl.jaas.config", PASSWORD, SASL_DEFAULTS["sasl.jaas.config"], None, "See docs/security.md.")
    connection_failed_authentication_delay_ms = ConfigKey(
        "connection.failed.authentication.delay.ms", INT,
        SASL_DEFAULTS["connection.failed.authentication.delay.ms"],
        None, "See docs/security.md.")
    sasl_server_max_receive_size = ConfigKey(
        "sasl.server.max.receive.size", INT, SASL_DEFAULTS["sasl.server.max.receive.size"], None,
        "See docs/security.md.")
    ssl_client_auth = ConfigKey(
        "ssl.client.auth", STRING, "none", one_of("required", "requested", "none"),
        "required, requested or none: ask TLS clients for a certificate.")
    controller_quorum_election_timeout_ms = ConfigKey(
        "controller.quorum.election.timeout.ms", INT, "1000", at_least(1),
        "How long a voter waits without hearing from a leader before it stands for election.")
    controller_quorum_fetch_timeout_ms = ConfigKey(
        "controller.quorum.fetch.timeout.ms", INT, "2000", at_least(1),
        "How long a follower waits for a successful Fetch before it suspects the leader.")
    controller_quorum_election_backoff_max_ms = ConfigKey(
        "controller.quorum.election.backoff.max.ms", INT, "1000", at_least(1),
        "The longest a candidate backs off before standing again.")
    controller_quorum_request_timeout_ms = ConfigKey(
        "controller.quorum.request.timeout.ms", INT, "2000", at_least(1),
        "Timeout of a request between voters.")
    controller_quorum_retry_backoff_ms = ConfigKey(
        "controller.quorum.retry.backoff.ms", INT, "20", at_least(0),
        "Backoff before a failed quorum request is retried.")
    controller_quorum_append_linger_ms = ConfigKey(
        "controller.quorum.append.linger.ms", INT, "25", at_least(0),
        "How long the leader waits to batch appends to the metadata log.")
    broker_session_timeout_ms = ConfigKey(
        "broker.session.timeout.ms", INT, "9000", at_least(1),
        "A broker whose heartbeats stop for this long is fenced by the controller.")
    broker_heartbeat_interval_ms = ConfigKey(
        "broker.heartbeat.interval.ms", INT, "2000", at_least(1),
        "How often a broker heartbeats the controller.")
    metadata_log_dir = ConfigKey(
        "metadata.log.dir", STRING, None, None,
        "Where __cluster_metadata-0 lives; empty: the first of log.dirs.")
    metadata_log_segment_bytes = ConfigKey(
        "metadata.log.segment.bytes", INT, "1073741824", at_least(14), "Segment size of the metadata log.")
    metadata_log_segment_ms = ConfigKey(
        "metadata.log.segment.ms", LONG, "604800000", at_least(1),
        "Age at which a metadata log segment rolls.")
    metadata_max_retention_bytes = ConfigKey(
        "metadata.max.retention.bytes", LONG, "104857600", at_least(-1),
        "Metadata log bytes kept behind the latest snapshot.")
    metadata_max_retention_ms = ConfigKey(
        "metadata.max.retention.ms", LONG, "604800000", at_least(-1),
        "How long metadata log segments are kept.")
    metadata_log_max_record_bytes_between_snapshots = ConfigKey(
        "metadata.log.max.record.bytes.between.snapshots", LONG, "20971520", at_least(1),
        "A snapshot is written after this many bytes of new metadata records.")
    metadata_log_max_snapshot_interval_ms = ConfigKey(
        "metadata.log.max.snapshot.interval.ms", LONG, "3600000", at_least(0),
        "A snapshot is written at least this often when there are new records (0: never by time).")
    metadata_max_idle_interval_ms = ConfigKey(
        "metadata.max.idle.interval.ms", INT, "500", at_least(0),
        "The active controller appends a NoOpRecord this often, so brokers see it is alive.")
    # The broker-wide defaults of topic configs this broker stores and shows (docs/configuration.md).
    compression_type = ConfigKey("compression.type", STRING, "producer", None,
                                 "Default compression.type of topics.")
    compression_gzip_level = ConfigKey(
        "compression.gzip.level", INT, "-1", None, "Default compression.gzip.level of topics.")
    compression_lz4_level = ConfigKey(
        "compression.lz4.level", INT, "9", None, "Default compression.lz4.level of topics.")
    compression_zstd_level = ConfigKey(
        "compression.zstd.level", INT, "3", None, "Default compression.zstd.level of topics.")
    log_message_timestamp_type = ConfigKey(
        "log.message.timestamp.type", STRING, "CreateTime", None, "Default message.timestamp.type of topics.")
    log_message_timestamp_before_max_ms = ConfigKey(
        "log.message.timestamp.before.max.ms", LONG, "9223372036854775807", None,
        "Default message.timestamp.before.max.ms of topics.")
    log_message_timestamp_after_max_ms = ConfigKey(
        "log.message.timestamp.after.max.ms", LONG, "3600000", None,
        "Default message.timestamp.after.max.ms of topics.")
    log_preallocate = ConfigKey("log.preallocate", BOOLEAN, "false", None, "Default preallocate of topics.")
    log_cleaner_max_compaction_lag_ms = ConfigKey(
        "log.cleaner.max.compaction.lag.ms", LONG, "9223372036854775807", None,
        "Default max.compaction.lag.ms of topics.")
    max_decompressed_message_bytes = ConfigKey(
        "max.decompressed.message.bytes", INT, "2147483639", None,
        "Default max.decompressed.message.bytes of topics.")
    log_local_retention_ms = ConfigKey(
        "log.local.retention.ms", LONG, "-2", None, "Default local.retention.ms of topics (tiered storage).")
    log_local_retention_bytes = ConfigKey(
        "log.local.retention.bytes", LONG, "-2", None,
        "Default local.retention.bytes of topics (tiered storage).")
    log_remote_copy_lag_ms = ConfigKey(
        "log.remote.copy.lag.ms", LONG, "0", None, "Default remote.copy.lag.ms of topics (tiered storage).")
    log_remote_copy_lag_bytes = ConfigKey(
        "log.remote.copy.lag.bytes", LONG, "-1", None,
        "Default remote.copy.lag.bytes of topics (tiered storage).")
    unclean_leader_election_enable = ConfigKey(
        "unclean.leader.election.enable", BOOLEAN, "false", None,
        "Elect a leader outside the ISR when no ISR member is alive (may lose records).")
    auto_leader_rebalance_enable = ConfigKey(
        "auto.leader.rebalance.enable", BOOLEAN, "true", None,
        "The controller moves leadership back to preferred replicas when brokers lead too little.")
    leader_imbalance_check_interval_seconds = ConfigKey(
        "leader.imbalance.check.interval.seconds", LONG, "300", at_least(1),
        "How often the leader balance is checked.")
    leader_imbalance_per_broker_percentage = ConfigKey(
        "leader.imbalance.per.broker.percentage", INT, "10", between(0, 100),
        "Share of a broker's preferred partitions led elsewhere that triggers preferred elections.",
        in_kafka_config=False)
    offsets_topic_replication_factor = ConfigKey(
        "offsets.topic.replication.factor", SHORT, "1", at_least(1),
        "Replication factor of __consumer_offsets when it is created.")
    # Keys of Kafka's sample server.properties that the teaching broker accepts without acting on them,
    # so that Kafka's own file starts it. They are listed in docs/configuration.md.
    socket_send_buffer_bytes = ConfigKey("socket.send.buffer.bytes", INT, "102400", None,
                                         "Accepted, not acted on.")
    socket_receive_buffer_bytes = ConfigKey(
        "socket.receive.buffer.bytes", INT, "102400", None, "Accepted, not acted on.")
    num_recovery_threads_per_data_dir = ConfigKey(
        "num.recovery.threads.per.data.dir", INT, "2", None, "Accepted, not acted on.")


CONFIG_KEYS: dict[str, ConfigKey] = {key.name: key for cls in reversed(AbstractKafkaConfig.__mro__)
                                     for key in vars(cls).values() if isinstance(key, ConfigKey)}


def config_def_type_of(name: str) -> ConfigType | None:
    """Kafka's AbstractKafkaConfig.configDefTypeOf: the declared type of a key Kafka's KafkaConfig defines."""
    key = CONFIG_KEYS.get(name)
    return key.type if key is not None and key.in_kafka_config else None
