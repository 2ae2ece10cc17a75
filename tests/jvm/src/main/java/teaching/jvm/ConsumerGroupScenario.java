package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Three KafkaConsumers in one group (classic protocol), once with the range assignor and once with
 * cooperative-sticky: every record consumed once, commits, a member leaving and the rebalance that
 * follows, then seek, offsetsForTimes, endOffsets and pause/resume on a survivor.
 * The members are polled in turn from this one thread, as Kafka's own integration tests do.
 */
final class ConsumerGroupScenario {
    static final String TOPIC = "jvm-group";
    static final int PARTITIONS = 6;
    static final int RECORDS_PER_PARTITION = 10;
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    private ConsumerGroupScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            Scenarios.createTopic(admin, TOPIC, PARTITIONS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    // Timestamps one second apart per offset: offsetsForTimes has something to find.
                    producer.send(new ProducerRecord<>(TOPIC, p, BASE_TIMESTAMP + i * 1000L, "k" + i, "p" + p + "-" + i));
                }
            }
            producer.flush();
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("range", runGroup(bootstrap, "jvm-group-range",
                "org.apache.kafka.clients.consumer.RangeAssignor"));
        result.put("cooperative-sticky", runGroup(bootstrap, "jvm-group-coop",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"));
        return result;
    }

    private static Map<String, Object> runGroup(String bootstrap, String groupId, String assignor) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<KafkaConsumer<String, String>> members = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        try {
            for (int m = 0; m < 3; m++) {
                Properties config = Scenarios.consumerConfig(bootstrap, groupId);
                config.put("partition.assignment.strategy", assignor);
                config.put("client.id", groupId + "-" + m);
                KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
                consumer.subscribe(List.of(TOPIC));
                members.add(consumer);
            }
            int total = PARTITIONS * RECORDS_PER_PARTITION;
            pollUntil(members, seen, () -> seen.size() == total && assignedCount(members) == PARTITIONS
                    && members.stream().allMatch(c -> !c.assignment().isEmpty()), 60_000);
            out.put("assignment_before", assignments(members));
            out.put("consumed", seen.size());
            out.put("duplicates", seen.values().stream().filter(n -> n > 1).count());
            for (KafkaConsumer<String, String> c : members) {
                c.commitSync();
            }
            KafkaConsumer<String, String> leaving = members.remove(2);
            leaving.close();
            pollUntil(members, seen, () -> assignedCount(members) == PARTITIONS, 60_000);
            out.put("assignment_after_leave", assignments(members));
            KafkaConsumer<String, String> first = members.get(0);
            Set<TopicPartition> all = allPartitions();
            Map<TopicPartition, OffsetAndMetadata> committed = first.committed(all);
            out.put("committed", committed.values().stream().mapToLong(o -> o == null ? -1 : o.offset()).sum());
            out.putAll(positionApis(first, members));
        } catch (Exception e) {
            out.put("error", Scenarios.describe(e));
        } finally {
            for (KafkaConsumer<String, String> c : members) {
                c.close(Duration.ofSeconds(5));
            }
        }
        return out;
    }

    /** seek, offsetsForTimes, endOffsets and pause/resume on one member's assignment. */
    private static Map<String, Object> positionApis(KafkaConsumer<String, String> consumer,
                                                    List<KafkaConsumer<String, String>> members) {
        Map<String, Object> out = new LinkedHashMap<>();
        TopicPartition tp = consumer.assignment().iterator().next();
        Map<TopicPartition, Long> end = consumer.endOffsets(List.of(tp));
        out.put("end_offset", end.get(tp));
        Map<TopicPartition, OffsetAndTimestamp> byTime = consumer.offsetsForTimes(Map.of(tp, BASE_TIMESTAMP + 4500L));
        OffsetAndTimestamp found = byTime.get(tp);
        out.put("offset_for_time", found == null ? null : found.offset());
        out.put("offset_for_time_timestamp", found == null ? null : found.timestamp());
        Map<TopicPartition, OffsetAndTimestamp> future = consumer.offsetsForTimes(Map.of(tp, BASE_TIMESTAMP + 1_000_000L));
        out.put("offset_for_future_time", future.get(tp) == null ? null : future.get(tp).offset());

        consumer.seek(tp, 7);
        List<Long> afterSeek = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 15_000;
        while (afterSeek.isEmpty() && System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
                afterSeek.add(r.offset());
            }
            pollOthers(members, consumer);
        }
        out.put("offsets_after_seek", afterSeek);

        consumer.seek(tp, 0);
        consumer.pause(List.of(tp));
        int whilePaused = 0;
        for (int i = 0; i < 3; i++) {
            whilePaused += consumer.poll(Duration.ofMillis(200)).records(tp).size();
            pollOthers(members, consumer);
        }
        out.put("paused", consumer.paused().contains(tp));
        out.put("records_while_paused", whilePaused);
        consumer.resume(List.of(tp));
        int afterResume = 0;
        deadline = System.currentTimeMillis() + 15_000;
        while (afterResume < RECORDS_PER_PARTITION && System.currentTimeMillis() < deadline) {
            afterResume += consumer.poll(Duration.ofMillis(200)).records(tp).size();
            pollOthers(members, consumer);
        }
        out.put("records_after_resume", afterResume);
        return out;
    }

    private static void pollOthers(List<KafkaConsumer<String, String>> members, KafkaConsumer<String, String> except) {
        for (KafkaConsumer<String, String> c : members) {
            if (c != except) {
                c.poll(Duration.ofMillis(10));
            }
        }
    }

    private static void pollUntil(List<KafkaConsumer<String, String>> members, Map<String, Integer> seen,
                                  BooleanSupplier done, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!done.getAsBoolean()) {
            Scenarios.check(System.currentTimeMillis() < deadline, "timed out: assignment " + assignments(members)
                    + ", consumed " + seen.size());
            for (KafkaConsumer<String, String> c : members) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> r : records) {
                    seen.merge(r.partition() + "@" + r.offset(), 1, Integer::sum);
                }
            }
        }
    }

    private static int assignedCount(List<KafkaConsumer<String, String>> members) {
        Set<TopicPartition> union = new HashSet<>();
        int sum = 0;
        for (KafkaConsumer<String, String> c : members) {
            union.addAll(c.assignment());
            sum += c.assignment().size();
        }
        return sum == union.size() ? union.size() : -1;  // -1 while two members own one partition
    }

    private static List<List<Integer>> assignments(List<KafkaConsumer<String, String>> members) {
        List<List<Integer>> out = new ArrayList<>();
        for (KafkaConsumer<String, String> c : members) {
            TreeSet<Integer> ps = new TreeSet<>();
            c.assignment().forEach(tp -> ps.add(tp.partition()));
            out.add(new ArrayList<>(ps));
        }
        return out;
    }

    private static Set<TopicPartition> allPartitions() {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(TOPIC, p));
        }
        return all;
    }
}
