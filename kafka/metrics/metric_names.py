"""Every metric the broker exports, named once, by its Kafka JMX name (Kafka's KafkaMetricsGroup calls
scattered over SocketServer, RequestChannel, KafkaRequestHandlerPool, BrokerTopicStats,
DelayedOperationPurgatory, ReplicaManager and UnifiedLog, gathered here in one list).

Each entry says what Kafka calls the metric, what it counts, and which step of seed 002's journey
(network thread -> request queue -> I/O thread -> commit log -> purgatory -> response queue ->
network thread) it measures. The Prometheus name is derived, never written by hand
(MetricName.prometheus_name), and docs/observability.md is written from this list.
"""

from __future__ import annotations

from kafka.metrics.metric_name import MetricName, MetricType
from kafka.metrics.remote_storage_metrics import REMOTE_STORAGE_METRICS

METER, GAUGE, HISTOGRAM = MetricType.METER, MetricType.GAUGE, MetricType.HISTOGRAM


def _request(name: str, metric_type: MetricType, doc: str, labels: tuple[str, ...], step: str) -> MetricName:
    return MetricName("kafka.network", "RequestMetrics", name, metric_type, doc, labels, step)


# -------------------------------------------------- kafka.network:type=RequestMetrics
REQUESTS = _request("RequestsPerSec", METER, "Requests answered, by request type and version.",
                    ("request", "version"), "the whole journey, counted once the response is sent")
ERRORS = _request("ErrorsPerSec", METER, "Error codes in responses (NONE included), by request type.",
                  ("request", "error"), "the answer KafkaApis built")
REQUEST_QUEUE_TIME = _request("RequestQueueTimeMs", HISTOGRAM, "Time waiting in the request queue.",
                              ("request",), "network thread -> request queue -> I/O thread")
LOCAL_TIME = _request("LocalTimeMs", HISTOGRAM, "Time an I/O thread spent on the request (e.g. the append).",
                      ("request",), "I/O thread -> commit log")
REMOTE_TIME = _request("RemoteTimeMs", HISTOGRAM,
                       "Time waiting in a purgatory (acks=all, a long-polling fetch).",
                       ("request",), "purgatory")
# Kafka's apiThrottleTimeMs: how long a quota kept the connection muted after the response (KIP-219),
# so it is not part of TotalTimeMs; 0 for a request no quota throttled.
THROTTLE_TIME = _request("ThrottleTimeMs", HISTOGRAM,
                         "Time a quota kept the client's connection muted after the "
                         "response (not part of TotalTimeMs).", ("request",),
                         "response -> muted channel (KIP-219)")
RESPONSE_QUEUE_TIME = _request("ResponseQueueTimeMs", HISTOGRAM,
                               "Time the response waited in the response queue.",
                               ("request",), "response queue -> network thread")
RESPONSE_SEND_TIME = _request("ResponseSendTimeMs", HISTOGRAM, "Time writing the response to the socket.",
                              ("request",), "network thread -> socket send buffer")
TOTAL_TIME = _request("TotalTimeMs", HISTOGRAM, "Time from the request read to the response sent.",
                      ("request",), "the whole journey")
REQUEST_TIMES = (REQUEST_QUEUE_TIME, LOCAL_TIME, REMOTE_TIME, THROTTLE_TIME, RESPONSE_QUEUE_TIME,
                 RESPONSE_SEND_TIME,
                 TOTAL_TIME)

# -------------------------------------------------- the two thread pools and the queues
REQUEST_QUEUE_SIZE = MetricName(
    "kafka.network", "RequestChannel", "RequestQueueSize", GAUGE,
    "Requests waiting for an I/O thread (at most queued.max.requests).", (), "request queue")
RESPONSE_QUEUE_SIZE = MetricName(
    "kafka.network", "RequestChannel", "ResponseQueueSize", GAUGE,
    "Responses waiting for their network thread, summed over processors.", (), "response queue")
NETWORK_PROCESSOR_AVG_IDLE_PERCENT = MetricName(
    "kafka.network", "SocketServer", "NetworkProcessorAvgIdlePercent", GAUGE,
    "Fraction of the last minute the network threads waited in select (1.0 = all idle).", (),
    "network threads")
# -------------------------------------------------- the socket server's limits (issue 27)
MEMORY_POOL_AVAILABLE = MetricName(
    "kafka.network", "SocketServer", "MemoryPoolAvailable", GAUGE,
    "Bytes left in the pool of queued.max.request.bytes for requests being read or queued (-1: no bound).",
    (), "network thread reading a request")
MEMORY_POOL_USED = MetricName(
    "kafka.network", "SocketServer", "MemoryPoolUsed", GAUGE,
    "Bytes of the pool held by requests being read or waiting for an I/O thread.", (),
    "network thread -> request queue -> I/O thread")


def _socket_server(name: str, doc: str, labels: tuple[str, ...] = ()) -> MetricName:
    # Kafka's own metrics of group socket-server-metrics, read through JMX as
    # kafka.server:type=socket-server-metrics
    return MetricName("kafka.server", "socket-server-metrics", name, GAUGE, doc, labels, "network threads")


MEMORY_POOL_AVG_DEPLETED_PERCENT = _socket_server(
    "MemoryPoolAvgDepletedPercent", "Fraction of the last minute the memory pool refused buffers (network "
    "threads muted connections for memory), 0 to 1.")
MEMORY_POOL_DEPLETED_TIME_TOTAL = _socket_server(
    "MemoryPoolDepletedTimeTotal", "Milliseconds the memory pool has spent refusing buffers since start-up.")
CONNECTION_COUNT = _socket_server("connection-count", "Connections a network thread holds.",
                                  ("listener", "networkProcessor"))
CONNECTION_CREATION_TOTAL = _socket_server(
    "connection-creation-total", "Connections a network thread has taken on (rate() of it is Kafka's "
    "connection-creation-rate).", ("listener", "networkProcessor"))
CONNECTION_CLOSE_TOTAL = _socket_server(
    "connection-close-total", "Connections a network thread has closed, idle ones (connections.max.idle.ms) "
    "included (rate() of it is Kafka's connection-close-rate).", ("listener", "networkProcessor"))
SUCCESSFUL_AUTHENTICATION_TOTAL = _socket_server(
    "successful-authentication-total",
    "Connections that authenticated: a TLS handshake on an SSL listener, a SASL "
    "login on a SASL one (rate() of it is Kafka's successful-authentication-rate).",
    ("listener", "networkProcessor"))
FAILED_AUTHENTICATION_TOTAL = _socket_server(
    "failed-authentication-total", "Connections closed because their TLS handshake or SASL login failed: an "
    "untrusted certificate, a wrong password, an unknown user or mechanism, a bad SASL token (rate() of it "
    "is "
    "Kafka's failed-authentication-rate).", ("listener", "networkProcessor"))
ACCEPTOR_BLOCKED_PERCENT = MetricName(
    "kafka.network", "Acceptor", "AcceptorBlockedPercent", GAUGE,
    "Fraction of the last minute the acceptor waited instead of accepting (max.connections, "
    "max.connection.creation.rate), 0 to 1.", ("listener",), "acceptor")
SOCKET_SERVER_METRICS = (MEMORY_POOL_AVAILABLE, MEMORY_POOL_USED, MEMORY_POOL_AVG_DEPLETED_PERCENT,
                         MEMORY_POOL_DEPLETED_TIME_TOTAL, CONNECTION_COUNT, CONNECTION_CREATION_TOTAL,
                         CONNECTION_CLOSE_TOTAL, SUCCESSFUL_AUTHENTICATION_TOTAL, FAILED_AUTHENTICATION_TOTAL,
                         ACCEPTOR_BLOCKED_PERCENT)

REQUEST_HANDLER_AVG_IDLE_PERCENT = MetricName(
    "kafka.server", "KafkaRequestHandlerPool", "RequestHandlerAvgIdlePercent", GAUGE,
    "Fraction of the last minute the I/O threads waited for a request (1.0 = all idle).", (),
    "I/O threads")
# The two pools' sizes, which dynamic broker configs change at run time (docs/dynamic_configs.md). This
# broker's own: Kafka 4.4 logs each resize ("Resizing request handler thread pool size from 8 to 16") and
# exports no gauge of it.
REQUEST_HANDLER_POOL_SIZE = MetricName(
    "kafka.server", "KafkaRequestHandlerPool", "RequestHandlerPoolSize", GAUGE,
    "I/O threads running (num.io.threads; this broker's own gauge).", (), "I/O threads")
NETWORK_PROCESSOR_COUNT = MetricName(
    "kafka.network", "SocketServer", "NetworkProcessorCount", GAUGE,
    "Network threads of each listener (num.network.threads; this broker's own gauge).", ("listener",),
    "network threads")


# -------------------------------------------------- kafka.server:type=BrokerTopicMetrics
def _topic(name: str, doc: str, step: str) -> MetricName:
    # Kafka keeps one series per topic (topic=...) and one for all topics (no tag). Here the latter
    # carries topic="", which Prometheus stores exactly as a series without the label.
    return MetricName("kafka.server", "BrokerTopicMetrics", name, METER, doc, ("topic",), step)


MESSAGES_IN = _topic("MessagesInPerSec", "Records appended to the leader's log.", "I/O thread -> commit log")
BYTES_IN = _topic("BytesInPerSec", "Bytes of valid record batches appended.", "I/O thread -> commit log")
BYTES_OUT = _topic("BytesOutPerSec", "Record bytes sent to consumers in fetch responses.",
                   "fetch response -> network thread")
BYTES_REJECTED = _topic("BytesRejectedPerSec", "Bytes of batches refused as too large.", "I/O thread")
TOTAL_PRODUCE_REQUESTS = _topic("TotalProduceRequestsPerSec", "Partition appends attempted.", "I/O thread")
TOTAL_FETCH_REQUESTS = _topic("TotalFetchRequestsPerSec", "Partition reads attempted.", "I/O thread")
FAILED_PRODUCE_REQUESTS = _topic("FailedProduceRequestsPerSec", "Partition appends that failed.",
                                 "I/O thread")
FAILED_FETCH_REQUESTS = _topic("FailedFetchRequestsPerSec", "Partition reads that failed.", "I/O thread")
REPLICATION_BYTES_IN = _topic("ReplicationBytesInPerSec", "Bytes followers on this broker copied from their "
                              "leaders (all topics only).", "replica fetcher -> commit log")
REPLICATION_BYTES_OUT = _topic("ReplicationBytesOutPerSec",
                               "Bytes this broker's leaders sent to followers "
                               "(all topics only).", "fetch response -> network thread")
BROKER_TOPIC_METERS = (MESSAGES_IN, BYTES_IN, BYTES_OUT, BYTES_REJECTED, TOTAL_PRODUCE_REQUESTS,
                       TOTAL_FETCH_REQUESTS, FAILED_PRODUCE_REQUESTS, FAILED_FETCH_REQUESTS,
                       REPLICATION_BYTES_IN, REPLICATION_BYTES_OUT)

# -------------------------------------------------- kafka.server:type=DelayedOperationPurgatory
PURGATORY_SIZE = MetricName(
    "kafka.server", "DelayedOperationPurgatory", "PurgatorySize", GAUGE,
    "Entries on the purgatory's watch lists (an operation watched under n keys counts n times).",
    ("delayedOperation",), "purgatory")
NUM_DELAYED_OPERATIONS = MetricName(
    "kafka.server", "DelayedOperationPurgatory", "NumDelayedOperations", GAUGE,
    "Operations waiting in the purgatory's timer: neither completed nor expired.",
    ("delayedOperation",), "purgatory")


# -------------------------------------------------- kafka.server:type=ReplicaManager
def _replica_manager(name: str, doc: str) -> MetricName:
    return MetricName("kafka.server", "ReplicaManager", name, GAUGE, doc, (),
                      "the partitions behind the commit log")


PARTITION_COUNT = _replica_manager("PartitionCount", "Partitions hosted by this broker.")
LEADER_COUNT = _replica_manager("LeaderCount", "Partitions this broker leads.")
UNDER_REPLICATED_PARTITIONS = _replica_manager(
    "UnderReplicatedPartitions", "Led partitions whose ISR is smaller than their replica set.")
OFFLINE_REPLICA_COUNT = _replica_manager("OfflineReplicaCount", "Replicas whose log directory has failed.")
UNDER_MIN_ISR_PARTITION_COUNT = _replica_manager(
    "UnderMinIsrPartitionCount",
    "Led partitions whose ISR is smaller than min.insync.replicas (acks=all fails).")
AT_MIN_ISR_PARTITION_COUNT = _replica_manager(
    "AtMinIsrPartitionCount", "Led partitions whose ISR is exactly min.insync.replicas (one more loss and "
    "acks=all fails).")
PRODUCER_ID_COUNT = _replica_manager(
    "ProducerIdCount", "Idempotent producer ids whose state this broker's partitions keep (KIP-847).")


def _isr_meter(name: str, doc: str) -> MetricName:
    return MetricName("kafka.server", "ReplicaManager", name, METER, doc, (), "AlterPartition -> controller")


ISR_SHRINKS = _isr_meter("IsrShrinksPerSec",
                         "ISR shrinks committed by the controller for partitions led here.")
ISR_EXPANDS = _isr_meter("IsrExpandsPerSec",
                         "ISR expansions committed by the controller for partitions led here.")
FAILED_ISR_UPDATES = _isr_meter("FailedIsrUpdatesPerSec",
                                "ISR changes the controller refused or never answered.")
ISR_CHANGE_METERS = (ISR_SHRINKS, ISR_EXPANDS, FAILED_ISR_UPDATES)

# -------------------------------------------------- kafka.server:type=authorizer-metrics
# Kafka's StandardAuthorizer reports rates per minute (authorization-request-rate-per-minute, ...);
# here they are counters, and rate(...[1m]) * 60 is Kafka's number.
def _authorizer(name: str, metric_type: MetricType, doc: str) -> MetricName:
    return MetricName("kafka.server", "authorizer-metrics", name, metric_type, doc, (),
                      "KafkaApis -> AuthHelper")


AUTHORIZATION_REQUESTS = _authorizer(
    "authorization-request", METER, "Authorisation decisions taken (authorization-request-rate-per-minute).")
AUTHORIZATION_ALLOWED = _authorizer(
    "authorization-allowed", METER,
    "Decisions that allowed the action (authorization-allowed-rate-per-minute).")
AUTHORIZATION_DENIED = _authorizer(
    "authorization-denied", METER, "Decisions that denied the action (authorization-denied-rate-per-minute).")
ACLS_TOTAL_COUNT = _authorizer("acls-total-count", GAUGE, "ACLs the authoriser enforces.")
AUTHORIZER_METERS = (AUTHORIZATION_REQUESTS, AUTHORIZATION_ALLOWED, AUTHORIZATION_DENIED)

# -------------------------------------------------- kafka.server:type=ReplicaFetcherManager
REPLICA_FETCHER_MAX_LAG = MetricName(
    "kafka.server", "ReplicaFetcherManager", "MaxLag", GAUGE,
    "The most records any partition followed here is behind its leader's high watermark.", (),
    "replica fetcher threads")

# -------------------------------------------------- kafka.server:type=FetchSessionCache
def _fetch_sessions(name: str, metric_type: MetricType, doc: str) -> MetricName:
    return MetricName("kafka.server", "FetchSessionCache", name, metric_type, doc, (),
                      "KafkaApis -> FetchManager")


NUM_INCREMENTAL_FETCH_SESSIONS = _fetch_sessions(
    "NumIncrementalFetchSessions", GAUGE, "Fetch sessions (KIP-227) the broker remembers.")
NUM_INCREMENTAL_FETCH_PARTITIONS_CACHED = _fetch_sessions(
    "NumIncrementalFetchPartitionsCached", GAUGE, "Partitions remembered across all fetch sessions.")
INCREMENTAL_FETCH_SESSION_EVICTIONS = _fetch_sessions(
    "IncrementalFetchSessionEvictionsPerSec", METER,
    "Sessions evicted to make room for another (max.incremental.fetch.session.cache.slots is too small).")


# -------------------------------------------------- kafka.log:type=LogManager
OFFLINE_LOG_DIRECTORY_COUNT = MetricName(
    "kafka.log", "LogManager", "OfflineLogDirectoryCount", GAUGE,
    "Log directories whose last write failed (a full disk, an I/O error); their appends answer "
    "KAFKA_STORAGE_ERROR until a write succeeds again.", (), "commit log (.log + .index)")


# -------------------------------------------------- kafka.log:type=Log
def _log(name: str, doc: str) -> MetricName:
    return MetricName("kafka.log", "Log", name, GAUGE, doc, ("topic", "partition"),
                      "commit log (.log + .index)")


LOG_SIZE = _log("Size", "Bytes in the partition's segment files.")
LOG_END_OFFSET = _log("LogEndOffset", "The offset the next appended record will get.")
LOG_START_OFFSET = _log("LogStartOffset", "The first offset still in the log.")
NUM_LOG_SEGMENTS = _log("NumLogSegments", "Segments (.log files) in the partition.")

# -------------------------------------------------- kafka.cluster:type=Partition
LAST_STABLE_OFFSET_LAG = MetricName(
    "kafka.cluster", "Partition", "LastStableOffsetLag", GAUGE,
    "High watermark minus last stable offset of a partition led here: records read_committed consumers "
    "wait for while a transaction is open (KIP-98).", ("topic", "partition"), "commit log (.log + .txnindex)")



# -------------------------------------------------- kafka.controller:type=KafkaController
def _controller(name: str, doc: str) -> MetricName:
    return MetricName("kafka.controller", "KafkaController", name, GAUGE, doc, (),
                      "the control plane: the active controller's view of the cluster")


ACTIVE_CONTROLLER_COUNT = _controller("ActiveControllerCount", "1 on the active controller, 0 elsewhere.")
OFFLINE_PARTITIONS_COUNT = _controller("OfflinePartitionsCount", "Partitions with no live leader.")
GLOBAL_TOPIC_COUNT = _controller("GlobalTopicCount", "Topics in the cluster.")
GLOBAL_PARTITION_COUNT = _controller("GlobalPartitionCount", "Partitions in the cluster.")
FENCED_BROKER_COUNT = _controller("FencedBrokerCount", "Registered brokers that are fenced.")
ACTIVE_BROKER_COUNT = _controller("ActiveBrokerCount", "Registered brokers that are unfenced.")
METADATA_ERROR_COUNT = _controller("MetadataErrorCount",
                                   "Controller events that failed with an exception nothing "
                                   "expected (a fault: a bug); an active controller renounces on each.")
CONTROLLER_GAUGES = (ACTIVE_CONTROLLER_COUNT, OFFLINE_PARTITIONS_COUNT, GLOBAL_TOPIC_COUNT,
                     GLOBAL_PARTITION_COUNT,
                     FENCED_BROKER_COUNT, ACTIVE_BROKER_COUNT, METADATA_ERROR_COUNT)


# -------------------------------------------------- kafka.server:type=raft-metrics
def _raft(name: str, doc: str) -> MetricName:
    return MetricName("kafka.server", "raft-metrics", name, GAUGE, doc, (), "the metadata quorum (KIP-595)")


RAFT_CURRENT_LEADER = _raft("current-leader", "The quorum leader's id, -1 when unknown.")
RAFT_CURRENT_EPOCH = _raft("current-epoch", "The quorum's current leader epoch.")
RAFT_CURRENT_STATE = MetricName("kafka.server", "raft-metrics", "current-state", GAUGE,
                                "1 for this node's raft state (leader, prospective, prospective-voted, "
                                "candidate, voted, follower, unattached, observer, resigned).", ("state",),
                                "the metadata quorum (KIP-595)")
RAFT_HIGH_WATERMARK = _raft("high-watermark", "The committed end of __cluster_metadata, -1 when unknown.")
RAFT_LOG_END_OFFSET = _raft("log-end-offset", "The end of this node's copy of __cluster_metadata.")
RAFT_COMMIT_LATENCY_AVG = _raft("commit-latency-avg",
                                "Average ms from an append on the leader to its commit.")
RAFT_ELECTION_LATENCY_AVG = _raft("election-latency-avg",
                                  "Average ms from asking for pre-votes to having a leader.")
RAFT_GAUGES = (RAFT_CURRENT_LEADER, RAFT_CURRENT_EPOCH, RAFT_CURRENT_STATE, RAFT_HIGH_WATERMARK,
               RAFT_LOG_END_OFFSET,
               RAFT_COMMIT_LATENCY_AVG, RAFT_ELECTION_LATENCY_AVG)

# -------------------------------------------------- kafka.server:type=MetadataLoader (KIP-584 features)
CURRENT_METADATA_VERSION = MetricName(
    "kafka.server", "MetadataLoader", "CurrentMetadataVersion", GAUGE,
    "The finalized metadata.version level this node's metadata image is at.", (), "the features (KIP-584)")
FINALIZED_LEVEL = MetricName(
    "kafka.server", "MetadataLoader", "FinalizedLevel", GAUGE,
    "The finalized level of each feature (featureName in camel case: metadataVersion, kraftVersion, "
    "groupVersion, ...); metadata.version and kraft.version always, the others while finalized.",
    ("featureName",), "the features (KIP-584)")
FEATURE_GAUGES = (CURRENT_METADATA_VERSION, FINALIZED_LEVEL)

# the transaction coordinator (KIP-98): markers waiting for a leader, completions waiting for the log
TXN_MARKER_UNKNOWN_DESTINATION_QUEUE_SIZE = MetricName(
    "kafka.coordinator.transaction", "TransactionMarkerChannelManager", "UnknownDestinationQueueSize", GAUGE,
    "Transaction markers waiting for their partition's leader to be known.", (),
    "the transaction coordinator")
TXN_MARKER_LOG_APPEND_RETRY_QUEUE_SIZE = MetricName(
    "kafka.coordinator.transaction", "TransactionMarkerChannelManager", "LogAppendRetryQueueSize", GAUGE,
    "Completed transactions whose CompleteCommit/CompleteAbort append waits to be retried.", (),
    "the transaction coordinator")
TXN_PARTITION_LOAD_TIME_MAX = MetricName(
    "kafka.server", "transaction-coordinator-metrics", "partition-load-time-max", GAUGE,
    "The longest a __transaction_state partition took to load, in ms.", (), "the transaction coordinator")
# -------------------------------------------------- kafka.server:type=group-coordinator-metrics (KIP-848)
def _group_coordinator(name: str, metric_type: MetricType, doc: str,
                       labels: tuple[str, ...] = ()) -> MetricName:
    return MetricName("kafka.server", "group-coordinator-metrics", name, metric_type, doc, labels,
                      "the group coordinator")


CONSUMER_GROUP_REBALANCE_COUNT = _group_coordinator(
    "consumer-group-rebalance-count", GAUGE,
    "Target assignments computed for consumer groups (group.protocol="
    "consumer) since start-up; rate() of it is Kafka's consumer-group-rebalance-rate.")
CONSUMER_GROUP_COUNT = _group_coordinator(
    "consumer-group-count", GAUGE, "Consumer groups (KIP-848) this coordinator holds, by state.", ("state",))
CONSUMER_GROUP_ASSIGNMENT_TIME_MS = _group_coordinator(
    "consumer-group-assignment-time-ms", HISTOGRAM,
    "How long the broker-side assignor took to compute a consumer "
    "group's target assignment, in ms (Kafka logs it; this broker also exports it).")
# The coordinator runtime's own (Kafka's CoordinatorRuntimeMetricsImpl, under the group coordinator's type).
COORDINATOR_NUM_PARTITIONS = _group_coordinator(
    "num-partitions", GAUGE,
    "Coordinator partitions of this broker by runtime state (loading, active, failed).",
    ("state",))
COORDINATOR_EVENT_QUEUE_SIZE = _group_coordinator(
    "event-queue-size", GAUGE, "Events waiting in the coordinator runtime's event accumulator.")
COORDINATOR_PARTITION_LOAD_TIME_MAX = _group_coordinator(
    "partition-load-time-max", GAUGE,
    "The longest a coordinator partition took to load in the last 30 s, in ms.")
COORDINATOR_PARTITION_LOAD_TIME_AVG = _group_coordinator(
    "partition-load-time-avg", GAUGE,
    "The average time coordinator partitions took to load in the last 30 s, in ms.")
COORDINATOR_THREAD_IDLE_RATIO_AVG = _group_coordinator(
    "thread-idle-ratio-avg", GAUGE,
    "The share of the last 30 s the coordinator event threads waited for an event.")
COORDINATOR_EVENT_QUEUE_TIME_MS = _group_coordinator(
    "event-queue-time-ms", HISTOGRAM,
    "How long a coordinator event waited in the queue before a thread ran it, in ms.")
COORDINATOR_EVENT_PROCESSING_TIME_MS = _group_coordinator(
    "event-processing-time-ms", HISTOGRAM, "How long a coordinator event took to run, in ms.")
COORDINATOR_EVENT_PURGATORY_TIME_MS = _group_coordinator(
    "event-purgatory-time-ms", HISTOGRAM,
    "How long a coordinator write waited for its records to commit, in ms.")
COORDINATOR_BATCH_FLUSH_TIME_MS = _group_coordinator(
    "batch-flush-time-ms", HISTOGRAM, "How long a coordinator batch took to append to the local log, in ms.")
COORDINATOR_RUNTIME_METRICS = (COORDINATOR_NUM_PARTITIONS, COORDINATOR_EVENT_QUEUE_SIZE,
                               COORDINATOR_PARTITION_LOAD_TIME_MAX, COORDINATOR_PARTITION_LOAD_TIME_AVG,
                               COORDINATOR_THREAD_IDLE_RATIO_AVG, COORDINATOR_EVENT_QUEUE_TIME_MS,
                               COORDINATOR_EVENT_PROCESSING_TIME_MS, COORDINATOR_EVENT_PURGATORY_TIME_MS,
                               COORDINATOR_BATCH_FLUSH_TIME_MS)
TRANSACTION_COORDINATOR_GAUGES = (TXN_MARKER_UNKNOWN_DESTINATION_QUEUE_SIZE,
                                  TXN_MARKER_LOG_APPEND_RETRY_QUEUE_SIZE,
                                  TXN_PARTITION_LOAD_TIME_MAX)

# -------------------------------------------------- share groups on the broker (KIP-932)
# Kafka's org.apache.kafka.server.share.metrics.ShareGroupMetrics and SharePartitionMetrics, the
# ShareSessionCache's gauges, DelayedShareFetchMetrics and the BrokerTopicMetrics of share requests.
def _share(type_: str, name: str, metric_type: MetricType, doc: str,
           labels: tuple[str, ...] = ()) -> MetricName:
    return MetricName("kafka.server", type_, name, metric_type, doc, labels,
                      "SharePartitionManager -> SharePartition")


SHARE_RECORD_ACKNOWLEDGEMENTS = _share(
    "ShareGroupMetrics", "RecordAcknowledgementsPerSec", METER,
    "Records acknowledged by share consumers, by type (Accept, Release, Reject, Renew).", ("ackType",))
SHARE_PARTITION_LOAD_TIME = _share(
    "ShareGroupMetrics", "PartitionLoadTimeMs", HISTOGRAM,
    "How long a share partition took to load its state from the persister, in ms.")
SHARE_TOPIC_PARTITIONS_FETCH_RATIO = _share(
    "ShareGroupMetrics", "RequestTopicPartitionsFetchRatio", HISTOGRAM,
    "Percentage of a share fetch's partitions it could fetch (the others were locked by another fetch).",
    ("group",))
SHARE_TOPIC_PARTITIONS_ACQUIRE_TIME = _share(
    "ShareGroupMetrics", "TopicPartitionsAcquireTimeMs", HISTOGRAM,
    "Time a share fetch waited to take its partitions' fetch locks, in ms.", ("group",))
SHARE_IN_FLIGHT_MESSAGE_COUNT = _share(
    "SharePartitionMetrics", "InFlightMessageCount", GAUGE,
    "Records between the share-partition start and end offsets (in flight).", ("group", "topic", "partition"))
SHARE_IN_FLIGHT_BATCH_COUNT = _share(
    "SharePartitionMetrics", "InFlightBatchCount", GAUGE,
    "In-flight batches a share partition tracks.", ("group", "topic", "partition"))
SHARE_IN_FLIGHT_BATCH_MESSAGE_COUNT = _share(
    "SharePartitionMetrics", "InFlightBatchMessageCount", HISTOGRAM,
    "Records in each in-flight batch a share partition adds.", ("group", "topic", "partition"))
SHARE_FETCH_LOCK_TIME = _share(
    "SharePartitionMetrics", "FetchLockTimeMs", HISTOGRAM,
    "How long a share fetch held a share partition's fetch lock, in ms.", ("group", "topic", "partition"))
SHARE_FETCH_LOCK_RATIO = _share(
    "SharePartitionMetrics", "FetchLockRatio", HISTOGRAM,
    "Percentage of time a share partition's fetch lock was held (held / (held + idle)).",
    ("group", "topic", "partition"))
SHARE_ACQUISITION_LOCK_TIMEOUT = _share(
    "SharePartitionMetrics", "AcquisitionLockTimeoutPerSec", METER,
    "Records whose acquisition lock ran out before they were acknowledged.", ("group", "topic", "partition"))
SHARE_SESSIONS_COUNT = _share("ShareSessionCache", "ShareSessionsCount", GAUGE,
                              "Share sessions the broker holds.")
SHARE_PARTITIONS_COUNT = _share("ShareSessionCache", "SharePartitionsCount", GAUGE,
                                "Partitions named by all share sessions.")
SHARE_SESSION_EVICTIONS = _share("ShareSessionCache", "ShareSessionEvictionsPerSec", METER,
                                 "Share sessions removed because their client's connection closed.")
DELAYED_SHARE_FETCH_EXPIRES = _share("DelayedShareFetchMetrics", "ExpiresPerSec", METER,
                                     "Share fetches that waited out their max wait in the purgatory.")
TOTAL_SHARE_FETCH_REQUESTS = _topic("TotalShareFetchRequestsPerSec", "Share fetches per topic.", "I/O thread")
FAILED_SHARE_FETCH_REQUESTS = _topic("FailedShareFetchRequestsPerSec",
                                     "Share fetches of a topic that failed.",
                                     "I/O thread")
TOTAL_SHARE_ACKNOWLEDGEMENT_REQUESTS = _topic("TotalShareAcknowledgementRequestsPerSec",
                                              "Share acknowledgements per topic.", "I/O thread")
FAILED_SHARE_ACKNOWLEDGEMENT_REQUESTS = _topic("FailedShareAcknowledgementRequestsPerSec",
                                               "Share acknowledgements of a topic that failed.", "I/O thread")
SHARE_METRICS = (SHARE_RECORD_ACKNOWLEDGEMENTS, SHARE_PARTITION_LOAD_TIME, SHARE_TOPIC_PARTITIONS_FETCH_RATIO,
                 SHARE_TOPIC_PARTITIONS_ACQUIRE_TIME, SHARE_IN_FLIGHT_MESSAGE_COUNT,
                 SHARE_IN_FLIGHT_BATCH_COUNT,
                 SHARE_IN_FLIGHT_BATCH_MESSAGE_COUNT, SHARE_FETCH_LOCK_TIME, SHARE_FETCH_LOCK_RATIO,
                 SHARE_ACQUISITION_LOCK_TIMEOUT, SHARE_SESSIONS_COUNT, SHARE_PARTITIONS_COUNT,
                 SHARE_SESSION_EVICTIONS,
                 DELAYED_SHARE_FETCH_EXPIRES, TOTAL_SHARE_FETCH_REQUESTS, FAILED_SHARE_FETCH_REQUESTS,
                 TOTAL_SHARE_ACKNOWLEDGEMENT_REQUESTS, FAILED_SHARE_ACKNOWLEDGEMENT_REQUESTS)

# -------------------------------------------------- kafka.server:type=Produce|Fetch|Request (client quotas)
def _quota(quota_type: str, name: str, doc: str) -> MetricName:
    # Kafka's quota sensors, one series per quota entity: user and client-id as the quota meters them,
    # "" where the quota does not distinguish (a client-id quota has user=""). A series whose client
    # has sent nothing for an hour expires, as Kafka's sensors do.
    return MetricName("kafka.server", quota_type, name, GAUGE, doc, ("user", "client_id"),
                      "client quotas: I/O thread -> response -> muted channel (KIP-219)")


QUOTA_PRODUCE_BYTE_RATE = _quota("Produce", "byte-rate",
                                 "Produce request bytes per second, over the quota windows.")
QUOTA_PRODUCE_THROTTLE_TIME = _quota("Produce", "throttle-time",
                                     "Average ms a client's produce requests were throttled, over the quota "
                                     "windows.")
QUOTA_FETCH_BYTE_RATE = _quota("Fetch", "byte-rate",
                               "Fetch response bytes per second, over the quota windows.")
QUOTA_FETCH_THROTTLE_TIME = _quota("Fetch", "throttle-time",
                                   "Average ms a client's fetch requests were throttled, over the quota "
                                   "windows.")
QUOTA_REQUEST_TIME = _quota("Request", "request-time",
                            "I/O-thread time as a percentage of one thread, over the quota windows.")
QUOTA_REQUEST_THROTTLE_TIME = _quota("Request", "throttle-time",
                                     "Average ms a client was throttled for its request_percentage.")
# (quota type, its rate metric, its throttle-time metric)
CLIENT_QUOTA_METRICS = (("Produce", QUOTA_PRODUCE_BYTE_RATE, QUOTA_PRODUCE_THROTTLE_TIME),
                        ("Fetch", QUOTA_FETCH_BYTE_RATE, QUOTA_FETCH_THROTTLE_TIME),
                        ("Request", QUOTA_REQUEST_TIME, QUOTA_REQUEST_THROTTLE_TIME))


# -------------------------------------------------- kafka.server:type=client-metrics (KIP-714)
def _client_metrics(name: str, doc: str, labels: tuple[str, ...] = ()) -> MetricName:
    return MetricName("kafka.server", "client-metrics", name, GAUGE, doc, labels,
                      "client telemetry: GetTelemetrySubscriptions and PushTelemetry")


CLIENT_METRICS_INSTANCE_COUNT = _client_metrics(
    "instance-count", "The current number of client metrics instances being managed by the broker.")
CLIENT_METRICS_UNKNOWN_SUBSCRIPTION_REQUEST_COUNT = _client_metrics(
    "unknown-subscription-request-count",
    "The total number of pushes with a stale or unknown subscription id.")
CLIENT_METRICS_THROTTLE_COUNT = _client_metrics(
    "throttle-count", "The total number of telemetry requests refused for coming before the push interval.",
    ("client_instance_id",))
CLIENT_METRICS_PLUGIN_EXPORT_COUNT = _client_metrics(
    "plugin-export-count", "The total number of pushes handed to the exporter.", ("client_instance_id",))
CLIENT_METRICS_PLUGIN_EXPORT_TIME_AVG = _client_metrics(
    "plugin-export-time-avg", "Average time broker spent in invoking plugin exportMetrics call.",
    ("client_instance_id",))
CLIENT_METRICS_PLUGIN_EXPORT_TIME_MAX = _client_metrics(
    "plugin-export-time-max", "Maximum time broker spent in invoking plugin exportMetrics call.",
    ("client_instance_id",))
CLIENT_METRICS_PLUGIN_ERROR_COUNT = _client_metrics(
    "plugin-error-count", "The total number of pushes the exporter could not take.", ("client_instance_id",))
CLIENT_METRICS_METRICS = (CLIENT_METRICS_INSTANCE_COUNT, CLIENT_METRICS_UNKNOWN_SUBSCRIPTION_REQUEST_COUNT,
                          CLIENT_METRICS_THROTTLE_COUNT, CLIENT_METRICS_PLUGIN_EXPORT_COUNT,
                          CLIENT_METRICS_PLUGIN_EXPORT_TIME_AVG, CLIENT_METRICS_PLUGIN_EXPORT_TIME_MAX,
                          CLIENT_METRICS_PLUGIN_ERROR_COUNT)


ALL_METRICS: tuple[MetricName, ...] = (
    REQUESTS, ERRORS, *REQUEST_TIMES,
    REQUEST_QUEUE_SIZE, RESPONSE_QUEUE_SIZE, NETWORK_PROCESSOR_AVG_IDLE_PERCENT,
    REQUEST_HANDLER_AVG_IDLE_PERCENT, REQUEST_HANDLER_POOL_SIZE, NETWORK_PROCESSOR_COUNT,
    *SOCKET_SERVER_METRICS,
    *BROKER_TOPIC_METERS,
    PURGATORY_SIZE, NUM_DELAYED_OPERATIONS,
    PARTITION_COUNT, LEADER_COUNT, UNDER_REPLICATED_PARTITIONS, OFFLINE_REPLICA_COUNT,
    UNDER_MIN_ISR_PARTITION_COUNT, AT_MIN_ISR_PARTITION_COUNT, PRODUCER_ID_COUNT, *ISR_CHANGE_METERS,
    REPLICA_FETCHER_MAX_LAG,
    NUM_INCREMENTAL_FETCH_SESSIONS, NUM_INCREMENTAL_FETCH_PARTITIONS_CACHED,
    INCREMENTAL_FETCH_SESSION_EVICTIONS,
    OFFLINE_LOG_DIRECTORY_COUNT,
    LOG_SIZE, LOG_END_OFFSET, LOG_START_OFFSET, NUM_LOG_SEGMENTS, LAST_STABLE_OFFSET_LAG,
    *CONTROLLER_GAUGES, *RAFT_GAUGES, *FEATURE_GAUGES, *TRANSACTION_COORDINATOR_GAUGES,
    CONSUMER_GROUP_REBALANCE_COUNT, CONSUMER_GROUP_COUNT, CONSUMER_GROUP_ASSIGNMENT_TIME_MS,
    *COORDINATOR_RUNTIME_METRICS,
    *(metric for _, rate, throttle in CLIENT_QUOTA_METRICS for metric in (rate, throttle)),
    *AUTHORIZER_METERS, ACLS_TOTAL_COUNT,
    *SHARE_METRICS,
    *CLIENT_METRICS_METRICS,
    *REMOTE_STORAGE_METRICS,
)

