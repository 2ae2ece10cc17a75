package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Share groups (KIP-932) with Kafka's own KafkaShareConsumer (kafka-clients 4.x only, so it is compiled
 * against that profile alone): two members of one share group read a topic of two partitions, each on its
 * own thread, acknowledging explicitly. Every record is delivered to one member once; the one record a
 * member releases comes back, with delivery count 2. Prints one JSON object:
 * {@code java -cp <classes>:<kafka-clients 4> teaching.jvm.ShareGroupScenario <bootstrap>}.
 */
public final class ShareGroupScenario {
    static final String TOPIC = "jvm-share";
    static final String GROUP = "jvm-share-group";
    static final int RECORDS = 200;
    static final String WARM_UP = "warm-up";
    static final String RELEASED = "release-me";

    private ShareGroupScenario() {
    }

    /** One member: its own thread polls, acknowledges each record and notes what it got. */
    static final class Member implements Runnable {
        final String name;
        final KafkaShareConsumer<String, String> consumer;
        final List<String> values = Collections.synchronizedList(new ArrayList<>());
        final Set<Integer> warmUpPartitions = ConcurrentHashMap.newKeySet();
        final List<Integer> releasedDeliveries = Collections.synchronizedList(new ArrayList<>());
        final AtomicBoolean stop = new AtomicBoolean();
        volatile String error;

        Member(String bootstrap, String name) {
            this.name = name;
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", GROUP);
            p.put("share.acknowledgement.mode", "explicit");
            consumer = new KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer());
            consumer.subscribe(List.of(TOPIC));
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        acknowledge(record);
                    }
                }
                consumer.commitSync();  // the last poll's acknowledgements
            } catch (Exception e) {
                error = Scenarios.describe(e);
            } finally {
                consumer.close();
            }
        }

        private void acknowledge(ConsumerRecord<String, String> record) {
            String value = record.value();
            if (WARM_UP.equals(value)) {
                warmUpPartitions.add(record.partition());
                consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                return;
            }
            int deliveries = record.deliveryCount().orElse((short) 0);
            if (RELEASED.equals(value)) {
                releasedDeliveries.add(deliveries);
                consumer.acknowledge(record, deliveries == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                return;
            }
            values.add(value);
            consumer.acknowledge(record, AcknowledgeType.ACCEPT);
        }
    }

    public static void main(String[] args) {
        Map<String, Object> result = new LinkedHashMap<>();
        try {
            result = run(args[0]);
        } catch (Throwable e) {
            result.put("error", Scenarios.describe(e));
        }
        System.out.println(Json.write(result));
        System.out.flush();
        System.exit(0);
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            Scenarios.createTopic(admin, TOPIC, 2);
        }
        List<Member> members = List.of(new Member(bootstrap, "m1"), new Member(bootstrap, "m2"));
        List<Thread> threads = new ArrayList<>();
        for (Member m : members) {
            Thread t = new Thread(m, "share-member-" + m.name);
            t.start();
            threads.add(t);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            // share.auto.offset.reset is latest: a share partition starts at its log's end when first
            // fetched, so records count only once a member has read a warm-up record of each partition.
            waitFor(60, () -> {
                for (int p = 0; p < 2; p++) {
                    producer.send(new ProducerRecord<>(TOPIC, p, null, WARM_UP));
                }
                producer.flush();
                sleepQuietly(300);
                Set<Integer> seen = ConcurrentHashMap.newKeySet();
                members.forEach(m -> seen.addAll(m.warmUpPartitions));
                return seen.size() == 2;
            }, "the share group to read both partitions");
            producer.send(new ProducerRecord<>(TOPIC, 0, null, RELEASED));
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 2, null, "r-" + i));
                if (i % 20 == 19) {
                    producer.flush();
                    sleepQuietly(100);  // in bursts: each member's fetch gets its turn
                }
            }
            producer.flush();
            waitFor(60, () -> received(members) >= RECORDS
                    && members.stream().mapToInt(m -> m.releasedDeliveries.size()).sum() >= 2,
                    "every record, and the released one again");
        } finally {
            members.forEach(m -> m.stop.set(true));
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, Object> perMember = new LinkedHashMap<>();
        List<Integer> releasedDeliveries = new ArrayList<>();
        for (Member m : members) {
            perMember.put(m.name, m.values.size());
            m.values.forEach(v -> counts.merge(v, 1, Integer::sum));
            releasedDeliveries.addAll(m.releasedDeliveries);
            if (m.error != null) {
                result.put("member_error", m.error);
            }
        }
        List<String> duplicates = new ArrayList<>();
        counts.forEach((v, n) -> {
            if (n > 1) {
                duplicates.add(v);
            }
        });
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            if (!counts.containsKey("r-" + i)) {
                missing.add("r-" + i);
            }
        }
        Collections.sort(releasedDeliveries);
        result.put("sent", RECORDS);
        result.put("received", perMember);
        result.put("duplicates", duplicates);
        result.put("missing", missing);
        result.put("released_deliveries", releasedDeliveries);
        return result;
    }

    private static int received(List<Member> members) {
        return members.stream().mapToInt(m -> m.values.size()).sum();
    }

    private static void waitFor(int seconds, java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            sleepQuietly(50);
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
