package teaching.jvm;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.telemetry.ClientTelemetry;
import org.apache.kafka.server.telemetry.ClientTelemetryPayload;
import org.apache.kafka.server.telemetry.ClientTelemetryReceiver;

/**
 * A metric reporter that receives client telemetry (KIP-714) on Apache Kafka: with it in metric.reporters
 * a broker advertises GetTelemetrySubscriptions and PushTelemetry, as ours always does (its /metrics is
 * the receiver). It only counts the pushes: the differential tier compares the answers, not a backend.
 */
public class ClientTelemetryRecorder implements MetricsReporter, ClientTelemetry, ClientTelemetryReceiver {
    static final AtomicLong PUSHES = new AtomicLong();

    @Override public void configure(Map<String, ?> configs) { }
    @Override public void init(List<KafkaMetric> metrics) { }
    @Override public void metricChange(KafkaMetric metric) { }
    @Override public void metricRemoval(KafkaMetric metric) { }
    @Override public void close() { }
    @Override public ClientTelemetryReceiver clientReceiver() { return this; }

    @Override
    public void exportMetrics(AuthorizableRequestContext context, ClientTelemetryPayload payload) {
        PUSHES.incrementAndGet();
    }
}
