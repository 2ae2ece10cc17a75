package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A rolling upgrade with the Java consumer 4.4: two members of one group start on group.protocol=classic
 * (the default assignors, range then cooperative-sticky), are replaced one at a time by members on
 * group.protocol=consumer, then one goes back to classic and the last member of the new protocol
 * leaves. Every record is read and committed; after each step the group's type as Admin describes it.
 * The members are polled in turn from this one thread, as Kafka's own integration tests do.
 */
final class RollingUpgradeScenario {
    static final String TOPIC = "jvm-rolling-upgrade";
    static final String GROUP = "jvm-rolling-upgrade-group";
    static final int PARTITIONS = 4;
    static final int BATCH = 40;

    private RollingUpgradeScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        List<KafkaConsumer<String, String>> members = new ArrayList<>();
        List<String> types = new ArrayList<>();
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            Scenarios.createTopic(admin, TOPIC, PARTITIONS);
            members.add(member(bootstrap, "classic"));
            members.add(member(bootstrap, "classic"));
            step(admin, producer, members, seen, types, 1);
            members.remove(1).close();
            members.add(member(bootstrap, "consumer"));
            step(admin, producer, members, seen, types, 2);
            members.remove(0).close();
            members.add(member(bootstrap, "consumer"));
            step(admin, producer, members, seen, types, 3);
            members.remove(0).close();
            members.add(member(bootstrap, "classic"));
            pollUntil(members, seen, () -> !members.get(1).assignment().isEmpty(), 60_000);
            members.remove(0).close();
            step(admin, producer, members, seen, types, 4);
            out.put("types", types);
            out.put("consumed", seen.size());
            out.put("records", 4 * BATCH);
        } catch (Exception e) {
            out.put("error", Scenarios.describe(e));
        } finally {
            for (KafkaConsumer<String, String> c : members) {
                c.close(Duration.ofSeconds(5));
            }
        }
        return out;
    }

    private static KafkaConsumer<String, String> member(String bootstrap, String protocol) {
        Properties config = Scenarios.consumerConfig(bootstrap, GROUP);
        config.put("group.protocol", protocol);
        if (!protocol.equals("classic")) {
            config.remove("heartbeat.interval.ms");  // the broker sets it for the consumer protocol
        }
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of(TOPIC));
        return consumer;
    }

    /** Writes the next batch, polls until every record so far was read, commits, notes the group's type. */
    private static void step(Admin admin, KafkaProducer<String, String> producer,
                             List<KafkaConsumer<String, String>> members, Map<String, Integer> seen,
                             List<String> types, int batches) throws Exception {
        for (int i = (batches - 1) * BATCH; i < batches * BATCH; i++) {
            producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k" + i, "v" + i));
        }
        producer.flush();
        pollUntil(members, seen, () -> seen.size() >= batches * BATCH, 60_000);
        for (KafkaConsumer<String, String> c : members) {
            c.commitSync();
        }
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
        types.add(group.type().toString().toLowerCase());
    }

    private static void pollUntil(List<KafkaConsumer<String, String>> members, Map<String, Integer> seen,
                                  BooleanSupplier done, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!done.getAsBoolean()) {
            Scenarios.check(System.currentTimeMillis() < deadline, "timed out: consumed " + seen.size());
            for (KafkaConsumer<String, String> c : members) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    seen.merge(r.value(), 1, Integer::sum);
                }
            }
        }
    }
}
