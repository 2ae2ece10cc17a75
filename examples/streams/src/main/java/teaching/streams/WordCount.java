package teaching.streams;

import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Word count: how often each word has appeared in the lines written to the topic "sentences".
 *
 * <pre>
 *   sentences --flatMapValues--> words --groupBy(word)--> wordcount-words-repartition --count--> word-counts
 *                                                                            |
 *                                                      state store "counts" (RocksDB), changelog topic
 *                                                      wordcount-counts-changelog
 * </pre>
 *
 * The lines arrive keyed by whatever the producer chose. Counting needs every occurrence of a word in one
 * place, so groupBy writes each word to a repartition topic keyed by the word itself, and the counting
 * reads it back from there. The counts live in a state store on local disk; every change to it is also
 * written to a compacted changelog topic, from which an instance that starts again, or takes over
 * another's work, rebuilds the store.
 *
 * With processing.guarantee=exactly_once_v2 each commit is one Kafka transaction: the output records, the
 * changelog records, the repartition records and the input offsets are all written, or none of them.
 *
 * <p>Run one instance: {@code java -cp target/streams-examples-1.0.jar teaching.streams.WordCount
 * <bootstrap servers> <state dir>}. Start a second one with another state directory and the two share the
 * partitions between them.
 */
public final class WordCount {
    static final String APPLICATION_ID = "wordcount";
    static final String INPUT_TOPIC = "sentences";     // key: anything, value: a line of text
    static final String OUTPUT_TOPIC = "word-counts";  // key: a word, value: its count so far (a long)
    static final String STORE = "counts";

    private WordCount() {
    }

    /** The processing as a graph of operators, which Kafka Streams runs as tasks, one per partition. */
    static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> sentences =
            builder.stream(INPUT_TOPIC, Consumed.with(Serdes.String(), Serdes.String()));
        sentences
            // one line in, its words out (the key stays what it was)
            .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((key, word) -> !word.isEmpty())
            // the word becomes the key: Streams writes each record to the topic "wordcount-words-repartition"
            // and reads it back, so that all occurrences of a word meet in one partition, in one task
            .groupBy((key, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
            // the count of each word, in the store "counts" and its changelog "wordcount-counts-changelog"
            .count(Materialized.as(STORE))
            // each new count of a word goes on as (word, count)
            .toStream()
            .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: WordCount <bootstrap servers> <state dir>");
            System.exit(2);
        }
        Properties props = new Properties();
        // the application's name: its consumer group, its transactional ids, its internal topics' prefix
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        // where this instance keeps its state stores on disk: one directory per instance
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        // exactly once: each commit is a transaction over the output, changelog and repartition records
        // and the input offsets
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // the internal topics (repartition, changelog) get three replicas, so that a broker may die
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        // a warm copy of each store on the other instance: a failover restores only the last few records
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        // give up on a killed instance after 6 s instead of the default 45 s, and hand its tasks to the other
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1500);

        StreamsInstance.run(topology(), props);
    }
}
