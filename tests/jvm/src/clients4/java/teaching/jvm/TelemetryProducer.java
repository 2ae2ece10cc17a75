package teaching.jvm;

import java.util.Properties;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A Java producer that sends to a topic for a while with client metrics on (enable.metrics.push, the
 * default): a broker whose client-metrics subscription matches it gets its metrics pushed (KIP-714).
 * Arguments: bootstrap, topic, client id, seconds. Prints its client instance id once it has one.
 */
public class TelemetryProducer {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, args[2]);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        long until = System.currentTimeMillis() + Long.parseLong(args[3]) * 1000;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            int n = 0;
            while (System.currentTimeMillis() < until) {
                producer.send(new ProducerRecord<>(args[1], "k" + n, "v" + n)).get();
                n++;
                if (n == 1) {
                    System.out.println("client_instance_id=" + producer.clientInstanceId(java.time.Duration.ofSeconds(10)));
                    System.out.flush();
                }
                Thread.sleep(20);
            }
            System.out.println("sent=" + n);
        }
    }
}
