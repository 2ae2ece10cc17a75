package teaching.jvm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A dynamic broker config seen by a running client (KIP-226): one producer sends a 10 kB record, the
 * cluster-wide message.max.bytes is lowered to 5000 with IncrementalAlterConfigs (no restart), the same
 * producer's next 10 kB record is refused by the broker (RecordTooLargeException: MESSAGE_TOO_LARGE), and
 * once the config is deleted again the record goes through.
 */
final class DynamicConfigScenario {
    private DynamicConfigScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        String topic = "dynamic-message-max-bytes";
        String record = "x".repeat(10_000);
        ConfigResource cluster = new ConfigResource(ConfigResource.Type.BROKER, "");
        Map<String, Object> result = new LinkedHashMap<>();
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Scenarios.producerConfig(bootstrap))) {
            Scenarios.createTopic(admin, topic, 1);
            result.put("before", send(producer, topic, record));
            alter(admin, cluster, new AlterConfigOp(new ConfigEntry("message.max.bytes", "5000"),
                                                    AlterConfigOp.OpType.SET));
            result.put("lowered", send(producer, topic, record));
            alter(admin, cluster, new AlterConfigOp(new ConfigEntry("message.max.bytes", ""),
                                                    AlterConfigOp.OpType.DELETE));
            result.put("restored", send(producer, topic, record));
        }
        return result;
    }

    private static void alter(Admin admin, ConfigResource resource, AlterConfigOp op) throws Exception {
        admin.incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get();
    }

    private static String send(KafkaProducer<String, String> producer, String topic, String value) {
        try {
            producer.send(new ProducerRecord<>(topic, value)).get();
            return "ok";
        } catch (Exception e) {
            return Scenarios.describe(e);
        }
    }
}
