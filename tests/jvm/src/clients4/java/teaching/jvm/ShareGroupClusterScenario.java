package teaching.jvm;

import java.io.BufferedReader;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka's KafkaShareConsumer as members of a share group on a three-node cluster, beside confluent-kafka's
 * (tests/cluster/test_share_groups_on_a_cluster.py, whose Python workers are tests/cluster/share_worker.py):
 * each member, on its own thread, works on each record for a while (workMs) and accepts it, but for the
 * poison one, which it releases every time, and writes what it sees to a journal as the Python workers do,
 * one JSON line each:
 * {@code {"c": member, "e": "poll" | "delivered" | "acked" | "ack-failed", "v", "p", "o", "n", "type", "t"}}.
 * "acked" comes from the AcknowledgementCommitCallback only: the broker confirmed it.
 * Runs until its standard input closes, then closes the members and prints one JSON object:
 * {@code java -cp <classes>:<kafka-clients 4> teaching.jvm.ShareGroupClusterScenario <bootstrap> <topic>
 * <group> <journal> <members> <workMs>}.
 */
public final class ShareGroupClusterScenario {
    static final String POISON = "poison";

    private ShareGroupClusterScenario() {
    }

    /** The journal all members write, a line at a time, flushed after each poll and each answer. */
    static final class Journal {
        private final PrintWriter out;

        Journal(String path) throws IOException {
            out = new PrintWriter(new FileWriter(path, StandardCharsets.UTF_8, true));
        }

        synchronized void write(String member, String event, Map<String, Object> fields) {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("c", member);
            line.put("e", event);
            line.putAll(fields);
            line.put("t", System.currentTimeMillis());
            out.println(Json.write(line));
        }

        synchronized void flush() {
            out.flush();
        }
    }

    /** One member: polls, acknowledges each record, journals what it got and what the broker answered. */
    static final class Member implements Runnable {
        final String name;
        final Journal journal;
        final long workMs;
        final KafkaShareConsumer<String, String> consumer;
        // "p:o" -> what was sent for it, oldest first: a record whose lock ran out may come back to this
        // member before the answer to its first acknowledgement; answers come in order.
        final Map<String, ArrayDeque<Map<String, Object>>> pending = new HashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<String> errors = new ArrayList<>();
        volatile String failure;

        Member(String bootstrap, String topic, String group, String name, Journal journal, long workMs) {
            this.name = name;
            this.journal = journal;
            this.workMs = workMs;
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", group);
            p.put("client.id", name);
            p.put("share.acknowledgement.mode", "explicit");
            consumer = new KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer());
            consumer.setAcknowledgementCommitCallback(this::onComplete);
            consumer.subscribe(List.of(topic));
        }

        /** Called on this member's thread, from poll, commitSync or close. */
        private void onComplete(Map<TopicIdPartition, Set<Long>> offsets, Exception exception) {
            offsets.forEach((tip, acknowledged) -> {
                for (long offset : acknowledged) {
                    String key = tip.partition() + ":" + offset;
                    ArrayDeque<Map<String, Object>> waiting = pending.get(key);
                    if (waiting == null) {
                        continue;
                    }
                    Map<String, Object> sent = waiting.pollFirst();
                    if (waiting.isEmpty()) {
                        pending.remove(key);
                    }
                    if (exception == null) {
                        journal.write(name, "acked", sent);
                    } else {
                        Map<String, Object> failed = new LinkedHashMap<>(sent);
                        failed.put("err", Scenarios.describe(exception));
                        journal.write(name, "ack-failed", failed);
                    }
                }
            });
            journal.flush();
        }

        @Override
        public void run() {
            try {
                while (!stop.get()) {
                    try {
                        journal.write(name, "poll", Map.of());  // the acknowledgements go with this poll
                        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                        records.forEach(this::delivered);
                        journal.flush();
                        Thread.sleep(workMs * records.count());  // the work the records are for
                        records.forEach(this::acknowledge);
                    } catch (KafkaException e) {  // the client says so; a share consumer carries on after it
                        if (errors.size() < 20) {
                            errors.add(Scenarios.describe(e));
                        }
                        journal.write(name, "error", Map.of("err", Scenarios.describe(e)));
                    }
                    journal.flush();
                }
            } catch (Exception e) {
                failure = Scenarios.describe(e);
            } finally {
                consumer.close();  // sends the last poll's acknowledgements; the callback hears the answers
                journal.write(name, "closed", Map.of());
                journal.flush();
            }
        }

        private static Map<String, Object> fields(ConsumerRecord<String, String> record) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("v", record.value());
            fields.put("p", record.partition());
            fields.put("o", record.offset());
            fields.put("n", (int) record.deliveryCount().orElse((short) 0));
            return fields;
        }

        private void delivered(ConsumerRecord<String, String> record) {
            journal.write(name, "delivered", fields(record));
        }

        private void acknowledge(ConsumerRecord<String, String> record) {
            Map<String, Object> fields = fields(record);
            boolean poison = POISON.equals(record.value());
            consumer.acknowledge(record, poison ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
            fields.put("type", poison ? "RELEASE" : "ACCEPT");
            String key = record.partition() + ":" + record.offset();
            pending.computeIfAbsent(key, k -> new ArrayDeque<>()).add(fields);
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        Journal journal = new Journal(args[3]);
        int count = Integer.parseInt(args[4]);
        long workMs = Long.parseLong(args[5]);
        List<Member> members = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        Map<String, Object> result = new LinkedHashMap<>();
        try {
            for (int i = 1; i <= count; i++) {
                Member m = new Member(bootstrap, topic, group, "java-" + i, journal, workMs);
                members.add(m);
                Thread t = new Thread(m, "share-member-" + m.name);
                t.start();
                threads.add(t);
            }
            System.out.println("STARTED " + count);
            System.out.flush();
            BufferedReader stdin =
                    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (stdin.readLine() != null) {
                // until the test closes it
            }
        } catch (Throwable e) {
            result.put("error", Scenarios.describe(e));
        } finally {
            members.forEach(m -> m.stop.set(true));
            for (Thread t : threads) {
                t.join(60_000);
            }
        }
        for (Member m : members) {
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("errors", m.errors);
            summary.put("failure", m.failure);
            summary.put("unanswered", m.pending.size());
            result.put(m.name, summary);
        }
        System.out.println(Json.write(result));
        System.out.flush();
        System.exit(0);
    }
}
