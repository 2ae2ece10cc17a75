"""Consumer lag for Prometheus, named as kafka_exporter (danielqsj/kafka_exporter) names it.

Kafka's brokers export no consumer lag: a group's committed offsets live in __consumer_offsets and
its lag is the log end minus them, which an outside process works out by asking the brokers, as
`kafka-consumer-groups --describe` does. Shops run kafka_exporter or Burrow for it; kafka-dashboard
serves this page beside its dashboards and Prometheus scrapes it as the `consumer-lag` job:

    kafka_consumergroup_lag{consumergroup,topic,partition}             log end offset - committed offset
    kafka_consumergroup_current_offset{consumergroup,topic,partition}  the committed offset
    kafka_consumergroup_exporter_up                                    1 if the brokers answered this scrape
"""

from __future__ import annotations

import logging
import threading

import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.tools.dashboard.ConsumerLagExporter")

_HELP = (
    "# HELP kafka_consumergroup_lag Log end offset minus the group's committed offset.\n"
    "# TYPE kafka_consumergroup_lag gauge\n",
    "# HELP kafka_consumergroup_current_offset The group's committed offset.\n"
    "# TYPE kafka_consumergroup_current_offset gauge\n",
)
METRIC_NAMES = ("kafka_consumergroup_lag", "kafka_consumergroup_current_offset",
                "kafka_consumergroup_exporter_up")


def _labels(group: str, tp: TopicPartition) -> str:
    def quote(value: str) -> str:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'{{consumergroup="{quote(group)}",topic="{quote(tp.topic)}",partition="{tp.partition}"}}'


class ConsumerLagExporter:
    """Asks the brokers for every group's committed offsets and each partition's log end at scrape time."""

    def __init__(self, bootstrap_servers: str, timeout_ms: int = 3000) -> None:
        self.config = {"bootstrap.servers": bootstrap_servers, "default.api.timeout.ms": timeout_ms,
                       "request.timeout.ms": timeout_ms, "client.id": "kafka-dashboard-lag"}
        self._lock = threading.Lock()  # one scrape at a time: Prometheus never overlaps its own
        self._admin: AdminClient | None = None

    def lags(self) -> dict[str, dict[TopicPartition, tuple[int, int]]]:
        """{group: {partition: (committed offset, lag)}}, for groups with committed offsets."""
        admin = self._client()
        result: dict[str, dict[TopicPartition, tuple[int, int]]] = {}
        groups = admin.list_consumer_groups()
        topics = admin.list_topics(include_internal=True) if groups else set()
        for group_id, _state in groups:
            committed = admin.list_consumer_group_offsets(group_id)
            alive = {tp: offset for tp, offset in committed.items() if tp.topic in topics}
            if not alive:
                continue
            ends = admin.list_offsets({tp: "latest" for tp in alive})
            result[group_id] = {tp: (offset, max(ends[tp][0] - offset, 0)) for tp, offset in alive.items()}
        return result

    def render(self) -> str:
        """The Prometheus text page; `kafka_consumergroup_exporter_up 0` when the brokers did not answer."""
        with self._lock:
            try:
                lags = self.lags()
            except (KafkaError, OSError, ValueError) as e:
                log.debug("consumer lag scrape failed", error=str(e))
                self.close()
                return "kafka_consumergroup_exporter_up 0\n"
        lines = [_HELP[0]]
        lines += [f"kafka_consumergroup_lag{_labels(g, tp)} {lag}\n"
                  for g, parts in sorted(lags.items()) for tp, (_, lag) in sorted(parts.items())]
        lines.append(_HELP[1])
        lines += [f"kafka_consumergroup_current_offset{_labels(g, tp)} {offset}\n"
                  for g, parts in sorted(lags.items()) for tp, (offset, _) in sorted(parts.items())]
        lines.append("kafka_consumergroup_exporter_up 1\n")
        return "".join(lines)

    def _client(self) -> AdminClient:
        if self._admin is None:
            self._admin = AdminClient(self.config)
        return self._admin

    def close(self) -> None:
        admin, self._admin = self._admin, None
        if admin is not None:
            try:
                admin.close()
            except Exception as e:  # a half-open client on a dead broker: nothing more to free
                logging.getLogger(__name__).debug("closing the admin client: %s", e)
