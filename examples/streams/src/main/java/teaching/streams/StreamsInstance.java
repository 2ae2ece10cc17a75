package teaching.streams;

import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * Runs one instance of an application until it is stopped, and prints on stdout what a student wants to
 * see: the instance's state (CREATED, REBALANCING, RUNNING, ...), the tasks it runs and those it keeps as
 * standbys, and each state store it restores from a changelog topic, with the number of records.
 * Kafka's own log lines (warnings and errors only: simplelogger.properties) go to stderr.
 */
final class StreamsInstance {
    private StreamsInstance() {
    }

    static void run(Topology topology, Properties props) {
        KafkaStreams streams = new KafkaStreams(topology, props);
        CountDownLatch stopped = new CountDownLatch(1);

        streams.setStateListener((newState, oldState) -> {
            boolean running = newState == KafkaStreams.State.RUNNING;
            say("state " + oldState + " -> " + newState + (running ? tasks(streams) : ""));
            if (newState == KafkaStreams.State.NOT_RUNNING || newState == KafkaStreams.State.ERROR) {
                stopped.countDown();
            }
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition changelog, String store, long from, long to) {
                say("restoring store " + store + " from " + changelog + ", offsets " + from + " to " + to);
            }

            @Override
            public void onBatchRestored(TopicPartition changelog, String store, long batchEnd, long records) {
            }

            @Override
            public void onRestoreEnd(TopicPartition changelog, String store, long records) {
                say("restored store " + store + " from " + changelog + ": " + records + " records");
            }
        });
        // An error Streams cannot handle itself: say so and stop this instance (the other takes its tasks).
        streams.setUncaughtExceptionHandler(exception -> {
            say("stopping after an unexpected error: " + exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        // Ctrl-C or kill (SIGTERM): close cleanly, committing what was processed and leaving the group.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(30));
            stopped.countDown();
        }));

        streams.start();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        streams.close(Duration.ofSeconds(30));
        System.exit(streams.state() == KafkaStreams.State.ERROR ? 1 : 0);
    }

    /** "; active tasks [0_0, 1_1]; standby tasks [1_0]": a task id is sub-topology_partition. */
    private static String tasks(KafkaStreams streams) {
        Set<String> active = new TreeSet<>();
        Set<String> standby = new TreeSet<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            thread.activeTasks().forEach(task -> active.add(task.taskId().toString()));
            thread.standbyTasks().forEach(task -> standby.add(task.taskId().toString()));
        }
        return "; active tasks " + active + "; standby tasks " + standby;
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
