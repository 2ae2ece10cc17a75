"""Every dashboard panel and its PromQL, once: the pages of kafka-dashboard and the Grafana dashboard
(docs/dashboards/kafka-teaching.json) are both made from this list, so they cannot drift apart.

The metric names are the broker's own (kafka/metrics/metric_names.py, through prometheus_name()),
so a panel reads like Kafka's documentation of the MBean it draws. Two variables are Grafana's:
`$__rate_interval` (the window of a rate; the pages put RATE_INTERVAL there) and `$request` (the
request type picked at the top of the page). `kafka_consumergroup_lag` is not the broker's: Kafka's
brokers export no lag, so the dashboard computes it as kafka_exporter does (consumer_lag_exporter.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.metrics import remote_storage_metrics as remote

# What the pages put where Grafana writes $__rate_interval: long enough to span several 1 s scrapes.
RATE_INTERVAL = "30s"


@dataclass(frozen=True)
class Target:
    expr: str
    legend: str  # Grafana's legendFormat: {{label}} is the series' label value


@dataclass(frozen=True)
class Panel:
    title: str
    targets: tuple[Target, ...]
    unit: str = "short"  # Grafana's unit names: short, ms, reqps, ops, Bps, bytes, percentunit
    width: int = 8  # of Grafana's 24 columns
    stacked: bool = False
    description: str = ""
    # Series some brokers never have (a security listener, an authoriser): a page says so instead of
    # reporting the panel empty.
    only_with: str = ""


@dataclass(frozen=True)
class Row:
    title: str
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class Page:
    slug: str  # the page's path: /journey
    title: str
    rows: tuple[Row, ...] = field(default_factory=tuple)

    @property
    def panels(self) -> list[Panel]:
        return [panel for row in self.rows for panel in row.panels]


def rate(series: str, window: str = "$__rate_interval") -> str:
    return f"rate({series}[{window}])"


def mean(histogram: str, selector: str = "", window: str = "$__rate_interval") -> str:
    """A histogram's mean over the window: Kafka's `Mean` attribute, as PromQL computes it."""
    return f"{rate(f'{histogram}_sum{selector}', window)} / {rate(f'{histogram}_count{selector}', window)}"


def p99(histogram: str, by: str = "le", window: str = "$__rate_interval") -> str:
    return f"histogram_quantile(0.99, sum by ({by}) ({rate(f'{histogram}_bucket', window)}))"


def _t(expr: str, legend: str) -> Target:
    return Target(expr, legend)


# ------------------------------------------------------------------ the request journey (seed 002)
_RM = "kafka_network_requestmetrics_"
_STAGES = (("requestqueuetimems", "request queue"), ("localtimems", "local (I/O thread)"),
           ("remotetimems", "remote (purgatory)"), ("throttletimems", "throttle"),
           ("responsequeuetimems", "response queue"), ("responsesendtimems", "response send"))

JOURNEY = Page("journey", "The request journey", (
    Row("Requests: seed 002's journey, per request type", (
        Panel("Request rate by request type", (
            _t(f"sum by (request) ({rate(_RM + 'requests_total')})", "{{request}}"),), "reqps", 12),
        Panel("Error codes in responses (NONE excluded)", (
            _t("sum by (request, error) (" + rate(_RM + 'errors_total{error!="NONE"}') + ")",
               "{{request}} {{error}}"),), "ops", 12),
        Panel("Where the time goes: $request (mean ms per stage, stacked)", tuple(
            _t(mean(_RM + stage, '{request="$request"}'), legend) for stage, legend in _STAGES), "ms", 12,
              stacked=True, description="Kafka's RequestMetrics: queue, local, remote, throttle, response "
                                        "queue and send time. Throttle time is not part of the total "
                                        "(KIP-219)."),
        Panel("Total time p99 by request type", (
            _t(p99(_RM + "totaltimems", "le, request"), "{{request}}"),), "ms", 12),
    )),
    Row("The two thread pools and the queues between them", (
        Panel("Idle share of the thread pools", (
            _t("kafka_network_socketserver_networkprocessoravgidlepercent", "network threads"),
            _t("kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent", "I/O threads")),
              "percentunit", 12),
        Panel("Threads in each pool", (
            _t("kafka_server_kafkarequesthandlerpool_requesthandlerpoolsize", "I/O threads (num.io.threads)"),
            _t("kafka_network_socketserver_networkprocessorcount",
               "network threads of {{listener}} (num.network.threads)")), "short", 12,
              description="Dynamic broker configs resize both pools without a restart: kafka-configs "
                          "--entity-type brokers --alter --add-config num.io.threads=16 "
                          "(docs/dynamic_configs.md)."),
        Panel("Queue sizes", (
            _t("kafka_network_requestchannel_requestqueuesize", "request queue (network -> I/O)"),
            _t("kafka_network_requestchannel_responsequeuesize", "response queues (I/O -> network)")),
            "short", 12),
    )),
    Row("The purgatories: requests waiting for replicas, bytes or a rebalance", (
        Panel("Purgatories: operations waiting", (
            _t("kafka_server_delayedoperationpurgatory_numdelayedoperations", "{{delayedOperation}} waiting"),
            _t("kafka_server_delayedoperationpurgatory_purgatorysize",
               "{{delayedOperation}} watch-list entries")),
              "short", 12),
        Panel("Remote time (purgatory) by request type, mean", (
            _t(f"sum by (request) ({rate(_RM + 'remotetimems_sum')}) / sum by (request) "
               f"({rate(_RM + 'remotetimems_count')})", "{{request}}"),), "ms", 12),
    )),
))

# ------------------------------------------------------------------ data in and out, the commit log
_BTM = "kafka_server_brokertopicmetrics_"
_TIERED = "tiered storage (remote.log.storage.system.enable=true and a topic with remote.storage.enable=true)"
DATA = Page("data", "Data and the commit log", (
    Row("Data in and out", (
        Panel("Bytes in and out (all topics)", (
            _t(rate(_BTM + 'bytesin_total{topic=""}'), "bytes in"),
            _t(rate(_BTM + 'bytesout_total{topic=""}'), "bytes out"),
            _t(rate(_BTM + 'bytesrejected_total{topic=""}'), "bytes rejected")), "Bps"),
        Panel("Messages in by topic", (
            _t("sum by (topic) (" + rate(_BTM + 'messagesin_total{topic!=""}') + ")", "{{topic}}"),), "ops"),
        Panel("Produce and fetch requests per partition-read/append", (
            _t(rate(_BTM + 'totalproducerequests_total{topic=""}'), "produce"),
            _t(rate(_BTM + 'totalfetchrequests_total{topic=""}'), "fetch"),
            _t(rate(_BTM + 'failedproducerequests_total{topic=""}'), "failed produce"),
            _t(rate(_BTM + 'failedfetchrequests_total{topic=""}'), "failed fetch")), "ops"),
    )),
    Row("The commit log", (
        Panel("Log size by partition", (_t("kafka_log_log_size", "{{topic}}-{{partition}}"),), "bytes"),
        Panel("Log end and start offsets", (
            _t("kafka_log_log_logendoffset", "{{topic}}-{{partition}} end"),
            _t("kafka_log_log_logstartoffset", "{{topic}}-{{partition}} start"))),
        Panel("Segments by partition", (_t("kafka_log_log_numlogsegments", "{{topic}}-{{partition}}"),)),
    )),
    Row("Tiered storage (KIP-405): rolled segments copied to remote storage and read back "
        "(docs/tiered_storage.md)", (
        Panel("Bytes copied to and read from remote storage (all topics)", (
            _t(rate(remote.REMOTE_COPY_BYTES.prometheus_name + '{topic=""}'), "copied"),
            _t(rate(remote.REMOTE_FETCH_BYTES.prometheus_name + '{topic=""}'), "read back")), "Bps", 6,
              only_with=_TIERED),
        Panel("Copy lag: bytes not yet copied, by topic", (
            _t(remote.REMOTE_COPY_LAG_BYTES.prometheus_name + '{topic!=""}', "{{topic}}"),), "bytes", 6,
              description="Rolled segments below the last stable offset that the copier has not copied yet: "
                          "the local log cannot delete them (local.retention.ms) until it has.",
              only_with=_TIERED),
        Panel("Copy lag: segments not yet copied, by topic", (
            _t(remote.REMOTE_COPY_LAG_SEGMENTS.prometheus_name + '{topic!=""}', "{{topic}}"),), "short", 6,
              only_with=_TIERED),
        Panel("Remote log size by topic", (
            _t(remote.REMOTE_LOG_SIZE_BYTES.prometheus_name + '{topic!=""}', "{{topic}}"),), "bytes", 6,
              description="Bytes of the segments in remote storage that this broker's leaders know of; "
                          "retention.ms and retention.bytes delete them there.",
              only_with=_TIERED),
        Panel("Copies, reads and deletes that failed", (
            _t(rate(remote.REMOTE_COPY_ERRORS.prometheus_name + '{topic=""}'), "copy errors"),
            _t(rate(remote.REMOTE_FETCH_ERRORS.prometheus_name + '{topic=""}'), "read errors"),
            _t(rate(remote.REMOTE_DELETE_ERRORS.prometheus_name + '{topic=""}'), "delete errors")), "ops",
              description="The store failed (after its own retries): a failed copy is tried again on the "
                          "copier's next run, a failed read answers the fetch with an error.",
              only_with=_TIERED),
        Panel("Remote reads waiting for a reader thread", (
            _t(remote.REMOTE_LOG_READER_TASK_QUEUE_SIZE.prometheus_name, "queued reads"),),
              description="A fetch for offsets only remote storage has waits in the purgatory while a "
                          "reader thread reads; at remote.log.reader.max.pending.tasks more are refused.",
              only_with=_TIERED),
        Panel("Idle share of the remote storage threads", (
            _t(remote.REMOTE_LOG_READER_AVG_IDLE_PERCENT.prometheus_name, "reader threads"),
            _t(remote.REMOTE_LOG_MANAGER_TASKS_AVG_IDLE_PERCENT.prometheus_name, "copier threads")),
              "percentunit", only_with=_TIERED),
    )),
))

# ------------------------------------------------------------------ KRaft and replication
_RAFT = "kafka_server_raft_metrics_"
_CTL = "kafka_controller_kafkacontroller_"
_RPM = "kafka_server_replicamanager_"
CLUSTER = Page("cluster", "KRaft and replication", (
    Row("KRaft: the metadata quorum and the active controller (docs/kraft.md)", (
        Panel("Quorum leader and epoch", (
            _t(_RAFT + "current_leader", "leader seen by {{instance}}"),
            _t(_RAFT + "current_epoch", "epoch at {{instance}}"))),
        Panel("Metadata log: high watermark", (
            _t(_RAFT + "high_watermark", "HW {{instance}}"),
            _t(_RAFT + "log_end_offset", "LEO {{instance}}"))),
        Panel("Raft latencies", (
            _t(_RAFT + "commit_latency_avg", "commit {{instance}}"),
            _t(_RAFT + "election_latency_avg", "election {{instance}}")), "ms"),
        Panel("Active controller", (
            _t(_CTL + "activecontrollercount", "active {{instance}}"),
            _t(_CTL + "offlinepartitionscount", "offline partitions {{instance}}"),
            _t(_CTL + "metadataerrorcount", "controller faults {{instance}}"))),
        Panel("Brokers", (
            _t(_CTL + "activebrokercount", "active {{instance}}"),
            _t(_CTL + "fencedbrokercount", "fenced {{instance}}"))),
        Panel("Topics and partitions", (
            _t(_CTL + "globaltopiccount", "topics {{instance}}"),
            _t(_CTL + "globalpartitioncount", "partitions {{instance}}"))),
        Panel("Finalized feature levels (docs/features.md)", (
            _t("kafka_server_metadataloader_finalizedlevel", "{{featureName}} {{instance}}"),),
            description="The level of each cluster feature as this broker applied it: metadata.version, "
                        "kraft.version, group.version, share.version, ... A step is kafka-features "
                        "upgrade or downgrade reaching the broker through the metadata log."),
    )),
    Row("Replication: followers, the ISR and the high watermark (docs/replication.md)", (
        Panel("Partitions", (
            _t(_RPM + "partitioncount", "partitions"), _t(_RPM + "leadercount", "leaders"),
            _t(_RPM + "underreplicatedpartitions", "under-replicated"),
            _t(_RPM + "offlinereplicacount", "offline replicas"))),
        Panel("In-sync replicas", (
            _t(_RPM + "underreplicatedpartitions", "under-replicated"),
            _t(_RPM + "underminisrpartitioncount", "under min ISR"),
            _t(_RPM + "atminisrpartitioncount", "at min ISR"))),
        Panel("ISR shrinks and expands", (
            _t(rate(_RPM + "isrshrinks_total", "1m"), "shrinks/s"),
            _t(rate(_RPM + "isrexpands_total", "1m"), "expands/s"),
            _t(rate(_RPM + "failedisrupdates_total", "1m"), "failed updates/s")), "ops"),
        Panel("Followers: lag and bytes copied", (
            _t("kafka_server_replicafetchermanager_maxlag", "max lag (records)"),
            _t(rate(_BTM + 'replicationbytesin_total{topic=""}', "1m"), "replication bytes in/s"),
            _t(rate(_BTM + 'replicationbytesout_total{topic=""}', "1m"), "replication bytes out/s"))),
        Panel("Fetch sessions (KIP-227, docs/fetch_sessions.md)", (
            _t("kafka_server_fetchsessioncache_numincrementalfetchsessions", "sessions"),
            _t("kafka_server_fetchsessioncache_numincrementalfetchpartitionscached", "partitions cached"),
            _t(rate("kafka_server_fetchsessioncache_incrementalfetchsessionevictions_total", "1m"),
               "evictions/s"))),
    )),
))

_SEQUENCE_ERRORS = ('errors_total{request="Produce",'
                    'error=~"OUT_OF_ORDER_SEQUENCE_NUMBER|INVALID_PRODUCER_EPOCH"}')

# ------------------------------------------------------------------ groups, coordinator runtime, transactions
_GC = "kafka_server_group_coordinator_metrics_"
_SGM, _SPM = "kafka_server_sharegroupmetrics_", "kafka_server_sharepartitionmetrics_"
GROUPS = Page("groups", "Consumer groups and transactions", (
    Row("Consumer lag: committed offsets behind the log end (kafka_exporter's metric, made by "
        "kafka-dashboard)", (
        Panel("Consumer lag by group", (
            _t("sum by (consumergroup) (kafka_consumergroup_lag)", "{{consumergroup}}"),), "short", 12,
              description="Kafka's brokers export no lag: kafka-dashboard asks the brokers for each group's "
                          "committed offsets and each partition's log end, as kafka_exporter does."),
        Panel("Consumer lag by partition", (
            _t("kafka_consumergroup_lag", "{{consumergroup}} {{topic}}-{{partition}}"),), "short", 12),
    )),
    Row("Consumer groups of the KIP-848 protocol: assignments computed on the broker (docs/groups.md)", (
        Panel("Consumer group rebalances per minute, and groups by state", (
            _t(f"{rate(_GC + 'consumer_group_rebalance_count', '1m')} * 60", "rebalances / min"),
            _t(_GC + "consumer_group_count", "groups {{state}}")), "short", 12),
        Panel("Consumer group assignment time (broker-side assignor)", (
            _t(f"histogram_quantile(0.99, {rate(_GC + 'consumer_group_assignment_time_ms_bucket', '5m')})",
               "p99"),
            _t(mean(_GC + "consumer_group_assignment_time_ms", window="5m"), "mean")), "ms", 12,
              only_with="a KIP-848 group (group.protocol=consumer) assigned in the last five minutes"),
    )),
    Row("Share groups (KIP-932): records in flight, acknowledged, delivered again (docs/share_groups.md)", (
        Panel("Records in flight by share partition", (
            _t(_SPM + "inflightmessagecount", "{{group}} {{topic}}-{{partition}}"),),
              description="InFlightMessageCount: the records between a share partition's start and end "
                          "offsets. A share partition's series goes when its group's last member leaves."),
        Panel("Acknowledgements by type (records)", (
            _t(f"sum by (ackType) ({rate(_SGM + 'recordacknowledgements_total')})", "{{ackType}}"),), "ops",
              description="RecordAcknowledgementsPerSec: Accept (done), Release (handed back: delivered "
                          "again), Reject (archived at once), Renew (the lock restarted)."),
        Panel("Delivered again: records released, and locks that ran out", (
            _t(rate(_SGM + 'recordacknowledgements_total{ackType="Release"}'), "released"),
            _t(f"sum by (group, topic, partition) ({rate(_SPM + 'acquisitionlocktimeout_total')})",
               "lock ran out {{group}} {{topic}}-{{partition}}")), "ops",
              description="Each comes back with its delivery count one higher; on its last delivery "
                          "(group.share.delivery.count.limit) it is archived instead."),
        Panel("ShareFetch and ShareAcknowledge (all topics)", (
            _t(rate(_BTM + 'totalsharefetchrequests_total{topic=""}'), "share fetches"),
            _t(rate(_BTM + 'totalshareacknowledgementrequests_total{topic=""}'), "acknowledgements"),
            _t(rate(_BTM + 'failedshareacknowledgementrequests_total{topic=""}'), "failed acknowledgements")),
              "ops", description="BrokerTopicMetrics' share meters. Acknowledgements count those a "
                                 "ShareFetch carries too; one fails when the record is no longer the "
                                 "member's (its lock ran out)."),
        Panel("Share fetches waiting in the purgatory (DelayedShareFetch)", (
            _t('kafka_server_delayedoperationpurgatory_numdelayedoperations{delayedOperation="ShareFetch"}',
               "waiting"),
            _t(rate("kafka_server_delayedsharefetchmetrics_expires_total"), "max wait ran out /s"))),
        Panel("Share sessions", (
            _t("kafka_server_sharesessioncache_sharesessionscount", "sessions"),
            _t("kafka_server_sharesessioncache_sharepartitionscount", "partitions in sessions"),
            _t(rate("kafka_server_sharesessioncache_sharesessionevictions_total", "1m"),
               "closed with their connection /s"))),
    )),
    Row("The group coordinator's runtime: events per shard, answered on commit (docs/groups.md)", (
        Panel("Shards by state, and events waiting", (
            _t(f"sum by (state) ({_GC}num_partitions)", "{{state}}"),
            _t(_GC + "event_queue_size", "queued events"))),
        Panel("Event queue and processing time (p99)", (
            _t(f"histogram_quantile(0.99, {rate(_GC + 'event_queue_time_ms_bucket', '5m')})", "queue p99"),
            _t(f"histogram_quantile(0.99, {rate(_GC + 'event_processing_time_ms_bucket', '5m')})",
               "processing p99")), "ms"),
        Panel("Waiting for the high watermark, and partition load time", (
            _t(f"histogram_quantile(0.99, {rate(_GC + 'event_purgatory_time_ms_bucket', '5m')})",
               "purgatory p99"),
            _t(_GC + "partition_load_time_max", "load max")), "ms"),
    )),
    Row("Idempotent producers and transactions (docs/transactions.md)", (
        Panel("Producer ids remembered", (_t(_RPM + "produceridcount", "producer ids"),)),
        Panel("Producer ids handed out, and sequence errors", (
            _t(rate(_RM + 'requests_total{request="InitProducerId"}'), "InitProducerId/s"),
            _t("sum by (error) (" + rate(_RM + _SEQUENCE_ERRORS) + ")",
               "{{error}}")), "ops"),
        Panel("Transactions: the last stable offset and the markers", (
            _t("max by (topic) (kafka_cluster_partition_laststableoffsetlag)", "LSO lag {{topic}}"),
            _t("kafka_coordinator_transaction_transactionmarkerchannelmanager_unknowndestinationqueuesize",
               "markers without a leader"),
            _t("kafka_coordinator_transaction_transactionmarkerchannelmanager_logappendretryqueuesize",
               "completions to retry"))),
    )),
))

# ------------------------------------------------------------------ clients: quotas, connections, security
_SSM = "kafka_server_socket_server_metrics_"
CLIENTS = Page("clients", "Clients: quotas, connections and security", (
    Row("Client quotas: who is throttled, and for how long (docs/quotas.md)", (
        Panel("Byte rate per client (quota windows)", (
            _t("kafka_server_produce_byte_rate", "produce {{user}} {{client_id}}"),
            _t("kafka_server_fetch_byte_rate", "fetch {{user}} {{client_id}}")), "Bps", 6,
              only_with="a client quota (kafka-configs --add-config producer_byte_rate=...)"),
        Panel("Throttle time per client", (
            _t("kafka_server_produce_throttle_time", "produce {{user}} {{client_id}}"),
            _t("kafka_server_fetch_throttle_time", "fetch {{user}} {{client_id}}"),
            _t("kafka_server_request_throttle_time", "request {{user}} {{client_id}}")), "ms", 6,
              only_with="a client quota (kafka-configs --add-config producer_byte_rate=...)"),
        Panel("I/O-thread time per client (request_percentage)", (
            _t("kafka_server_request_request_time", "{{user}} {{client_id}}"),), "percent", 6,
              only_with="a client quota (kafka-configs --add-config request_percentage=...)"),
        Panel("Throttle time by request type (RequestMetrics ThrottleTimeMs), mean", (
            _t(f"sum by (request) ({rate(_RM + 'throttletimems_sum')}) / sum by (request) "
               f"({rate(_RM + 'throttletimems_count')})", "{{request}}"),), "ms", 6),
    )),
    Row("Connections and the memory pool: the limits a hostile client meets (docs/architecture.md)", (
        Panel("Connections", (
            _t(f"sum by (listener) ({_SSM}connection_count)", "open on {{listener}}"),
            _t(f"sum by (listener) ({rate(_SSM + 'connection_creation_total', '1m')})",
               "created /s on {{listener}}"),
            _t(f"sum by (listener) ({rate(_SSM + 'connection_close_total', '1m')})",
               "closed /s on {{listener}}"))),
        Panel("Memory pool (queued.max.request.bytes)", (
            _t("kafka_network_socketserver_memorypoolused", "used"),
            _t("kafka_network_socketserver_memorypoolavailable", "available")), "bytes"),
        Panel("Reads paused and accepts delayed", (
            _t(_SSM + "memorypoolavgdepletedpercent", "memory pool depleted"),
            _t("kafka_network_acceptor_acceptorblockedpercent", "acceptor blocked on {{listener}}")),
            "percentunit"),
    )),
    Row("Security: authorisation and authentication (docs/acls.md, docs/security.md)", (
        Panel("Authorisation decisions per minute (allowed, denied)", (
            _t(f"{rate('kafka_server_authorizer_metrics_authorization_allowed_total', '1m')} * 60",
               "allowed"),
            _t(f"{rate('kafka_server_authorizer_metrics_authorization_denied_total', '1m')} * 60", "denied"),
            _t("kafka_server_authorizer_metrics_acls_total_count", "ACLs")), "short", 12,
              description="All zero without an authoriser (authorizer.class.name, as make cluster-secure "
                          "sets)."),
        Panel("Authentications: TLS handshakes and SASL logins (docs/security.md)", (
            _t(f"sum by (listener) ({rate(_SSM + 'successful_authentication_total', '1m')})",
               "succeeded /s on {{listener}}"),
            _t(f"sum by (listener) ({rate(_SSM + 'failed_authentication_total', '1m')})",
               "failed /s on {{listener}}")),
              "short", 12, description="On a PLAINTEXT listener both stay at zero: nothing to authenticate."),
    )),
    Row("Client metrics: what the clients push (KIP-714, docs/client_metrics.md)", (
        Panel("A producer's own metrics, as it pushed them: records sent per second", (
            _t("rate(org_apache_kafka_producer_record_send_total[$__rate_interval])",
               "{{client_id}} {{client_instance_id}}"),
            _t("org_apache_kafka_producer_record_queue_time_avg", "queue time avg (ms) {{client_id}}")),
              "short", 6, only_with="a client-metrics subscription (kafka-client-metrics --alter --name "
                                    "producers --metrics org.apache.kafka.producer. --interval 5000)"),
        Panel("Client instances pushing, and pushes per second", (
            _t("kafka_server_client_metrics_instance_count", "client instances"),
            _t("sum(rate(kafka_server_client_metrics_plugin_export_count[$__rate_interval]))", "pushes/s"),
            _t("sum(kafka_server_client_metrics_throttle_count)", "throttled (total)"),
            _t("kafka_server_client_metrics_unknown_subscription_request_count",
               "unknown subscription (total)")),
              "short", 6),
    )),
))

PAGES: tuple[Page, ...] = (JOURNEY, DATA, CLUSTER, GROUPS, CLIENTS)


def all_panels() -> list[Panel]:
    return [panel for page in PAGES for panel in page.panels]


def as_json() -> list[dict]:
    """The pages as the dashboard's JavaScript reads them (/panels.json)."""
    return [{"slug": page.slug, "title": page.title, "rows": [
        {"title": row.title, "panels": [panel_as_json(p) for p in row.panels]} for row in page.rows]}
        for page in PAGES]


def panel_as_json(p: Panel) -> dict:
    return {"title": p.title, "unit": p.unit, "width": p.width, "stacked": p.stacked,
            "description": p.description, "only_with": p.only_with,
            "targets": [{"expr": t.expr, "legend": t.legend} for t in p.targets]}
