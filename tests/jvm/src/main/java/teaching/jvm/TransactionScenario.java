package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A transactional read-process-write loop: read_committed consumer in a group, each polled batch written
 * to the output topic with its offsets in the same transaction (sendOffsetsToTransaction). Every third
 * batch is aborted once and replayed from the committed offsets, as an application that failed would.
 * A read_committed reader of the output must then see each input exactly once.
 *
 * <p>Run with the consumer's {@code group.protocol}: classic, or consumer (KIP-848), whose
 * sendOffsetsToTransaction carries the member id and member epoch the group's heartbeat returned; each
 * protocol with topics, group and transactional id of its own.
 */
final class TransactionScenario {
    static final String INPUT = "jvm-txn-in";
    static final String OUTPUT = "jvm-txn-out";
    static final String GROUP = "jvm-txn-app";
    static final int PARTITIONS = 3;
    static final int INPUTS = 90;

    private TransactionScenario() {
    }

    static Map<String, Object> run(String bootstrap, String groupProtocol) throws Exception {
        String suffix = groupProtocol.equals("classic") ? "" : "-" + groupProtocol;
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            Scenarios.createTopic(admin, INPUT + suffix, PARTITIONS);
            Scenarios.createTopic(admin, OUTPUT + suffix, PARTITIONS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            for (int i = 0; i < INPUTS; i++) {
                producer.send(new ProducerRecord<>(INPUT + suffix, "k" + i, "in-" + i));
            }
            producer.flush();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.putAll(processLoop(bootstrap, groupProtocol, suffix));
        out.put("read_committed", readAll(bootstrap, OUTPUT + suffix, INPUTS, "read_committed"));
        out.put("read_uncommitted", readAll(bootstrap, OUTPUT + suffix, INPUTS, "read_uncommitted"));
        return out;
    }

    private static Map<String, Object> processLoop(String bootstrap, String groupProtocol, String suffix) {
        Map<String, Object> out = new LinkedHashMap<>();
        Properties pc = Scenarios.producerConfig(bootstrap);
        pc.put("transactional.id", "jvm-txn-processor" + suffix);
        Properties cc = Scenarios.consumerConfig(bootstrap, GROUP + suffix);
        if (!groupProtocol.equals("classic")) {
            cc.put("group.protocol", groupProtocol);
            cc.remove("heartbeat.interval.ms");  // the broker's to choose in KIP-848's protocol
        }
        cc.put("isolation.level", "read_committed");
        cc.put("max.poll.records", "20");
        int committedTxns = 0;
        int abortedTxns = 0;
        int processed = 0;
        String transactionalId = pc.getProperty("transactional.id");
        List<Integer> epochs = new ArrayList<>();  // the coordinator's epoch after each commit or abort
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pc);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cc);
             Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            producer.initTransactions();
            consumer.subscribe(List.of(INPUT + suffix));
            long deadline = System.currentTimeMillis() + 60_000;
            int batch = 0;
            while (processed < INPUTS && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                batch++;
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    producer.send(new ProducerRecord<>(OUTPUT + suffix, r.key(), r.value().replace("in-", "out-")));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                if (batch % 3 == 0) {
                    // The application "fails" this batch after its records reached the log (flush): abort,
                    // and rewind to what the group committed.
                    producer.flush();
                    producer.abortTransaction();
                    abortedTxns++;
                    epochs.add(describedEpoch(admin, transactionalId));
                    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
                    for (TopicPartition tp : consumer.assignment()) {
                        OffsetAndMetadata c = committed.get(tp);
                        if (c != null) {
                            consumer.seek(tp, c.offset());
                        } else {
                            consumer.seekToBeginning(List.of(tp));
                        }
                    }
                    batch++;  // the replay of this batch commits
                } else {
                    producer.commitTransaction();
                    committedTxns++;
                    epochs.add(describedEpoch(admin, transactionalId));
                    processed += records.count();
                }
            }
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
            out.put("group_committed_total", committed.values().stream().mapToLong(o -> o == null ? 0 : o.offset()).sum());
        } catch (Exception e) {
            out.put("error", Scenarios.describe(e));
        }
        out.put("committed_transactions", committedTxns);
        out.put("aborted_transactions", abortedTxns);
        out.put("processed", processed);
        out.put("epochs_after_end", epochs);
        return out;
    }

    /** DescribeTransactions' producer epoch (kafka-transactions describe's ProducerEpoch column). */
    private static int describedEpoch(Admin admin, String transactionalId) throws Exception {
        return admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get().producerEpoch();
    }

    /** A topic of PARTITIONS partitions from the start to its end, as counts per value: {"distinct", "duplicates", "missing"}. */
    static Map<String, Object> readAll(String bootstrap, String topic, int inputs, String isolation) {
        Properties cc = Scenarios.consumerConfig(bootstrap, null);
        cc.put("isolation.level", isolation);
        Map<String, Integer> counts = new HashMap<>();
        Map<String, Object> out = new LinkedHashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cc)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    counts.merge(r.value(), 1, Integer::sum);
                }
                boolean atEnd = true;
                for (TopicPartition tp : tps) {
                    atEnd &= consumer.position(tp) >= end.get(tp);
                }
                if (atEnd) {
                    break;
                }
            }
            out.put("end_offsets_total", end.values().stream().mapToLong(Long::longValue).sum());
        }
        int missing = 0;
        for (int i = 0; i < inputs; i++) {
            if (!counts.containsKey("out-" + i)) {
                missing++;
            }
        }
        out.put("records", counts.values().stream().mapToInt(Integer::intValue).sum());
        out.put("distinct", counts.size());
        out.put("duplicates", counts.values().stream().filter(n -> n > 1).count());
        out.put("missing", missing);
        return out;
    }
}
