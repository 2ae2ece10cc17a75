package teaching.jvm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Three nodes, a partition leader killed mid-stream. A producer with the Java defaults (idempotent,
 * acks=all) sends numbered records to a topic with replication factor 3 and min.insync.replicas=2
 * while a consumer in a group reads and commits. After the first third is acknowledged this prints
 * {@code KILL <node id>} (the leader of partition 0) and waits for a line on standard input: pytest
 * kills that node with SIGKILL and answers. At the end every acknowledged number must be in the log
 * (read back from the start) and must have reached the group's consumer.
 */
final class ClusterScenario {
    static final String TOPIC = "jvm-cluster";
    static final int RECORDS = 3000;

    private ClusterScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        int leader;
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            createWhenThreeBrokersAreUp(admin, TOPIC);
            leader = awaitLeader(admin, TOPIC);
        }
        Set<Integer> consumed = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> consumerErrors = new ConcurrentLinkedQueue<>();
        Thread consumer = new Thread(() -> consume(bootstrap, consumed, stop, consumerErrors), "group-consumer");
        consumer.start();

        Set<Integer> acked = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Properties config = Scenarios.producerConfig(bootstrap);
        config.put("linger.ms", "5");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < RECORDS; i++) {
                if (i == RECORDS / 3) {
                    producer.flush();
                    System.out.println("KILL " + leader);
                    System.out.flush();
                    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                }
                int n = i;
                producer.send(new ProducerRecord<>(TOPIC, Integer.toString(n), "n" + n), (metadata, e) -> {
                    if (e == null) {
                        acked.add(n);
                    } else {
                        errors.add(Scenarios.describe(e));
                    }
                });
                if (i % 100 == 0) {
                    Thread.sleep(20);  // a stream, not one burst: the kill lands mid-stream
                }
            }
            producer.flush();
        }
        long deadline = System.currentTimeMillis() + 90_000;
        while (!consumed.containsAll(acked) && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        stop.set(true);
        consumer.join(30_000);
        Set<Integer> inLog = readAll(bootstrap);
        List<Integer> lost = new ArrayList<>();
        for (int n : acked) {
            if (!inLog.contains(n)) {
                lost.add(n);
            }
        }
        out.put("killed", leader);
        out.put("acked", acked.size());
        out.put("producer_errors", errors.stream().distinct().limit(5).toList());
        out.put("lost", lost.size());
        out.put("consumed_of_acked", acked.stream().filter(consumed::contains).count());
        out.put("consumer_errors", consumerErrors.stream().distinct().limit(5).toList());
        return out;
    }

    /** The nodes were just started: until all three brokers registered, replication factor 3 is refused. */
    static void createWhenThreeBrokersAreUp(Admin admin, String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, 3, (short) 3)
                        .configs(Map.of("min.insync.replicas", "2")))).all().get();
                return;
            } catch (ExecutionException e) {
                boolean early = e.getCause() instanceof InvalidReplicationFactorException
                        || e.getCause() instanceof RetriableException;
                if (!early || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** The leader of the topic's partition 0, once every partition has a leader and a full ISR. */
    static int awaitLeader(Admin admin, String topic) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            TopicDescription d = null;
            try {
                d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) {  // not yet in this broker's metadata
                    throw e;
                }
            }
            if (d != null && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == 3)) {
                TopicPartitionInfo p0 = d.partitions().get(0);
                return p0.leader().id();
            }
            Scenarios.check(System.currentTimeMillis() < deadline, "no leaders with a full ISR: " + d);
            Thread.sleep(100);
        }
    }

    private static void consume(String bootstrap, Set<Integer> consumed, AtomicBoolean stop,
                                ConcurrentLinkedQueue<String> errors) {
        Properties config = Scenarios.consumerConfig(bootstrap, "jvm-cluster-group");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(TOPIC));
            while (!stop.get()) {
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        consumed.add(Integer.parseInt(r.key()));
                    }
                    consumer.commitSync(Duration.ofSeconds(10));
                } catch (Exception e) {
                    errors.add(Scenarios.describe(e));  // a commit across the failover; polling goes on
                }
            }
        }
    }

    private static Set<Integer> readAll(String bootstrap) {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Scenarios.consumerConfig(bootstrap, null))) {
            List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                tps.add(new org.apache.kafka.common.TopicPartition(TOPIC, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(tps);
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(Integer.parseInt(r.key()));
                }
                if (tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
                    break;
                }
            }
        }
        return seen;
    }
}
