package teaching.jvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * The nemesis's Java producer (tests/nemesis/java_clients.py runs it beside the confluent-kafka ones):
 * KafkaProducer with the Java defaults (enable.idempotence=true, acks=all) writing unique values
 * {@code <name>g<generation>-<seq>} to one topic, five records every 20 ms, until stdin says "stop" or ends.
 * {@code java -cp <classes>:<kafka-clients> teaching.jvm.NemesisProducer <bootstrap> <topic> <name>}
 *
 * <p>One line per event on stdout, which the Python side parses into the run's history:
 * <pre>
 *   sent VALUE                       before send(): the producer's send order
 *   acked VALUE PARTITION OFFSET     its callback, without an exception
 *   failed VALUE ERROR               its callback, with one (indeterminate: it may still be in the log)
 *   fatal PRODUCER ERROR             send() threw: this producer is closed and a new generation takes over
 *   done
 * </pre>
 */
public final class NemesisProducer {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static volatile boolean stopping;

    private NemesisProducer() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String name = args[2];
        onStop(() -> stopping = true);
        int generation = 0;
        while (!stopping) {
            produce(bootstrap, topic, name + "g" + generation);
            generation++;
        }
        OUT.println("done");
    }

    /** Runs {@code stop} on a line "stop" or the end of stdin (NemesisConsumer stops the same way). */
    static void onStop(Runnable stop) {
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null && !line.strip().equals("stop")) {
                    continue;
                }
            } catch (IOException e) {
                // stdin gone: stop as on its end
            }
            stop.run();
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
    }

    /** One producer generation: sends until stopping or until send() throws (a fatal error). */
    private static void produce(String bootstrap, String topic, String producerName) throws InterruptedException {
        KafkaProducer<String, String> producer = new KafkaProducer<>(config(bootstrap));
        try {
            long seq = 0;
            while (!stopping) {
                for (int i = 0; i < 5; i++) {
                    String value = producerName + "-" + seq++;
                    OUT.println("sent " + value);
                    producer.send(new ProducerRecord<>(topic, value), (metadata, exception) -> {
                        if (exception == null) {
                            OUT.println("acked " + value + " " + metadata.partition() + " " + metadata.offset());
                        } else {
                            OUT.println("failed " + value + " " + oneLine(exception));
                        }
                    });
                }
                Thread.sleep(20);
            }
        } catch (KafkaException e) {
            OUT.println("fatal " + producerName + " " + oneLine(e));
        } finally {
            // Waits for what is in flight (each gets its callback); past the deadline, the rest fail.
            producer.close(Duration.ofSeconds(120));
        }
    }

    /** Java defaults for idempotence and acks; timeouts as the nemesis's other clients have them. */
    private static Properties config(String bootstrap) {
        Properties p = Scenarios.producerConfig(bootstrap);
        p.put("linger.ms", "5");
        p.put("delivery.timeout.ms", "300000");
        p.put("request.timeout.ms", "10000");
        p.put("retry.backoff.ms", "200");
        p.put("reconnect.backoff.max.ms", "1000");
        p.put("metadata.max.age.ms", "2000");
        p.put("max.block.ms", "10000");
        return p;
    }

    private static String oneLine(Throwable e) {
        return (e.getClass().getSimpleName() + ": " + e.getMessage()).replace('\n', ' ');
    }
}
