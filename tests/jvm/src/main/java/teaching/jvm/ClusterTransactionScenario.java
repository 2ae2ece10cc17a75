package teaching.jvm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The read-process-write loop of TransactionScenario on three nodes, with the leader of the output
 * topic's partition 0 killed (SIGKILL, by pytest: see ClusterScenario) after a third of the input is
 * processed. An abortable error aborts and rewinds to the committed offsets, as an application would;
 * a read_committed reader must then see each input exactly once.
 */
final class ClusterTransactionScenario {
    static final String INPUT = "jvm-cluster-txn-in";
    static final String OUTPUT = "jvm-cluster-txn-out";
    static final int INPUTS = 300;

    private ClusterTransactionScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        int victim;
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            ClusterScenario.createWhenThreeBrokersAreUp(admin, INPUT);
            ClusterScenario.createWhenThreeBrokersAreUp(admin, OUTPUT);
            ClusterScenario.awaitLeader(admin, INPUT);
            victim = ClusterScenario.awaitLeader(admin, OUTPUT);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            for (int i = 0; i < INPUTS; i++) {
                producer.send(new ProducerRecord<>(INPUT, "k" + i, "in-" + i));
            }
            producer.flush();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("killed", victim);
        out.putAll(processLoop(bootstrap, victim));
        out.put("read_committed", TransactionScenario.readAll(bootstrap, OUTPUT, INPUTS, "read_committed"));
        return out;
    }

    private static Map<String, Object> processLoop(String bootstrap, int victim) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        Properties pc = Scenarios.producerConfig(bootstrap);
        pc.put("transactional.id", "jvm-cluster-processor");
        Properties cc = Scenarios.consumerConfig(bootstrap, "jvm-cluster-txn-app");
        cc.put("isolation.level", "read_committed");
        cc.put("max.poll.records", "25");
        int committed = 0;
        int aborted = 0;
        int processed = 0;
        boolean killed = false;
        List<String> errors = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pc);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cc)) {
            producer.initTransactions();
            consumer.subscribe(List.of(INPUT));
            long deadline = System.currentTimeMillis() + 180_000;
            while (processed < INPUTS && System.currentTimeMillis() < deadline) {
                if (!killed && processed >= INPUTS / 3) {
                    System.out.println("KILL " + victim);
                    System.out.flush();
                    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                    killed = true;
                }
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                try {
                    producer.beginTransaction();
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    for (ConsumerRecord<String, String> r : records) {
                        producer.send(new ProducerRecord<>(OUTPUT, r.key(), r.value().replace("in-", "out-")));
                        offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                    commit(producer);
                    committed++;
                    processed += records.count();
                } catch (ProducerFencedException e) {
                    throw e;
                } catch (KafkaException e) {
                    errors.add(Scenarios.describe(e));
                    producer.abortTransaction();
                    aborted++;
                    rewind(consumer);
                }
            }
        }
        out.put("committed_transactions", committed);
        out.put("aborted_transactions", aborted);
        out.put("processed", processed);
        out.put("errors", errors.stream().distinct().limit(5).toList());
        return out;
    }

    /** commitTransaction may time out while the coordinator or a leader moves: calling it again resumes it. */
    private static void commit(KafkaProducer<String, String> producer) {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static void rewind(KafkaConsumer<String, String> consumer) {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
        for (TopicPartition tp : consumer.assignment()) {
            OffsetAndMetadata c = committed.get(tp);
            if (c != null) {
                consumer.seek(tp, c.offset());
            } else {
                consumer.seekToBeginning(List.of(tp));
            }
        }
    }
}
