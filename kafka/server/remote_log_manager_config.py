"""RemoteLogManagerConfig: the broker's remote.* keys that the read side of tiered storage uses (Kafka's
org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig), with Kafka 4.4's names and defaults.

AbstractKafkaConfig inherits them as it inherits ShareGroupConfig's keys: `config.remote_fetch_max_wait_ms`.
The copier's keys (remote.log.storage.system.enable, the manager classes, the task interval) are declared
with the copier.
"""

from __future__ import annotations

from kafka.server.config_def import INT, LONG, ConfigKey, at_least


class RemoteLogManagerConfig:
    remote_log_reader_threads = ConfigKey(
        "remote.log.reader.threads", INT, "10", at_least(1),
        "Threads that read remote storage for fetches and offset lookups.")
    remote_log_reader_max_pending_tasks = ConfigKey(
        "remote.log.reader.max.pending.tasks", INT, "100", at_least(1),
        "Remote reads that may wait for a reader thread; a fetch past it is answered with an error.")
    remote_log_index_file_cache_total_size_bytes = ConfigKey(
        "remote.log.index.file.cache.total.size.bytes", LONG, "1073741824", at_least(1),
        "Bytes of remote segments' indexes kept under the log dir's remote-log-index-cache.")
    remote_fetch_max_wait_ms = ConfigKey(
        "remote.fetch.max.wait.ms", INT, "500", at_least(1),
        "How long a fetch waits in the purgatory for its remote reads before it is answered without them.")
    remote_list_offsets_request_timeout_ms = ConfigKey(
        "remote.list.offsets.request.timeout.ms", LONG, "30000", at_least(1),
        "How long a ListOffsets by timestamp waits for its remote lookups when the request sets no timeout.")
