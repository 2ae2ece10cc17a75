"""CoordinatorRuntimeMetrics (Kafka's CoordinatorRuntimeMetricsImplTest): partitions counted by state,
load times over the last 30 s, and the latencies as Prometheus histograms under group-coordinator-metrics."""

from __future__ import annotations

from prometheus_client import generate_latest

from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafka.utils.time import MockTime


def test_the_runtime_metrics_are_exported_with_kafkas_names():
    time, group = MockTime(), KafkaMetricsGroup()
    metrics = CoordinatorRuntimeMetrics(time, group)
    metrics.record_partition_state_change(CoordinatorState.INITIAL, CoordinatorState.LOADING)
    metrics.record_partition_state_change(CoordinatorState.LOADING, CoordinatorState.ACTIVE)
    metrics.record_partition_load_sensor(time.milliseconds() - 40, time.milliseconds())
    metrics.record_event_purgatory_time(12)
    metrics.register_event_queue_size_gauge(lambda: 3)
    text = generate_latest(group.registry).decode()
    assert 'kafka_server_group_coordinator_metrics_num_partitions{state="active"} 1.0' in text
    assert 'kafka_server_group_coordinator_metrics_num_partitions{state="loading"} 0.0' in text
    assert "kafka_server_group_coordinator_metrics_partition_load_time_max 40.0" in text
    assert "kafka_server_group_coordinator_metrics_event_queue_size 3.0" in text
    assert "kafka_server_group_coordinator_metrics_event_purgatory_time_ms_count 1.0" in text
    time.advance(30_001)  # out of the window
    text = generate_latest(group.registry).decode()
    assert "kafka_server_group_coordinator_metrics_partition_load_time_max 0.0" in text
    metrics.close()
    assert "group_coordinator_metrics_num_partitions" not in generate_latest(group.registry).decode()
