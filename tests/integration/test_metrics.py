"""Acceptance: the broker's /metrics moves exactly as seed 002's journey says it should.

Real clients (confluent-kafka, and the raw wire client where a test needs exact bytes), a real
broker on loopback, and every number read over HTTP from /metrics as Prometheus would read it.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.helpers import REPO, unique_topic, wait_until
from tests.integration.test_long_poll import background, create, fetch_body, produce
from tests.integration.test_tiered_storage_copy import tiered_broker
from tests.metrics.scrape import scrape
from tests.wire import WireClient

N_RECORDS = 10_000
TIMES = ("requestqueuetimems", "localtimems", "remotetimems", "responsequeuetimems", "responsesendtimems",
         "totaltimems")


def log_file_bytes(data_dir: Path, topic: str) -> int:
    return sum(f.stat().st_size for f in (data_dir / f"{topic}-0").glob("*.log"))


def test_producing_10000_records_moves_messages_in_and_bytes_in_by_exactly_that(broker):
    topic = unique_topic("mi")
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic].result(15)
    before = scrape(broker)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(N_RECORDS):
        producer.produce(topic, value=f"value-{i}".encode())
        producer.poll(0)
    assert producer.flush(30) == 0
    after = scrape(broker)

    def moved(name, **labels):
        return after.value(name, **labels) - before.value(name, **labels)

    on_disk = log_file_bytes(broker.data_dir, topic)
    for labels in ({"topic": topic}, {"topic": ""}):  # the topic's series and the all-topics one
        assert moved("kafka_server_brokertopicmetrics_messagesin_total", **labels) == N_RECORDS
        assert moved("kafka_server_brokertopicmetrics_bytesin_total", **labels) == on_disk > 0
    # One partition: each Produce request made one partition append.
    produced = moved("kafka_server_brokertopicmetrics_totalproducerequests_total", topic=topic)
    assert produced >= 1
    assert moved("kafka_server_brokertopicmetrics_failedproducerequests_total", topic=topic) == 0
    assert moved("kafka_network_requestmetrics_errors_total", request="Produce", error="NONE") == produced

    # Every acks=all produce request was timed, in each of the six stages. The network thread records
    # that just after the response's last byte left, so the client may be a moment ahead of it.
    def produces_timed(scraped, stage: str) -> float:
        return scraped.value(f"kafka_network_requestmetrics_{stage}_count", request="Produce")

    def timed(s):
        return [produces_timed(s, stage) - produces_timed(before, stage) for stage in TIMES]
    wait_until(lambda: timed(scrape(broker)) == [produced] * len(TIMES), message="every produce timed")
    counted = scrape(broker)
    assert sum(v - before.value(name, **dict(labels)) for (name, labels), v in counted.samples.items()
               if name == "kafka_network_requestmetrics_requests_total"
               and dict(labels)["request"] == "Produce"
               ) == produced
    # The log gauges agree with the files and the offsets.
    assert after.value("kafka_log_log_size", topic=topic, partition="0") == on_disk
    assert after.value("kafka_log_log_logendoffset", topic=topic, partition="0") == N_RECORDS
    assert after.value("kafka_log_log_logstartoffset", topic=topic, partition="0") == 0
    assert after.value("kafka_log_log_numlogsegments", topic=topic, partition="0") == 1
    assert after.value("kafka_server_replicamanager_partitioncount") >= 1
    assert after.value("kafka_server_replicamanager_underreplicatedpartitions") == 0


def test_a_fetch_moves_bytes_out_by_the_record_bytes_it_carries(broker):
    client = WireClient(broker.port)
    create(client, "out")
    for i in range(3):
        produce(client, "out", b"x" * (100 + i))
    before = scrape(broker)
    response = client.request(ApiKey.FETCH, 12, fetch_body("out", 0, 0))
    records = response.responses[0].partitions[0].records
    name = "kafka_network_requestmetrics_requests_total"
    wait_until(lambda: scrape(broker).value(name, request="FetchConsumer", version="12")
               - before.value(name, request="FetchConsumer", version="12") == 1, message="the fetch counted")
    after = scrape(broker)
    assert len(records) == log_file_bytes(broker.data_dir, "out")
    for labels in ({"topic": "out"}, {"topic": ""}):
        assert (after.value("kafka_server_brokertopicmetrics_bytesout_total", **labels)
                - before.value("kafka_server_brokertopicmetrics_bytesout_total", **labels)) == len(records)


def test_a_long_polling_fetch_shows_in_the_purgatory_gauges_and_in_remote_time(broker):
    client = WireClient(broker.port)
    create(client, "poll")
    consumer = WireClient(broker.port, timeout=30)
    thread, result = background(lambda: consumer.request(ApiKey.FETCH, 12, fetch_body("poll", 0, 60_000)))

    def fetch_waiting():
        s = scrape(broker)
        return (s.value("kafka_server_delayedoperationpurgatory_numdelayedoperations",
                        delayedOperation="Fetch") >= 1
                and s.value("kafka_server_delayedoperationpurgatory_purgatorysize",
                            delayedOperation="Fetch") >= 1)

    wait_until(fetch_waiting, message="the waiting fetch in the Fetch purgatory gauges")
    produce(client, "poll", b"wake up")
    thread.join(15)
    assert result["value"].responses[0].partitions[0].records
    wait_until(lambda: scrape(broker).value("kafka_server_delayedoperationpurgatory_numdelayedoperations",
                                            delayedOperation="Fetch") == 0, message="the fetch to leave")

    # An empty topic: the fetch waits its whole max.wait.ms in the purgatory, which is remote time.
    before = scrape(broker)
    client.request(ApiKey.FETCH, 12, fetch_body("poll", 1, 300))
    count = "kafka_network_requestmetrics_remotetimems_count"
    wait_until(lambda: scrape(broker).value(count, request="FetchConsumer")
               - before.value(count, request="FetchConsumer") == 1, message="the fetch timed")
    after = scrape(broker)
    name = "kafka_network_requestmetrics_remotetimems_sum"
    assert after.value(name, request="FetchConsumer") - before.value(name, request="FetchConsumer") >= 290
    assert after.value(name, request="Fetch") - before.value(name, request="Fetch") >= 290


def test_error_codes_and_queue_gauges(broker):
    client = WireClient(broker.port)
    create(client, "errs")
    before = scrape(broker)
    response = client.request(ApiKey.FETCH, 12, fetch_body("errs", 5, 0))
    assert response.responses[0].partitions[0].error_code == Errors.OFFSET_OUT_OF_RANGE
    after = scrape(broker)
    name = "kafka_network_requestmetrics_errors_total"
    assert (after.value(name, request="Fetch", error="OFFSET_OUT_OF_RANGE")
            - before.value(name, request="Fetch", error="OFFSET_OUT_OF_RANGE")) == 1
    assert after.value("kafka_network_requestchannel_requestqueuesize") >= 0
    for idle in ("kafka_network_socketserver_networkprocessoravgidlepercent",
                 "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent"):
        assert (idle, frozenset()) in after.samples and 0.0 <= after.value(idle) <= 1.0


def dashboard_metric_names() -> set[str]:
    dashboard = json.loads((REPO / "docs" / "dashboards" / "kafka-teaching.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert exprs, "the dashboard has queries"
    # kafka_consumergroup_*: no broker's, but kafka-dashboard's lag exporter's (as kafka_exporter's). The
    # share groups' series need share consumers: lab 14's check runs them and looks for every one.
    return {name for expr in exprs for name in re.findall(r"\bkafka_[a-z_]+", expr)
            if not name.startswith("kafka_consumergroup_") and "share" not in name}


def test_every_metric_the_dashboard_queries_exists_on_a_live_broker(start_broker, tmp_path):
    # with tiered storage on, as Kafka registers its RemoteStorageMetrics only then (the tiered row)
    broker = start_broker(tmp_path / "data", tiered_broker(tmp_path / "remote"))
    client = WireClient(broker.port)
    # Quota series exist only once some quota is set: a default client-id quota no one reaches.
    quotas = [{"key": key, "value": 1e9, "remove": False}
              for key in ("producer_byte_rate", "consumer_byte_rate", "request_percentage")]
    response = client.request(ApiKey.ALTER_CLIENT_QUOTAS, 1, {"entries": [
        {"entity": [{"entity_type": "client-id", "entity_name": None}], "ops": quotas}],
        "validate_only": False})
    assert response.entries[0].error_code == Errors.NONE
    wait_until(lambda: broker.server.quota_managers.fetch.quotas_enabled,
               message="the quotas to reach the broker")
    # a client instance's client-metrics series (KIP-714) exist once it asked for its subscription
    client.request(ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, 0, {"client_instance_id": uuid.UUID(int=0)})
    create(client, "dash")
    produce(client, "dash", b"a record")
    client.request(ApiKey.FETCH, 12, fetch_body("dash", 0, 0))
    names = scrape(broker).names()
    missing = sorted(n for n in dashboard_metric_names() if n not in names)
    assert not missing, f"the dashboard queries metrics the broker does not export: {missing}"
