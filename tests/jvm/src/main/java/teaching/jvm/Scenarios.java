package teaching.jvm;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What every scenario shares: client configs with Java defaults, topic creation, error text. */
final class Scenarios {
    private Scenarios() {
    }

    static Properties producerConfig(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        return p;
    }

    static Properties consumerConfig(String bootstrap, String groupId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        if (groupId != null) {
            p.put("group.id", groupId);
            p.put("group.protocol", "classic");
            // Members learn of a rebalance from their heartbeat: 3 s apart by default, 0.5 s here.
            p.put("heartbeat.interval.ms", "500");
        }
        return p;
    }

    static Properties adminConfig(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    static void createTopic(Admin admin, String name, int partitions) throws Exception {
        try {
            admin.createTopics(java.util.List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** The exception's class and message (the cause's, for an ExecutionException), one line. */
    static String describe(Throwable e) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String text = t.getClass().getSimpleName() + ": " + t.getMessage();
        if (t instanceof RuntimeException && !(t instanceof org.apache.kafka.common.KafkaException)) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            text += " " + trace.toString().lines().skip(1).limit(4).map(String::strip).toList();
        }
        return text;
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
