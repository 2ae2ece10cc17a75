"""`__remote_log_metadata` as Apache Kafka 4.4 writes it: the same events serialized by Kafka's
RemoteLogMetadataSerde and by ours are the same bytes, each side reads the other's, and a user partition's
metadata partition is the one Kafka's RemoteLogMetadataTopicPartitioner picks (a JVM broker in the cluster
reads where ours wrote)."""

from __future__ import annotations

import subprocess
import uuid

import pytest

from kafka.log.remote import remote_log_metadata_serde as serde
from kafka.log.remote.remote_log_segment_metadata import (
    RemoteLogSegmentId,
    RemoteLogSegmentMetadata,
    RemoteLogSegmentMetadataUpdate,
    RemoteLogSegmentState,
    RemotePartitionDeleteMetadata,
    RemotePartitionDeleteState,
)
from kafka.server.remote.remote_log_metadata_topic_partitioner import RemoteLogMetadataTopicPartitioner
from kafka.utils.topic_id_partition import TopicIdPartition
from tests.jvm import resolve

TOPIC_ID = uuid.UUID("7b1e1d6e-2b4a-4a39-9f1e-0c1d2e3f4a5b")
SEGMENT_ID = uuid.UUID("0c1d2e3f-4a5b-4a39-9f1e-7b1e1d6e2b4a")
TIP = TopicIdPartition(TOPIC_ID, "orders", 3)

JAVA = """
import java.util.*;
import org.apache.kafka.common.*;
import org.apache.kafka.server.log.remote.storage.*;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;

public class Serde {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%%02x", x));
        return s.toString();
    }
    static byte[] unhex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
    public static void main(String[] a) {
        TopicIdPartition tip = new TopicIdPartition(new Uuid(%(msb)dL, %(lsb)dL), 3, "orders");
        RemoteLogSegmentId id = new RemoteLogSegmentId(tip, new Uuid(%(smsb)dL, %(slsb)dL));
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        Map<Integer, Long> epochs = new HashMap<>(); epochs.put(0, 100L); epochs.put(2, 150L);
        System.out.println(hex(serde.serialize(new RemoteLogSegmentMetadata(id, 100L, 199L,
            1700000000123L, 1, 1700000000456L, 4096,
            Optional.of(new RemoteLogSegmentMetadata.CustomMetadata(new byte[]{1, 2, 3})),
            RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs, true))));
        System.out.println(hex(serde.serialize(new RemoteLogSegmentMetadataUpdate(id, 1700000000789L,
            Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 2))));
        System.out.println(hex(serde.serialize(new RemotePartitionDeleteMetadata(tip,
            RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 1700000000999L, 3))));
        for (int p = 0; p < 8; p++)
            System.out.println(new RemoteLogMetadataTopicPartitioner(50).metadataPartition(
                new TopicIdPartition(tip.topicId(), p, "orders")));
        System.out.println(serde.deserialize(unhex(a[0])));
    }
}
"""


def signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def our_events() -> list:
    segment_id = RemoteLogSegmentId(TIP, SEGMENT_ID)
    return [RemoteLogSegmentMetadata(segment_id, 100, 199, 1700000000123, 1, 1700000000456, 4096,
                                     {0: 100, 2: 150}, RemoteLogSegmentState.COPY_SEGMENT_STARTED,
                                     b"\x01\x02\x03", True),
            RemoteLogSegmentMetadataUpdate(segment_id, 1700000000789, None,
                                           RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 2),
            RemotePartitionDeleteMetadata(TIP, RemotePartitionDeleteState.DELETE_PARTITION_MARKED,
                                          1700000000999, 3)]


@pytest.fixture(scope="module")
def kafkas_output(tmp_path_factory):
    try:
        classpath = resolve.classpath("broker")
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    work = tmp_path_factory.mktemp("serde")
    source = work / "Serde.java"
    low = 2**64 - 1
    source.write_text(JAVA % dict(msb=signed(TOPIC_ID.int >> 64), lsb=signed(TOPIC_ID.int & low),
                                  smsb=signed(SEGMENT_ID.int >> 64), slsb=signed(SEGMENT_ID.int & low)))
    subprocess.run(["javac", "-cp", classpath, "-d", str(work), str(source)], check=True, capture_output=True,
                   timeout=120)
    ours_in_kafka = serde.serialize(our_events()[0]).hex()
    done = subprocess.run(["java", "-cp", f"{classpath}:{work}", "Serde", ours_in_kafka], check=True,
                          capture_output=True, text=True, timeout=120)
    return [line for line in done.stdout.splitlines() if line and not line.startswith("SLF4J")]


def test_the_same_bytes_as_kafkas_serde(kafkas_output):
    assert [serde.serialize(event).hex() for event in our_events()] == kafkas_output[:3]
    assert [serde.deserialize(bytes.fromhex(line)) for line in kafkas_output[:3]] == our_events()


def test_kafka_reads_ours(kafkas_output):
    read_back = kafkas_output[-1]
    assert all(part in read_back for part in ("startOffset=100", "endOffset=199", "COPY_SEGMENT_STARTED"))


def test_the_same_metadata_partition_as_kafkas_partitioner(kafkas_output):
    partitioner = RemoteLogMetadataTopicPartitioner(50)
    ours = [str(partitioner.metadata_partition(TopicIdPartition(TOPIC_ID, "orders", p))) for p in range(8)]
    assert ours == kafkas_output[3:11]
