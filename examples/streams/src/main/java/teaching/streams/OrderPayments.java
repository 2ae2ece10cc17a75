package teaching.streams;

import java.time.Duration;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.StreamJoined;

/**
 * A windowed stream-stream join: each order with the payments made for it within five minutes.
 *
 * <pre>
 *   orders   (key: order id)   -------------------------------------------------------+
 *                                                                                    join --> paid-orders
 *   payments (key: payment id) --selectKey(order id)--> ...-payments-by-order-repartition --+  (5 minutes)
 * </pre>
 *
 * A join needs both sides keyed alike and partitioned alike (co-partitioned): order 17 and the payments of
 * order 17 must reach the same task. Orders are keyed by their id already. Payments are keyed by their own
 * id, so the application re-keys them by order id and sends them through a repartition topic,
 * "order-payments-payments-by-order-repartition", partitioned by the new key.
 *
 * A stream-stream join keeps each side's recent records in a window store: an order waits there for its
 * payments, a payment for its order. That is two state stores, each with its changelog topic. Record time
 * decides what "within five minutes" means: the timestamps the producer gave the records, not the clock.
 *
 * <p>Run one instance: {@code java -cp target/streams-examples-1.0.jar teaching.streams.OrderPayments
 * <bootstrap servers> <state dir>}.
 */
public final class OrderPayments {
    static final String APPLICATION_ID = "order-payments";
    static final String ORDERS_TOPIC = "orders";        // key: order id, value: "customer,amount"
    static final String PAYMENTS_TOPIC = "payments";    // key: payment id, value: "order id,amount"
    static final String OUTPUT_TOPIC = "paid-orders";   // key: order id, value: "order ... paid by ..."

    // An order and a payment join when their timestamps are at most five minutes apart, either way round.
    static final Duration WINDOW = Duration.ofMinutes(5);
    // How late (in record time) a record may arrive and still join. The demo writes half an hour of orders
    // in seconds, and one side may be read well ahead of the other (payments take a detour through the
    // repartition topic): a grace longer than the whole input makes the result independent of that.
    static final Duration GRACE = Duration.ofHours(2);

    private OrderPayments() {
    }

    static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> orders =
            builder.stream(ORDERS_TOPIC, Consumed.with(Serdes.String(), Serdes.String()));
        KStream<String, String> payments =
            builder.stream(PAYMENTS_TOPIC, Consumed.with(Serdes.String(), Serdes.String()));

        KStream<String, String> paymentsByOrder = payments
            // the new key: the order id, the first field of the payment
            .selectKey((paymentId, payment) -> payment.split(",", 2)[0])
            // through the topic "order-payments-payments-by-order-repartition", partitioned by order id
            .repartition(Repartitioned.with(Serdes.String(), Serdes.String()).withName("payments-by-order"));

        orders
            .join(paymentsByOrder,
                  // what one (order, payment) pair becomes; the key stays the order id
                  (order, payment) -> "order " + order + " paid by " + payment,
                  JoinWindows.ofTimeDifferenceAndGrace(WINDOW, GRACE),
                  // the two window stores, and their changelog topics, are named after "orders-payments"
                  StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String())
                      .withName("orders-payments").withStoreName("orders-payments"))
            .to(OUTPUT_TOPIC, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: OrderPayments <bootstrap servers> <state dir>");
            System.exit(2);
        }
        Properties props = new Properties();
        // WordCount's settings under this application's own name (WordCount.main says what each one does)
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1500);

        StreamsInstance.run(topology(), props);
    }
}
