"""TopicBasedRemoteLogMetadataManagerConfig: the `rlmm.config.*` keys the TopicBasedRemoteLogMetadataManager
reads (Kafka's org.apache.kafka.server.log.remote.metadata.storage.TopicBasedRemoteLogMetadataManagerConfig),
with Kafka's names and defaults.

    remote.log.metadata.topic.num.partitions             50
    remote.log.metadata.topic.replication.factor         3
    remote.log.metadata.topic.retention.ms               -1 (for ever: it must outlive every segment)
    remote.log.metadata.topic.min.isr                    2
    remote.log.metadata.consume.wait.ms                  120000: how long a write waits to be read back
    remote.log.metadata.initialization.retry.*           100 ms between tries, 120000 ms in all

and the clients' own configs under `remote.log.metadata.common.client.`, `.producer.`, `.consumer.` and
`.admin.` (`bootstrap.servers` among them, which the broker fills in from
remote.log.metadata.manager.listener.name).
"""

from __future__ import annotations

from collections.abc import Mapping

REMOTE_LOG_METADATA_TOPIC_NAME = "__remote_log_metadata"
COMMON_CLIENT_PREFIX = "remote.log.metadata.common.client."
PRODUCER_PREFIX = "remote.log.metadata.producer."
CONSUMER_PREFIX = "remote.log.metadata.consumer."
ADMIN_PREFIX = "remote.log.metadata.admin."
CLIENT_ID_PREFIX = "__remote_log_metadata_client"

_DEFAULTS: dict[str, tuple[int, int]] = {  # key: (default, least value)
    "remote.log.metadata.topic.num.partitions": (50, 1),
    "remote.log.metadata.topic.replication.factor": (3, 1),
    "remote.log.metadata.topic.retention.ms": (-1, -1),
    "remote.log.metadata.topic.min.isr": (2, 1),
    "remote.log.metadata.consume.wait.ms": (120_000, 0),
    "remote.log.metadata.initialization.retry.max.timeout.ms": (120_000, 1),
    "remote.log.metadata.initialization.retry.interval.ms": (100, 1),
}


class TopicBasedRemoteLogMetadataManagerConfig:
    def __init__(self, props: Mapping[str, str]) -> None:
        self.log_dir = props.get("log.dir")
        if not self.log_dir:
            raise ValueError("log.dir config must not be null or empty.")
        values = {key: _int(props, key, default, least) for key, (default, least) in _DEFAULTS.items()}
        self.metadata_topic_partitions_count = values["remote.log.metadata.topic.num.partitions"]
        self.metadata_topic_replication_factor = values["remote.log.metadata.topic.replication.factor"]
        self.metadata_topic_retention_ms = values["remote.log.metadata.topic.retention.ms"]
        if self.metadata_topic_retention_ms != -1 and self.metadata_topic_retention_ms <= 0:
            raise ValueError(f"Invalid metadata topic retention in millis: "
                             f"{self.metadata_topic_retention_ms}")
        self.metadata_topic_min_isr = values["remote.log.metadata.topic.min.isr"]
        self.consume_wait_ms = values["remote.log.metadata.consume.wait.ms"]
        retry = "remote.log.metadata.initialization.retry"
        self.initialization_retry_max_timeout_ms = values[f"{retry}.max.timeout.ms"]
        self.initialization_retry_interval_ms = values[f"{retry}.interval.ms"]
        node_id = props.get("node.id", props.get("broker.id"))
        if node_id is None:
            raise ValueError("Both node.id and broker.id configs are missing. Please configure node.id.")
        self.client_id_prefix = f"{CLIENT_ID_PREFIX}_{node_id}"
        common = _under(props, COMMON_CLIENT_PREFIX)
        self.producer_properties = {**common, **_under(props, PRODUCER_PREFIX),
                                    "client.id": f"{self.client_id_prefix}_producer", "acks": "all",
                                    "enable.idempotence": True}
        self.consumer_properties = {**common, **_under(props, CONSUMER_PREFIX),
                                    "client.id": f"{self.client_id_prefix}_consumer",
                                    "enable.auto.commit": False, "auto.offset.reset": "earliest"}
        self.admin_properties = {**common, **_under(props, ADMIN_PREFIX),
                                 "client.id": f"{self.client_id_prefix}_admin"}

    @property
    def remote_log_metadata_topic_name(self) -> str:
        return REMOTE_LOG_METADATA_TOPIC_NAME


def _int(props: Mapping[str, str], key: str, default: int, least: int) -> int:
    raw = props.get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"Invalid value {raw} for configuration {key}: Not a number") from None
    if value < least:
        raise ValueError(f"Invalid value {raw} for configuration {key}: Value must be at least {least}")
    return value


def _under(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {key[len(prefix):]: value for key, value in props.items() if key.startswith(prefix)}
