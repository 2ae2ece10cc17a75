package teaching.jvm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The Admin API, one call after another on topics this scenario creates. Each call's outcome is recorded
 * under its method's name: {"ok": true, ...what it returned...} or {"ok": false, "error": "..."}, so one
 * failing call does not hide the others.
 */
final class AdminScenario {
    static final String TOPIC = "jvm-admin";
    static final String DOOMED = "jvm-admin-doomed";
    static final String GROUP = "jvm-admin-group";
    static final String TXN_ID = "jvm-admin-txn";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);

    private AdminScenario() {
    }

    static Map<String, Object> run(String bootstrap) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        try (Admin admin = Admin.create(Scenarios.adminConfig(bootstrap))) {
            op(out, "createTopics", () -> {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1).configs(Map.of("retention.ms", "86400000")),
                        new NewTopic(DOOMED, 1, (short) 1))).all().get();
                return Map.of("topics", admin.listTopics().names().get().containsAll(Set.of(TOPIC, DOOMED)));
            });
            op(out, "createPartitions", () -> {
                admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(3))).all().get();
                return Map.of();
            });
            op(out, "describeTopics", () -> {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                List<Object> partitions = new ArrayList<>();
                d.partitions().forEach(p -> partitions.add(Map.of("partition", p.partition(), "leader", p.leader().id(),
                        "replicas", p.replicas().size(), "isr", p.isr().size())));
                return Map.of("partitions", partitions, "internal", d.isInternal(), "topic_id", String.valueOf(d.topicId()));
            });
            op(out, "describeCluster", () -> {
                DescribeClusterResult r = admin.describeCluster();
                Collection<Node> nodes = r.nodes().get();
                return Map.of("cluster_id", String.valueOf(r.clusterId().get()), "nodes", nodes.size(),
                        "controller", r.controller().get().id());
            });
            int nodeId = admin.describeCluster().nodes().get().iterator().next().id();
            ConfigResource topicResource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            ConfigResource brokerResource = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(nodeId));
            op(out, "describeConfigs", () -> {
                Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topicResource, brokerResource),
                        new DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true)).all().get();
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("topic_entries", configs.get(topicResource).entries().size());
                r.put("broker_entries", configs.get(brokerResource).entries().size());
                r.put("retention.ms", entry(configs.get(topicResource).get("retention.ms")));
                r.put("segment.bytes", entry(configs.get(topicResource).get("segment.bytes")));
                r.put("broker log.retention.hours", entry(configs.get(brokerResource).get("log.retention.hours")));
                return r;
            });
            op(out, "incrementalAlterConfigs", () -> {
                admin.incrementalAlterConfigs(Map.of(topicResource, List.of(
                        new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
                        new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND),
                        new AlterConfigOp(new ConfigEntry("max.message.bytes", ""), AlterConfigOp.OpType.DELETE)))).all().get();
                Config c = admin.describeConfigs(List.of(topicResource)).all().get().get(topicResource);
                return Map.of("retention.ms", entry(c.get("retention.ms")), "cleanup.policy", entry(c.get("cleanup.policy")));
            });
            // Some records (idempotent, so describeProducers has state) and a committed transaction.
            Properties pc = Scenarios.producerConfig(bootstrap);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pc)) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, 0, 1_700_000_000_000L + i, "k" + i, "v" + i));
                }
                producer.flush();
            }
            pc.put("transactional.id", TXN_ID);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pc)) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 1, "t", "in a transaction"));
                producer.commitTransaction();
            }
            op(out, "listOffsets", () -> {
                ListOffsetsResult r = admin.listOffsets(Map.of(TP0, OffsetSpec.earliest()));
                long earliest = r.partitionResult(TP0).get().offset();
                long latest = admin.listOffsets(Map.of(TP0, OffsetSpec.latest())).partitionResult(TP0).get().offset();
                ListOffsetsResult.ListOffsetsResultInfo max = admin.listOffsets(Map.of(TP0, OffsetSpec.maxTimestamp()))
                        .partitionResult(TP0).get();
                ListOffsetsResult.ListOffsetsResultInfo byTime = admin.listOffsets(
                        Map.of(TP0, OffsetSpec.forTimestamp(1_700_000_000_003L))).partitionResult(TP0).get();
                return Map.of("earliest", earliest, "latest", latest, "max_timestamp_offset", max.offset(),
                        "max_timestamp", max.timestamp(), "for_timestamp_offset", byTime.offset());
            });
            op(out, "deleteRecords", () -> {
                long low = admin.deleteRecords(Map.of(TP0, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(TP0)
                        .get().lowWatermark();
                long earliest = admin.listOffsets(Map.of(TP0, OffsetSpec.earliest())).partitionResult(TP0).get().offset();
                return Map.of("low_watermark", low, "earliest_after", earliest);
            });
            commitGroupOffsets(bootstrap);
            op(out, "listConsumerGroups", () -> {
                Collection<ConsumerGroupListing> groups = admin.listConsumerGroups().all().get();
                Optional<ConsumerGroupListing> ours = groups.stream().filter(g -> g.groupId().equals(GROUP)).findFirst();
                return Map.of("found", ours.isPresent(), "state", String.valueOf(ours.map(ConsumerGroupListing::state)
                        .orElse(Optional.empty()).orElse(null)));
            });
            op(out, "describeConsumerGroups", () -> {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
                return Map.of("state", String.valueOf(d.state()), "members", d.members().size(),
                        "coordinator", d.coordinator().id(), "simple", d.isSimpleConsumerGroup());
            });
            op(out, "listConsumerGroupOffsets", () -> {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata().get();
                Map<String, Object> r = new LinkedHashMap<>();
                offsets.forEach((tp, o) -> r.put(tp.toString(), o == null ? null : o.offset()));
                return r;
            });
            op(out, "deleteConsumerGroupOffsets", () -> {
                admin.deleteConsumerGroupOffsets(GROUP, Set.of(TP1)).all().get();
                return Map.of("remaining", admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().size());
            });
            op(out, "deleteConsumerGroups", () -> {
                admin.deleteConsumerGroups(List.of(GROUP)).all().get();
                boolean gone = admin.listConsumerGroups().all().get().stream().noneMatch(g -> g.groupId().equals(GROUP));
                return Map.of("gone", gone);
            });
            op(out, "describeLogDirs", () -> {
                Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(nodeId)).allDescriptions().get().get(nodeId);
                Map<String, Object> r = new LinkedHashMap<>();
                dirs.forEach((path, d) -> r.put("error", d.error() == null ? null : d.error().toString()));
                long size = dirs.values().stream().mapToLong(d -> d.replicaInfos().containsKey(TP0)
                        ? d.replicaInfos().get(TP0).size() : -1).max().orElse(-1);
                r.put("dirs", dirs.size());
                r.put("tp0_size", size);
                return r;
            });
            op(out, "describeProducers", () -> {
                List<ProducerState> states = admin.describeProducers(List.of(TP0)).partitionResult(TP0).get().activeProducers();
                return Map.of("producers", states.size(),
                        "last_sequence", states.isEmpty() ? -1 : states.get(0).lastSequence());
            });
            op(out, "describeTransactions", () -> {
                TransactionDescription d = admin.describeTransactions(List.of(TXN_ID)).description(TXN_ID).get();
                return Map.of("state", String.valueOf(d.state()), "coordinator", d.coordinatorId(),
                        "timeout_ms", d.transactionTimeoutMs());
            });
            op(out, "listTransactions", () -> {
                Collection<TransactionListing> listings = admin.listTransactions().all().get();
                return Map.of("found", listings.stream().anyMatch(t -> t.transactionalId().equals(TXN_ID)));
            });
            op(out, "electLeaders", () -> {
                Map<TopicPartition, Optional<Throwable>> r = admin.electLeaders(ElectionType.PREFERRED, Set.of(TP0))
                        .partitions().get();
                return Map.of("tp0", r.get(TP0).map(t -> t.getClass().getSimpleName()).orElse("elected"));
            });
            op(out, "alterPartitionReassignments", () -> {
                admin.alterPartitionReassignments(Map.of(TP0, Optional.of(new NewPartitionReassignment(List.of(nodeId)))))
                        .all().get();
                return Map.of();
            });
            op(out, "listPartitionReassignments", () -> {
                Map<TopicPartition, PartitionReassignment> r = admin.listPartitionReassignments().reassignments().get();
                return Map.of("ongoing", r.size());
            });
            op(out, "describeMetadataQuorum", () -> {
                QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get();
                return Map.of("leader", q.leaderId(), "voters", q.voters().size(), "observers", q.observers().size(),
                        "high_watermark", q.highWatermark());
            });
            op(out, "describeFeatures", () -> {
                FeatureMetadata f = admin.describeFeatures().featureMetadata().get();
                Map<String, Object> finalized = new LinkedHashMap<>();
                f.finalizedFeatures().forEach((name, range) -> finalized.put(name, range.maxVersionLevel()));
                Map<String, Object> supported = new LinkedHashMap<>();
                f.supportedFeatures().forEach((name, range) -> supported.put(name, range.minVersion() + "-" + range.maxVersion()));
                return Map.of("finalized", finalized, "supported", supported,
                        "epoch", f.finalizedFeaturesEpoch().orElse(-1L));
            });
            op(out, "deleteTopics", () -> {
                admin.deleteTopics(List.of(DOOMED)).all().get();
                return Map.of("gone", !admin.listTopics().names().get().contains(DOOMED));
            });
        }
        return out;
    }

    /** A consumer in GROUP commits offsets 3 and 1 on partitions 0 and 1, then leaves: the group is Empty. */
    private static void commitGroupOffsets(String bootstrap) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Scenarios.consumerConfig(bootstrap, GROUP))) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.assignment().isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(100));
            }
            consumer.commitSync(Map.of(TP0, new OffsetAndMetadata(5), TP1, new OffsetAndMetadata(1)));
        }
    }

    private static Map<String, Object> entry(ConfigEntry e) {
        if (e == null) {
            return null;
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("value", e.value());
        r.put("source", String.valueOf(e.source()));
        r.put("read_only", e.isReadOnly());
        r.put("sensitive", e.isSensitive());
        r.put("type", String.valueOf(e.type()));
        List<String> synonyms = new ArrayList<>();
        e.synonyms().forEach(s -> synonyms.add(s.name() + "=" + s.value() + " (" + s.source() + ")"));
        r.put("synonyms", synonyms);
        r.put("documented", e.documentation() != null && !e.documentation().isEmpty());
        return r;
    }

    private static void op(Map<String, Object> out, String name, Callable<Map<String, Object>> call) {
        Map<String, Object> r = new LinkedHashMap<>();
        try {
            r.put("ok", true);
            r.putAll(call.call());
        } catch (Exception e) {
            r.put("ok", false);
            r.put("error", Scenarios.describe(e instanceof ExecutionException ? e : e));
        }
        out.put(name, r);
    }
}
