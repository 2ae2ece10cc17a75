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

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The transactional read-process-write copy of issue 38 with Apache Kafka's client, for
 * tests/jvm/test_java_exactly_once_coordinator_failover.py, which kills the group coordinator's node
 * under it: {@code java teaching.jvm.CoordinatorFailoverCopy <bootstrap> <group.protocol> <input>
 * <output> <group> <transactional.id>}.
 *
 * <p>A read_committed KafkaConsumer (group.protocol classic or consumer) and a transactional
 * KafkaProducer: each poll's records go to the same partition of the output, and the next offsets go
 * with them through sendOffsetsToTransaction(offsets, consumer.groupMetadata()). An error aborts the
 * transaction (or, when it cannot be aborted or the producer is fenced, replaces the producer with one
 * of the same transactional.id, whose initTransactions ends the old one's transaction) and rewinds to the
 * group's committed offsets; no transaction begins until that rewind has succeeded. Copies until the
 * offsets it committed are the input's end offsets (the input is written before it starts).
 *
 * <p>Lines on stdout: {@code COPIED <n>} after each commit; {@code PAUSED} once two thirds are copied,
 * then it waits for a line on stdin (the test restarts the killed node meanwhile); at the end one JSON
 * object with the counts and the first distinct errors.
 */
public final class CoordinatorFailoverCopy {
    private CoordinatorFailoverCopy() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String protocol = args[1];
        String input = args[2];
        String output = args[3];
        String group = args[4];
        String transactionalId = args[5];

        Properties cc = Scenarios.consumerConfig(bootstrap, null);
        cc.put("group.id", group);
        cc.put("group.protocol", protocol);
        cc.put("isolation.level", "read_committed");
        cc.put("max.poll.records", "1000");
        if (protocol.equals("classic")) {
            cc.put("session.timeout.ms", "10000");
            cc.put("heartbeat.interval.ms", "1000");
        }
        Properties pc = Scenarios.producerConfig(bootstrap);
        pc.put("transactional.id", transactionalId);
        pc.put("transaction.timeout.ms", "60000");
        pc.put("max.block.ms", "30000");
        pc.put("linger.ms", "5");

        int committed = 0;
        int aborted = 0;
        int replaced = 0;
        long copied = 0;
        List<String> errors = new ArrayList<>();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cc)) {
            Map<TopicPartition, Long> ends = new HashMap<>();
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(input)) {
                partitions.add(new TopicPartition(input, p.partition()));
            }
            ends.putAll(consumer.endOffsets(partitions));
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            Map<TopicPartition, Long> done = new HashMap<>();
            consumer.subscribe(List.of(input));
            KafkaProducer<String, String> producer = newProducer(pc);
            boolean rewind = false;
            boolean paused = false;
            try {
                while (!finished(done, ends)) {
                    if (!paused && copied >= 2 * total / 3) {
                        System.out.println("PAUSED");
                        System.out.flush();
                        stdin.readLine();
                        paused = true;
                    }
                    try {
                        if (producer == null) {
                            producer = newProducer(pc);
                        }
                        if (rewind) {
                            rewind(consumer);  // throws, and so rewind stays set, if it cannot
                            rewind = false;
                        }
                        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                        if (records.isEmpty()) {
                            continue;
                        }
                        producer.beginTransaction();
                        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                        for (ConsumerRecord<String, String> r : records) {
                            producer.send(new ProducerRecord<>(output, r.partition(), r.key(), r.value()));
                            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                        }
                        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                        producer.commitTransaction();
                        committed++;
                        copied += records.count();
                        offsets.forEach((tp, o) -> done.put(tp, o.offset()));
                        System.out.println("COPIED " + copied);
                        System.out.flush();
                    } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException
                             | UnsupportedVersionException e) {
                        errors.add(Scenarios.describe(e));
                        close(producer);
                        producer = null;
                        replaced++;
                        rewind = true;
                    } catch (KafkaException e) {
                        errors.add(Scenarios.describe(e));
                        rewind = true;
                        if (producer != null) {
                            try {
                                producer.abortTransaction();
                                aborted++;
                            } catch (KafkaException abortFailed) {
                                errors.add("abort: " + Scenarios.describe(abortFailed));
                                close(producer);
                                producer = null;
                                replaced++;
                            }
                        }
                    }
                }
            } finally {
                close(producer);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("copied", copied);
        out.put("committed_transactions", committed);
        out.put("aborted_transactions", aborted);
        out.put("producers_replaced", replaced);
        out.put("errors", errors.stream().distinct().limit(8).toList());
        System.out.println(Json.write(out));
        System.out.flush();
        System.exit(0);  // client threads that outlive close() must not keep the JVM alive
    }

    /** A new transactional producer; initTransactions fences any older one with the same id. */
    private static KafkaProducer<String, String> newProducer(Properties pc) {
        KafkaProducer<String, String> producer = new KafkaProducer<>(pc);
        try {
            producer.initTransactions();
            return producer;
        } catch (KafkaException e) {
            close(producer);
            throw e;
        }
    }

    private static void close(KafkaProducer<String, String> producer) {
        if (producer != null) {
            try {
                producer.close(Duration.ofSeconds(5));
            } catch (KafkaException e) {
                // closing a broken producer: nothing left to save
            }
        }
    }

    private static boolean finished(Map<TopicPartition, Long> done, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (done.getOrDefault(end.getKey(), 0L) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Every assigned partition back to the group's committed offset, its beginning if none. */
    private static void rewind(KafkaConsumer<String, String> consumer) {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment(), Duration.ofSeconds(30));
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
