package teaching.jvm;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.utils.Utils;

/**
 * KafkaProducer with the Java defaults (enable.idempotence=true, acks=all), once per compression type:
 * keyed records through the default partitioner, a header each, a callback each; then every record is
 * consumed back and compared (partition, offset, key, value, header).
 */
final class ProducerScenario {
    static final String TOPIC = "jvm-producer";
    static final int PARTITIONS = 3;
    static final int RECORDS_PER_CODEC = 50;
    static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    private ProducerScenario() {
    }

    record Sent(String key, String value, int partition, long offset) {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            Scenarios.createTopic(admin, TOPIC, PARTITIONS);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        Map<String, Object> perCodec = new LinkedHashMap<>();
        Map<String, Sent> acked = new HashMap<>();
        int partitionerMismatches = 0;
        for (String codec : CODECS) {
            Properties config = Scenarios.producerConfig(bootstrap);
            config.put("compression.type", codec);
            ConcurrentLinkedQueue<Sent> done = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
            AtomicInteger callbacks = new AtomicInteger();
            Map<String, Object> producerConfigs = new LinkedHashMap<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int i = 0; i < RECORDS_PER_CODEC; i++) {
                    String key = codec + "-key-" + i;
                    String value = codec + "-value-" + i + "-" + "x".repeat(i * 7);
                    ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, key, value);
                    record.headers().add("codec", codec.getBytes(StandardCharsets.UTF_8));
                    record.headers().add("index", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                    producer.send(record, (metadata, exception) -> {
                        callbacks.incrementAndGet();
                        if (exception != null) {
                            errors.add(Scenarios.describe(exception));
                        } else {
                            done.add(new Sent(key, value, metadata.partition(), metadata.offset()));
                        }
                    });
                }
                producer.flush();
            }
            for (Sent s : done) {
                acked.put(s.key, s);
                int expected = Utils.toPositive(Utils.murmur2(s.key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
                if (expected != s.partition) {
                    partitionerMismatches++;
                }
            }
            producerConfigs.put("callbacks", callbacks.get());
            producerConfigs.put("acked", done.size());
            producerConfigs.put("errors", new ArrayList<>(errors));
            perCodec.put(codec, producerConfigs);
        }
        result.put("codecs", perCodec);
        result.put("partitioner_mismatches", partitionerMismatches);
        result.putAll(consumeBack(bootstrap, acked));
        return result;
    }

    /** Reads the topic from the start and checks each acknowledged record is where its callback said. */
    private static Map<String, Object> consumeBack(String bootstrap, Map<String, Sent> acked) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<String> mismatches = new ArrayList<>();
        int consumed = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Scenarios.consumerConfig(bootstrap, null))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            long deadline = System.currentTimeMillis() + 30_000;
            while (consumed < total && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    consumed++;
                    Sent s = acked.get(r.key());
                    String codec = r.key().substring(0, r.key().indexOf("-key-"));
                    Header header = r.headers().lastHeader("codec");
                    if (s == null || !s.value.equals(r.value()) || s.partition != r.partition() || s.offset != r.offset()
                            || header == null || !codec.equals(new String(header.value(), StandardCharsets.UTF_8))) {
                        mismatches.add(r.topic() + "-" + r.partition() + "@" + r.offset() + " key " + r.key());
                    }
                }
            }
            out.put("end_offsets_total", total);
        }
        out.put("consumed", consumed);
        out.put("mismatches", mismatches);
        return out;
    }
}
