"""Tiered storage's topic configs (KIP-405) asked of both brokers with remote.log.storage.system.enable on:
CreateTopics and IncrementalAlterConfigs accepted and refused as Apache Kafka 4.4's LogConfig.validate decides
(a compacted tiered topic, local retention above retention or unlimited under a limited one, a copy lag above
local retention, a read-only tier whose local and total retention differ, turning tiering off without
deleting the remote data). The brokers without the system refuse remote.storage.enable=true alike in
test_topics.py and test_configs.py.

Apache Kafka needs a RemoteStorageManager to start its RemoteLogManager; LocalTieredStorage is in a test jar
Maven Central does not carry, so it gets one that stores nothing (compiled here, loaded from
remote.log.storage.manager.class.path): no segment is ever copied in these tests, only configs checked."""

from __future__ import annotations

import subprocess

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.utils.free_port import free_port
from tests.differential.conftest import our_settings
from tests.differential.oracle import Pair, Side
from tests.differential.test_configs import DELETE, SET, alter
from tests.differential.test_topics import configs, create_topics
from tests.helpers import BrokerProcess, unique_topic
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

NOOP_RSM = """
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.server.log.remote.storage.*;

public class NoopRemoteStorageManager implements RemoteStorageManager {
    public void configure(Map<String, ?> configs) { }
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
            RemoteLogSegmentMetadata metadata, LogSegmentData data) throws RemoteStorageException {
        throw new RemoteStorageException("stores nothing");
    }
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start) throws RemoteStorageException {
        throw new RemoteResourceNotFoundException("stores nothing");
    }
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start, int end)
            throws RemoteStorageException {
        throw new RemoteResourceNotFoundException("stores nothing");
    }
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType type) throws RemoteStorageException {
        throw new RemoteResourceNotFoundException("stores nothing");
    }
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) { }
    public void close() { }
}
"""

LOCAL_TIERED_STORAGE = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"
TIERED_SYSTEM = {"remote.log.storage.system.enable": "true",
                 "remote.log.metadata.manager.listener.name": "PLAINTEXT",
                 "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
                 "rlmm.config.remote.log.metadata.topic.min.isr": "1",
                 "rlmm.config.remote.log.metadata.topic.num.partitions": "3"}


@pytest.fixture(scope="module")
def tiered_pair(tmp_path_factory):
    classes = tmp_path_factory.mktemp("noop-rsm")
    (classes / "NoopRemoteStorageManager.java").write_text(NOOP_RSM)
    try:
        classpath = resolve.classpath("broker")
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    source = classes / "NoopRemoteStorageManager.java"
    subprocess.run(["javac", "-cp", classpath, "-d", str(classes), str(source)],
                   check=True, capture_output=True, timeout=120)
    kafka = ApacheKafka(tmp_path_factory.mktemp("apache-kafka-tiered"), overrides={
        **TIERED_SYSTEM, "remote.log.storage.manager.class.name": "NoopRemoteStorageManager",
        "remote.log.storage.manager.class.path": str(classes)}).start()
    port = free_port()
    data = tmp_path_factory.mktemp("ours-tiered") / "data"
    ours = BrokerProcess(data, {
        **our_settings(port, free_port()), **TIERED_SYSTEM,
        "remote.log.storage.manager.class.name": LOCAL_TIERED_STORAGE,
        "rsm.config.dir": str(tmp_path_factory.mktemp("remote"))}, port=port)
    pair = Pair(Side("ours", ours.port), Side("apache", kafka.nodes[0].port))
    yield pair
    pair.close()
    ours.stop()
    kafka.stop()


def tiered(name: str, **pairs: str) -> dict:
    return {"name": unique_topic(name), "configs": configs(remote_storage_enable="true", **pairs)}


def test_create_tiered_topics_accepted_and_refused(tiered_pair: Pair):
    answer = tiered_pair.same(ApiKey.CREATE_TOPICS, 7, create_topics(
        tiered("plain"),
        tiered("local-limits", retention_ms="600000", local_retention_ms="60000", retention_bytes="100000",
               local_retention_bytes="10000"),
        tiered("compacted", cleanup_policy="compact"),
        tiered("compact-delete", cleanup_policy="compact,delete"),
        tiered("no-cleanup", cleanup_policy=""),
        tiered("local-bytes-above", retention_bytes="1000", local_retention_bytes="2000"),
        tiered("local-ms-above", retention_ms="1000", local_retention_ms="2000"),
        tiered("local-bytes-unlimited", retention_bytes="1000", local_retention_bytes="-1"),
        tiered("local-ms-unlimited", retention_ms="1000", local_retention_ms="-1"),
        tiered("lag-above-local", local_retention_ms="1000", remote_copy_lag_ms="5000"),
        tiered("lag-bytes-above-local", local_retention_bytes="1000", remote_copy_lag_bytes="5000"),
        tiered("read-only-mismatch", remote_log_copy_disable="true", retention_ms="5000",
               local_retention_ms="1000"),
        tiered("read-only", remote_log_copy_disable="true", retention_ms="5000", local_retention_ms="5000"),
        {"name": unique_topic("bad-local"), "configs": configs(local_retention_ms="-3")},
    ))
    accepted = [t.name.rsplit("-", 2)[0] for t in answer.topics if t.error_code == 0]
    assert accepted == ["plain", "local-limits", "no-cleanup", "read-only"], [
        (t.name, t.error_message) for t in answer.topics]


def test_turning_tiering_off_needs_the_remote_data_deleted(tiered_pair: Pair):
    topic = unique_topic("turned-off")
    tiered_pair.same(ApiKey.CREATE_TOPICS, 7, create_topics(
        {"name": topic, "configs": configs(remote_storage_enable="true")}))
    for ops in ([("remote.storage.enable", SET, "false")],
                [("remote.storage.enable", DELETE, None)],
                [("local.retention.ms", SET, "1"), ("retention.ms", SET, "10")],
                [("cleanup.policy", SET, "compact")],
                [("remote.log.copy.disable", SET, "true")],
                [("remote.storage.enable", SET, "false"), ("remote.log.delete.on.disable", SET, "true")]):
        tiered_pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, alter(topic, *ops, validate_only=True))
