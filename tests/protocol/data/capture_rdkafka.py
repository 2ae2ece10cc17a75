"""Capture real request frames from librdkafka (via confluent-kafka) into ``*.hex`` files.

Not a test: run it by hand when the fixtures need refreshing::

    .venv/bin/python tests/protocol/data/capture_rdkafka.py

It listens on 127.0.0.1, answers with our own codec just enough (ApiVersions, Metadata, Produce,
ListOffsets, Fetch, CreateTopics, DeleteTopics) for a producer to deliver one message, a consumer
to fetch it and an AdminClient to create and delete a topic, and writes
the first frame of each (api, version) it receives, without the 4-byte size prefix, as hex.
"""

from __future__ import annotations

import pathlib
import socket
import struct
import threading
import time

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import (
    advertised_ranges,
    decode_request,
    encode_api_versions_fallback,
    encode_response,
    parse_request_header,
)

HERE = pathlib.Path(__file__).parent
TOPIC = "capture"
CLIENT_ID = "kafka-teaching-capture"
STORED: dict[int, bytes] = {}  # api key -> first batch we were sent, returned by Fetch


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError
        buf += chunk
    return buf


def _answer(api_key: int, version: int, body, port: int):  # noqa: ANN001
    if api_key == ApiKey.API_VERSIONS:
        return {
            "api_keys": [
                dict(zip(("api_key", "min_version", "max_version"), r, strict=True))
                for r in advertised_ranges()
            ]
        }
    if api_key == ApiKey.METADATA:
        part = {
            "partition_index": 0,
            "leader_id": 1,
            "leader_epoch": 0,
            "replica_nodes": [1],
            "isr_nodes": [1],
        }
        return {
            "brokers": [{"node_id": 1, "host": "127.0.0.1", "port": port}],
            "cluster_id": "capture-cluster",
            "controller_id": 1,
            "topics": [{"name": TOPIC, "partitions": [part]}],
        }
    if api_key == ApiKey.PRODUCE:
        STORED[0] = bytes(body.topic_data[0].partition_data[0].records)
        parts = [{"index": 0, "base_offset": 0}]
        return {"responses": [{"name": TOPIC, "partition_responses": parts}]}
    if api_key == ApiKey.LIST_OFFSETS:
        parts = [{"partition_index": 0, "timestamp": -1, "offset": 0}]
        return {"topics": [{"name": TOPIC, "partitions": parts}]}
    if api_key == ApiKey.FETCH:
        time.sleep(0.05)
        parts = [
            {
                "partition_index": 0,
                "high_watermark": 1,
                "last_stable_offset": 1,
                "log_start_offset": 0,
                "records": STORED.get(0, b""),
            }
        ]
        return {"responses": [{"topic": TOPIC, "partitions": parts}]}
    if api_key == ApiKey.CREATE_TOPICS:
        results = [
            {"name": t.name, "num_partitions": t.num_partitions, "replication_factor": t.replication_factor}
            for t in body.topics
        ]
        return {"topics": results}
    if api_key == ApiKey.DELETE_TOPICS:
        names = [t.name for t in body.topics] if version >= 6 else body.topic_names
        return {"responses": [{"name": n} for n in names]}
    return None


def _serve(conn: socket.socket, port: int, seen: dict[tuple[int, int], bytes]) -> None:
    try:
        while True:
            size = struct.unpack(">i", _recv_exact(conn, 4))[0]
            frame = _recv_exact(conn, size)
            h = parse_request_header(frame)
            seen.setdefault((h.api_key, h.api_version), frame)
            api = APIS.get(h.api_key)
            if h.api_key == ApiKey.API_VERSIONS and not api.is_supported(h.api_version):
                conn.sendall(encode_api_versions_fallback(h.correlation_id))
                continue
            if api is None or not api.is_supported(h.api_version):
                print("unsupported", h)
                return
            body = decode_request(api, h.api_version, frame, h.header_size)
            answer = _answer(h.api_key, h.api_version, body, port)
            if answer is None:
                return
            if h.api_key == ApiKey.PRODUCE and body.acks == 0:
                continue
            conn.sendall(encode_response(api, h.api_version, h.correlation_id, answer))
    except ConnectionError:
        pass
    finally:
        conn.close()


def main() -> None:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    seen: dict[tuple[int, int], bytes] = {}

    def accept_loop() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_serve, args=(conn, port, seen), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    common = {"bootstrap.servers": f"127.0.0.1:{port}", "client.id": CLIENT_ID, "broker.address.family": "v4"}
    producer = Producer({**common, "linger.ms": 0})
    producer.produce(TOPIC, key=b"key", value=b"hello, kafka", timestamp=1700000000000)
    assert producer.flush(10) == 0, "message not delivered"

    consumer = Consumer({**common, "group.id": "capture-group", "enable.auto.commit": False})
    consumer.assign([TopicPartition(TOPIC, 0, OFFSET_BEGINNING)])  # -> ListOffsets, then Fetch
    msg = consumer.poll(10)
    assert msg is not None and msg.value() == b"hello, kafka", msg
    consumer.close()

    admin = AdminClient(common)
    created = admin.create_topics(
        [NewTopic("created", num_partitions=3, replication_factor=1, config={"cleanup.policy": "compact"})]
    )
    created["created"].result(10)
    admin.delete_topics(["created"])["created"].result(10)
    listener.close()

    librdkafka = __import__("confluent_kafka").libversion()[0]
    for (key, version), frame in sorted(seen.items()):
        name = APIS[key].name if key in APIS else f"api{key}"
        path = HERE / f"rdkafka_{name.lower()}_v{version}.hex"
        path.write_text(
            f"# {name} v{version} request frame (size prefix removed), sent by librdkafka {librdkafka}\n"
            f"# (confluent-kafka-python, client.id={CLIENT_ID}) to tests/protocol/data/capture_rdkafka.py\n"
            + "\n".join(frame[i : i + 32].hex() for i in range(0, len(frame), 32))
            + "\n"
        )
        print("wrote", path.name, len(frame), "bytes")


if __name__ == "__main__":
    main()
