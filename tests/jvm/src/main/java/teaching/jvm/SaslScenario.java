package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Java client over SASL (issue 29): {@code java teaching.jvm.SaslScenario <bootstrap> <protocol> <mechanism>
 * <user> <password> <topic>} produces 20 records, reads them back, describes the user's SCRAM credentials and
 * tries a wrong password; prints one JSON object.
 */
public final class SaslScenario {
    private SaslScenario() {
    }

    static Properties props(String bootstrap, String protocol, String mechanism, String user, String password) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("security.protocol", protocol);
        p.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        return p;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], protocol = args[1], mechanism = args[2], user = args[3], password = args[4];
        String topic = args[5];
        Map<String, Object> result = new LinkedHashMap<>();
        Properties producerProps = props(bootstrap, protocol, mechanism, user, password);
        producerProps.put("key.serializer", StringSerializer.class.getName());
        producerProps.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
            }
        }
        Properties consumerProps = props(bootstrap, protocol, mechanism, user, password);
        consumerProps.put("group.id", topic);
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("key.deserializer", StringDeserializer.class.getName());
        consumerProps.put("value.deserializer", StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (values.size() < 20 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        result.put("consumed", values);
        try (Admin admin = Admin.create(props(bootstrap, protocol, mechanism, user, password))) {
            Map<String, UserScramCredentialsDescription> described =
                    admin.describeUserScramCredentials(List.of(user)).all().get();
            List<String> infos = new ArrayList<>();
            for (ScramCredentialInfo info : described.get(user).credentialInfos()) {
                infos.add(info.mechanism() + ":" + info.iterations());
            }
            result.put("credentials", infos);
        }
        Properties wrong = props(bootstrap, protocol, mechanism, user, password + "-wrong");
        try (Admin admin = Admin.create(wrong)) {
            admin.describeCluster().nodes().get();
            result.put("wrong_password", "accepted");
        } catch (ExecutionException e) {
            result.put("wrong_password", e.getCause() instanceof SaslAuthenticationException
                    ? "SaslAuthenticationException: " + e.getCause().getMessage() : e.getCause().toString());
        }
        System.out.println(Json.write(result));
        System.out.flush();
        System.exit(0);
    }
}
