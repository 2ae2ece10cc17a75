"""make demo-mirror: MirrorMaker 2 between Apache Kafka 4.4 and this broker, both ways
(docs/ecosystem.md#mirrormaker-2).

An Apache Kafka 4.4 node (started from its Maven jars as tests/jvm/apache_kafka.py starts it, on
127.0.0.1:29092, data under data/mirror-demo/) and `make run`'s broker (127.0.0.1:9092: start it first) are
the clusters `apache` and `teaching` of examples/mirror/mm2.properties. On each, 30 keyed records with a
header go into a topic of three partitions (`orders` on apache, `payments` on teaching) and a consumer group
(`billing`, `audit`) reads them all and commits. Then MirrorMaker 2 (connect-mirror 4.3.1, dedicated mode, as
bin/connect-mirror-maker.sh runs it) copies each topic to the other cluster (`apache.orders` on teaching,
`teaching.payments` on apache) and turns each group's committed offsets into the other cluster's offsets.
Ten more records go into each source; each group, moved to the other cluster, reads exactly those ten.
The clients are this repository's own (kafka/clients/).

    .venv/bin/python examples/mirror/demo.py [--bootstrap-server 127.0.0.1:9092] [--apache-port 29092]
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kafka.clients.admin.admin_client import AdminClient  # noqa: E402
from kafka.clients.admin.descriptions import NewTopic  # noqa: E402
from kafka.clients.consumer.kafka_consumer import KafkaConsumer  # noqa: E402
from kafka.clients.errors import KafkaError  # noqa: E402
from kafka.clients.producer.kafka_producer import KafkaProducer  # noqa: E402
from kafka.utils.logging import configure_tool_logging  # noqa: E402
from kafka.utils.topic_partition import TopicPartition  # noqa: E402
from tests.jvm import resolve  # noqa: E402
from tests.jvm.apache_kafka import ApacheKafka  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = ROOT / "data" / "mirror-demo"
# (source alias, topic, group) for each flow; the copy is named "<source alias>.<topic>" on the other cluster.
FLOWS = (("apache", "orders", "billing"), ("teaching", "payments", "audit"))
PARTITIONS = 3


def step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def wait_for(what: str, condition, timeout: float = 120.0):
    """condition()'s first truthy value, polled until the deadline."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what} (MirrorMaker's log: {DATA / 'mirror-maker.log'})")
        time.sleep(0.5)  # a poll interval: the condition is the loop's
    return result


def produce(bootstrap: str, topic: str, first: int, count: int) -> None:
    """Records first..first+count-1: key "customer-<n % 7>", value "<topic> #<n>", a header "seq"."""
    producer = KafkaProducer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for n in range(first, first + count):
        producer.send(topic, f"{topic} #{n}".encode(), key=f"customer-{n % 7}".encode(),
                      headers=[("seq", str(n).encode())])
    producer.flush(30)
    producer.close()


def read_group(bootstrap: str, topic: str, group: str, count: int) -> list:
    """`count` records of `topic` read by a member of `group`, which commits them."""
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                              "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    records: list = []
    deadline = time.monotonic() + 60
    while len(records) < count and time.monotonic() < deadline:
        records += list(consumer.poll(500))
    consumer.commit()
    consumer.close()
    return records


def read_topic(bootstrap: str, topic: str) -> dict[int, list[tuple]]:
    """Every record of `topic`, partition by partition: (key, value, headers) in offset order."""
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap})
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    consumer.assign(partitions)
    consumer.seek_to_beginning(partitions)
    ends = consumer.end_offsets(partitions)
    found: dict[int, list[tuple]] = {p: [] for p in range(PARTITIONS)}
    deadline = time.monotonic() + 60
    while any(consumer.position(tp) < ends[tp] for tp in partitions) and time.monotonic() < deadline:
        for r in consumer.poll(500):
            found[r.partition].append((r.key, r.value, [tuple(h) for h in r.headers]))
    consumer.close()
    return found


def end_offsets(bootstrap: str, topic: str) -> dict[TopicPartition, int]:
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap})
    try:
        return consumer.end_offsets([TopicPartition(topic, p) for p in range(PARTITIONS)])
    finally:
        consumer.close()


def committed(bootstrap: str, group: str) -> dict[TopicPartition, int]:
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        try:
            return admin.list_consumer_group_offsets(group)
        except KafkaError:
            return {}


def forget_earlier_run(bootstrap: str) -> None:
    """This broker keeps its data across demos: an earlier run's topics and groups go, or MirrorMaker would
    resume from offsets of an Apache Kafka node that is no more."""
    with AdminClient({"bootstrap.servers": bootstrap, "default.api.timeout.ms": 5000}) as admin:
        ours = [t for t in admin.list_topics()
                if t in ("payments", "heartbeats") or t.startswith(("apache.", "mm2-"))]
        if ours:
            admin.delete_topics(ours)
        admin.delete_consumer_groups(["billing", "audit", "apache-mm2"])
        print(f"deleted {', '.join(sorted(ours)) or 'no topics'}; groups billing, audit, apache-mm2")


def start_mirror_maker(bootstrap: str, apache: str) -> subprocess.Popen:
    config = DATA / "mm2.properties"
    config.write_text((HERE / "mm2.properties").read_text()
                      + f"apache.bootstrap.servers = {apache}\nteaching.bootstrap.servers = {bootstrap}\n")
    out = open(DATA / "mirror-maker.out", "wb")
    process = subprocess.Popen(
        ["java", f"-Dlog4j2.configurationFile={HERE / 'log4j2.properties'}",
         f"-Dmirror.log.file={DATA / 'mirror-maker.log'}", "-cp", resolve.classpath("connect"),
         "org.apache.kafka.connect.mirror.MirrorMaker", str(config)],
        stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    out.close()
    print(f"MirrorMaker 2: pid {process.pid}, config {config}, log {DATA / 'mirror-maker.log'}")
    return process


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run(ours: str, apache: str) -> None:
    clusters = {"apache": apache, "teaching": ours}
    other = {"apache": "teaching", "teaching": "apache"}
    for source, topic, group in FLOWS:
        step(f"{source}: topic {topic}, 30 records with keys and a header; "
             f"group {group} reads them and commits")
        with AdminClient({"bootstrap.servers": clusters[source]}) as admin:
            admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
        produce(clusters[source], topic, 0, 30)
        print(f"{group} read {len(read_group(clusters[source], topic, group, 30))} records; committed "
              f"{sorted((tp.partition, o) for tp, o in committed(clusters[source], group).items())}")

    step("MirrorMaker 2 (connect-mirror 4.3.1, dedicated mode): apache->teaching and teaching->apache")
    mirror_maker = start_mirror_maker(ours, apache)
    try:
        for source, topic, group in FLOWS:
            target, copy = clusters[other[source]], f"{source}.{topic}"

            def translated(target=target, copy=copy, group=group):
                offsets = {tp: o for tp, o in committed(target, group).items() if tp.topic == copy}
                ends = end_offsets(target, copy) if offsets else {}
                done = len(offsets) == PARTITIONS and offsets == ends and sum(ends.values()) == 30
                return offsets if done else None
            offsets = wait_for(f"group {group}'s offsets on {copy}", translated)
            step(f"{other[source]}: {copy} has the 30 records, and group {group} has offsets there too")
            source_offsets = committed(clusters[source], group)
            for tp in sorted(offsets, key=lambda t: t.partition):
                upstream = source_offsets[TopicPartition(topic, tp.partition)]
                print(f"  partition {tp.partition}: committed {upstream} on {source}'s {topic}, "
                      f"translated to {offsets[tp]} on {other[source]}'s {copy}")

        for source, topic, group in FLOWS:
            step(f"{source}: 10 more records into {topic}; "
                 f"{group} moves to {other[source]} and reads {source}.{topic}")
            produce(clusters[source], topic, 30, 10)
            target, copy = clusters[other[source]], f"{source}.{topic}"
            wait_for(f"40 records in {copy}", lambda target=target, copy=copy:
                     sum(end_offsets(target, copy).values()) == 40)
            records = read_group(target, copy, group, 10)
            for r in sorted(records, key=lambda r: (r.partition, r.offset)):
                print(f"  {copy}-{r.partition} @{r.offset}: {r.key.decode()} = {r.value.decode()} "
                      f"{[(k, v.decode()) for k, v in r.headers]}")
            seqs = sorted(int(dict(r.headers)["seq"]) for r in records)
            assert seqs == list(range(30, 40)), f"{group} read {seqs}, not the ten new records"
            print(f"{group} resumed where it left off on {source}: the ten new records, none of the first 30")

        step("the copies against their sources: keys, values, headers, order per partition")
        for source, topic, _ in FLOWS:
            original = read_topic(clusters[source], topic)
            copy = read_topic(clusters[other[source]], f"{source}.{topic}")
            assert copy == original, f"{source}.{topic} differs from {topic}"
            print(f"OK: {source}.{topic} on {other[source]} = {topic} on {source} "
                  f"({', '.join(f'{len(r)} in partition {p}' for p, r in original.items())})")

        step("MirrorMaker's own topics")
        for name, bootstrap in clusters.items():
            with AdminClient({"bootstrap.servers": bootstrap}) as admin:
                topics = sorted(t for t in admin.list_topics() if not t.startswith("__"))
            print(f"{name}: {', '.join(topics)}")
    finally:
        stop(mirror_maker)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-server", default="127.0.0.1:9092", help="this broker (make run)")
    parser.add_argument("--apache-port", type=int, default=29092, help="the Apache Kafka node's port")
    args = parser.parse_args()
    configure_tool_logging()  # the clients' warnings only: the demo's story on standard output
    try:
        forget_earlier_run(args.bootstrap_server)
    except (KafkaError, OSError) as e:
        print(f"no broker at {args.bootstrap_server} ({e}): start one first (make run)", file=sys.stderr)
        return 1
    shutil.rmtree(DATA, ignore_errors=True)
    DATA.mkdir(parents=True)
    step(f"Apache Kafka 4.4 on 127.0.0.1:{args.apache_port} (log {DATA / 'apache-kafka'}/node-1/server.log)")
    with ApacheKafka(DATA / "apache-kafka", port=args.apache_port) as apache:
        run(args.bootstrap_server, apache.bootstrap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
