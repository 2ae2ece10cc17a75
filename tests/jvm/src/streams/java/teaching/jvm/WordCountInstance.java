package teaching.jvm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * One instance of a Kafka Streams 4.4 word count that joins its group with the streams group protocol
 * (KIP-1071, {@code group.protocol=streams}): the broker's group coordinator keeps the topology, creates the
 * internal topics (a repartition topic and the count store's changelog) and assigns the tasks. Exactly once
 * (transactions), two stream threads, so two members of the group share one process id.
 *
 * <p>{@code java -cp <classes>:<kafka-streams 4.4> teaching.jvm.WordCountInstance <bootstrap> <application id>
 * <state dir> <input topic> <output topic> [<group protocol>]}, the protocol {@code streams} unless given
 * ({@code classic}: the consumer group protocol with Streams' own partition assignor). Prints {@code STATE
 * <state>} at each change of the application's state and {@code ERROR <exception>} when a stream thread dies
 * (the whole client then shuts down, to ERROR); closes when its standard input ends (or reads a line), then
 * prints {@code CLOSED}.
 */
public final class WordCountInstance {
    private WordCountInstance() {
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, args.length > 5 ? args[5] : "streams");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(args[3])
            .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((key, word) -> !word.isEmpty())
            .groupBy((key, word) -> word)
            .count(Materialized.as("word-counts"))
            .toStream()
            .to(args[4], Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setStateListener((now, before) -> say("STATE " + now));
        streams.setUncaughtExceptionHandler(e -> {
            say("ERROR " + e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                .SHUTDOWN_CLIENT;
        });
        streams.start();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        streams.close(Duration.ofSeconds(60));
        say("CLOSED");
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
