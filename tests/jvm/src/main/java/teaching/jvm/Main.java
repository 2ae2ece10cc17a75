package teaching.jvm;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JVM runs several scenarios against one broker (a JVM starts in about a second, so the tier batches):
 * {@code java -cp <classes>:<kafka-clients> teaching.jvm.Main <bootstrap> producer consumer-group ...}.
 * Prints one JSON object, a key per scenario; a scenario that throws reports {"error": "..."}.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        Map<String, Object> results = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            long start = System.nanoTime();
            Map<String, Object> result;
            try {
                result = switch (name) {
                    case "producer" -> ProducerScenario.run(bootstrap);
                    case "consumer-group" -> ConsumerGroupScenario.run(bootstrap);
                    case "transactions" -> TransactionScenario.run(bootstrap, "classic");
                    case "transactions-consumer-protocol" -> TransactionScenario.run(bootstrap, "consumer");
                    case "admin" -> AdminScenario.run(bootstrap);
                    case "rolling-upgrade" -> RollingUpgradeScenario.run(bootstrap);
                    case "cluster" -> ClusterScenario.run(bootstrap);
                    case "cluster-transactions" -> ClusterTransactionScenario.run(bootstrap);
                    case "dynamic-message-max-bytes" -> DynamicConfigScenario.run(bootstrap);
                    default -> throw new IllegalArgumentException("unknown scenario " + name);
                };
            } catch (Throwable e) {
                result = new LinkedHashMap<>();
                result.put("error", Scenarios.describe(e));
            }
            result.put("seconds", (System.nanoTime() - start) / 1e9);
            results.put(name, result);
        }
        System.out.println(Json.write(results));
        System.out.flush();
        // Client threads that outlive close() (a stuck Sender) must not keep the JVM alive.
        System.exit(0);
    }
}
