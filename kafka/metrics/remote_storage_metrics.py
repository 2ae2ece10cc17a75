"""The tiered storage metrics (KIP-405), by their Kafka JMX names (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteStorageMetrics): what the copier, expiration and reader
threads of the RemoteLogManager do. Part of metric_names.ALL_METRICS; on the dashboard's tiered storage row.

The copy and delete meters are BrokerTopicMetrics, per topic and for all topics, as in Kafka; the
reader pool's are kafka.log.remote:type=RemoteStorageThreadPool.
"""

from __future__ import annotations

from kafka.metrics.metric_name import MetricName, MetricType

METER, GAUGE, HISTOGRAM = MetricType.METER, MetricType.GAUGE, MetricType.HISTOGRAM


def _remote_topic(name: str, metric_type: MetricType, doc: str, step: str) -> MetricName:
    # BrokerTopicMetrics again: one series per topic and one for all topics (topic="").
    return MetricName("kafka.server", "BrokerTopicMetrics", name, metric_type, doc, ("topic",), step)


REMOTE_COPY_BYTES = _remote_topic("RemoteCopyBytesPerSec", METER, "Segment bytes copied to remote storage.",
                                  "copier thread -> remote storage")
REMOTE_COPY_REQUESTS = _remote_topic("RemoteCopyRequestsPerSec", METER, "Segments whose copy was started.",
                                     "copier thread -> remote storage")
REMOTE_COPY_ERRORS = _remote_topic("RemoteCopyErrorsPerSec", METER, "Segment copies that failed.",
                                   "copier thread -> remote storage")
REMOTE_COPY_LAG_BYTES = _remote_topic("RemoteCopyLagBytes", GAUGE,
                                      "Bytes of rolled segments below the last stable offset not yet copied.",
                                      "commit log -> copier thread")
REMOTE_COPY_LAG_SEGMENTS = _remote_topic("RemoteCopyLagSegments", GAUGE,
                                         "Rolled segments below the last stable offset not yet copied.",
                                         "commit log -> copier thread")
REMOTE_DELETE_REQUESTS = _remote_topic("RemoteDeleteRequestsPerSec", METER,
                                       "Remote segments whose deletion was started.",
                                       "expiration thread -> remote storage")
REMOTE_DELETE_ERRORS = _remote_topic("RemoteDeleteErrorsPerSec", METER,
                                     "Remote segment deletions that failed.",
                                     "expiration thread -> remote storage")
REMOTE_DELETE_LAG_BYTES = _remote_topic("RemoteDeleteLagBytes", GAUGE,
                                        "Bytes of remote segments past retention not yet deleted.",
                                        "expiration thread -> remote storage")
REMOTE_DELETE_LAG_SEGMENTS = _remote_topic("RemoteDeleteLagSegments", GAUGE,
                                           "Remote segments past retention not yet deleted.",
                                           "expiration thread -> remote storage")
REMOTE_LOG_METADATA_COUNT = _remote_topic("RemoteLogMetadataCount", GAUGE,
                                          "Remote segments this broker's leaders know of.",
                                          "remote log metadata")
REMOTE_LOG_SIZE_BYTES = _remote_topic("RemoteLogSizeBytes", GAUGE,
                                      "Bytes of this broker's leaders' segments in remote storage.",
                                      "remote storage")
REMOTE_LOG_SIZE_COMPUTATION_TIME = _remote_topic("RemoteLogSizeComputationTime", GAUGE,
                                                 "Milliseconds the last remote log size computation took.",
                                                 "expiration thread")
REMOTE_FETCH_BYTES = _remote_topic("RemoteFetchBytesPerSec", METER, "Record bytes read from remote storage.",
                                   "reader thread -> remote storage")
REMOTE_FETCH_REQUESTS = _remote_topic("RemoteFetchRequestsPerSec", METER,
                                      "Partition reads sent to remote storage.",
                                      "reader thread -> remote storage")
REMOTE_FETCH_ERRORS = _remote_topic("RemoteFetchErrorsPerSec", METER, "Remote reads that failed.",
                                    "reader thread -> remote storage")
BUILD_REMOTE_LOG_AUX_STATE_REQUESTS = _remote_topic(
    "BuildRemoteLogAuxStateRequestsPerSec", METER,
    "Followers that rebuilt their leader-epoch and producer state from remote storage.",
    "replica fetcher -> remote storage")
BUILD_REMOTE_LOG_AUX_STATE_ERRORS = _remote_topic(
    "BuildRemoteLogAuxStateErrorsPerSec", METER, "Failed rebuilds of a follower's state from remote storage.",
    "replica fetcher -> remote storage")
REMOTE_LOG_MANAGER_TASKS_AVG_IDLE_PERCENT = MetricName(
    "kafka.log.remote", "RemoteLogManager", "RemoteLogManagerTasksAvgIdlePercent", GAUGE,
    "Fraction of time the copier threads were idle (1.0 = all idle).", (), "copier thread")
REMOTE_LOG_READER_FETCH_RATE_AND_TIME = MetricName(
    "kafka.log.remote", "RemoteLogManager", "RemoteLogReaderFetchRateAndTimeMs", HISTOGRAM,
    "Time a reader thread spent on one remote read.", (), "reader thread -> remote storage")
REMOTE_LOG_READER_TASK_QUEUE_SIZE = MetricName(
    "kafka.log.remote", "RemoteStorageThreadPool", "RemoteLogReaderTaskQueueSize", GAUGE,
    "Remote reads waiting for a reader thread (at most remote.log.reader.max.pending.tasks).", (),
    "purgatory -> reader queue")
REMOTE_LOG_READER_AVG_IDLE_PERCENT = MetricName(
    "kafka.log.remote", "RemoteStorageThreadPool", "RemoteLogReaderAvgIdlePercent", GAUGE,
    "Fraction of time the reader threads were idle (1.0 = all idle).", (), "reader thread")
REMOTE_STORAGE_METRICS = (REMOTE_COPY_BYTES, REMOTE_COPY_REQUESTS, REMOTE_COPY_ERRORS, REMOTE_COPY_LAG_BYTES,
                          REMOTE_COPY_LAG_SEGMENTS, REMOTE_DELETE_REQUESTS, REMOTE_DELETE_ERRORS,
                          REMOTE_DELETE_LAG_BYTES, REMOTE_DELETE_LAG_SEGMENTS, REMOTE_LOG_METADATA_COUNT,
                          REMOTE_LOG_SIZE_BYTES, REMOTE_LOG_SIZE_COMPUTATION_TIME, REMOTE_FETCH_BYTES,
                          REMOTE_FETCH_REQUESTS, REMOTE_FETCH_ERRORS, BUILD_REMOTE_LOG_AUX_STATE_REQUESTS,
                          BUILD_REMOTE_LOG_AUX_STATE_ERRORS, REMOTE_LOG_MANAGER_TASKS_AVG_IDLE_PERCENT,
                          REMOTE_LOG_READER_FETCH_RATE_AND_TIME, REMOTE_LOG_READER_TASK_QUEUE_SIZE,
                          REMOTE_LOG_READER_AVG_IDLE_PERCENT)

