package teaching.jvm;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * The nemesis's Java group member (tests/nemesis/java_clients.py runs it beside the confluent-kafka one, in
 * the same group): KafkaConsumer, read_committed, committing what each poll gave it with commitSync, until
 * stdin says "stop" or ends. {@code java -cp ... teaching.jvm.NemesisConsumer <bootstrap> <topic> <group>}
 *
 * <p>One line per event on stdout, for the run's history:
 * <pre>
 *   read PARTITION OFFSET VALUE      a record poll() returned
 *   commit PARTITION OFFSET          an offset commitSync committed
 *   error ERROR                      a poll or a commit that threw (a rebalance, a coordinator moving)
 *   done
 * </pre>
 */
public final class NemesisConsumer {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static volatile boolean stopping;

    private NemesisConsumer() {
    }

    public static void main(String[] args) {
        NemesisProducer.onStop(() -> stopping = true);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config(args[0], args[2]))) {
            consumer.subscribe(List.of(args[1]));
            while (!stopping) {
                Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        OUT.println("read " + r.partition() + " " + r.offset() + " " + r.value());
                        consumed.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    if (!consumed.isEmpty()) {
                        consumer.commitSync(consumed, Duration.ofSeconds(10));
                        consumed.forEach((tp, offset) -> OUT.println("commit " + tp.partition() + " " + offset.offset()));
                    }
                } catch (KafkaException e) {
                    OUT.println("error " + (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' '));
                }
            }
        }
        OUT.println("done");
    }

    /** The classic group protocol (as the librdkafka member speaks), read_committed, the run's timeouts. */
    private static Properties config(String bootstrap, String group) {
        Properties p = Scenarios.consumerConfig(bootstrap, group);
        p.put("isolation.level", "read_committed");
        p.put("session.timeout.ms", "10000");
        p.put("request.timeout.ms", "10000");
        p.put("default.api.timeout.ms", "20000");
        p.put("reconnect.backoff.max.ms", "1000");
        p.put("metadata.max.age.ms", "2000");
        return p;
    }
}
