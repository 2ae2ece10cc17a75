"""A broker under load with Prometheus and kafka-dashboard beside it, and the pages in headless Chromium:
what tests/integration/test_dashboard_browser.py checks and `make dashboard-screenshots` photographs.

The load is every kind of traffic a panel draws: our producer and a transactional one, our consumer in
a classic group (its committed offsets make consumer lag), librdkafka in a KIP-848 group (the broker
computes its assignment) and in a share group (KIP-932: it accepts most records and releases some), a
client quota no one reaches (the quota series) and one our producer does (throttle time), an authoriser
that allows everything (its decisions), a metadata request for a missing topic (an error code to show), and
a librdkafka producer that a client-metrics subscription makes push its metrics (KIP-714), and a topic
with tiered storage (KIP-405, LocalTieredStorage) whose old segments a consumer reads back from remote
storage each round.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
import urllib.request
from contextlib import ExitStack, contextmanager
from pathlib import Path

from confluent_kafka import AcknowledgeType, Consumer, Producer, ShareConsumer, TopicPartition

from kafka.clients.admin import SET, AdminClient, NewTopic
from kafka.clients.consumer import KafkaConsumer
from kafka.clients.producer import KafkaProducer
from kafka.metadata.authorizer.standard_authorizer import STANDARD_AUTHORIZER
from kafka.protocol.api_keys import ApiKey
from kafka.tools.dashboard.dashboard_command import Dashboard, DashboardSettings
from kafka.tools.dashboard.panels import PAGES
from kafka.utils.free_port import free_port
from tests.helpers import InProcessBroker, wait_until
from tests.wire import WireClient

CHROMIUM = "/usr/bin/chromium"
BROKER_OVERRIDES = {"authorizer.class.name": STANDARD_AUTHORIZER, "allow.everyone.if.no.acl.found": "true",
                    "num.partitions": "3",
                    # tiered storage, its tasks every 200 ms: the dashboard's tiered storage row
                    "remote.log.storage.system.enable": "true",
                    "remote.log.storage.manager.class.name":
                        "org.apache.kafka.server.log.remote.storage.LocalTieredStorage",
                    "remote.log.metadata.manager.listener.name": "PLAINTEXT",
                    "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
                    "rlmm.config.remote.log.metadata.topic.num.partitions": "3",
                    "remote.log.manager.task.interval.ms": "200", "log.retention.check.interval.ms": "200"}
TOPIC, TXN_TOPIC, TIERED_TOPIC = "orders", "payments", "history"
# small segments, each deleted locally once copied: its early records are read from remote storage
TIERED_TOPIC_CONFIGS = {"remote.storage.enable": "true", "segment.bytes": "4096",
                        "local.retention.bytes": "1"}
# Every panel of the page is drawn: data-state "data", not "empty", "error", "no-broker" or "loading".
ALL_DRAWN = """() => [...document.querySelectorAll('.panel')].every((p) => p.dataset.state === 'data')"""
PANEL_STATES = """() => [...document.querySelectorAll('.panel')].map(
    (p) => [p.querySelector('h3').textContent, p.dataset.state, p.querySelector('.note').textContent])"""


class Load:
    """Traffic on a thread until stop(): each round produces, commits a transaction, consumes in both
    groups and asks for a missing topic. The rounds are paced by the stop event's wait, not by sleeps."""

    def __init__(self, bootstrap: str, port: int) -> None:
        self.bootstrap, self.port = bootstrap, port
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dashboard-load", daemon=True)
        self.rounds = 0
        self.error: BaseException | None = None

    def start(self) -> Load:
        with AdminClient({"bootstrap.servers": self.bootstrap}) as admin:
            admin.create_topics([NewTopic(TOPIC, 3, 1), NewTopic(TXN_TOPIC, 1, 1),
                                 NewTopic(TIERED_TOPIC, 1, 1, TIERED_TOPIC_CONFIGS)])
            quotas = {"producer_byte_rate": 1e9, "consumer_byte_rate": 1e9, "request_percentage": 1e6}
            # Everyone under a quota no one reaches (its series exist), and our producer held to 4 KiB/s,
            # a third of what it asks for: the throttle shows in its panels and in Produce's journey.
            admin.alter_client_quotas([({"client-id": None}, quotas),
                                       ({"client-id": "dash-producer"}, {"producer_byte_rate": 4096})])
            # every librdkafka producer pushes its metrics each second (the client-metrics panels)
            admin.incremental_alter_configs(16, "dash-producers", [
                ("metrics", SET, "org.apache.kafka.producer."), ("interval.ms", SET, "1000")])
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    def _run(self) -> None:
        try:
            with ExitStack() as stack:
                self._loop(stack)
        except BaseException as e:  # the test reports it: a load that died leaves panels empty
            self.error = e
            raise

    def _loop(self, stack: ExitStack) -> None:
        producer = stack.enter_context(KafkaProducer({"bootstrap.servers": self.bootstrap,
                                                      "client.id": "dash-producer",
                                                      "linger.ms": 5}))
        txn = stack.enter_context(KafkaProducer({"bootstrap.servers": self.bootstrap,
                                                 "transactional.id": "dash-txn"}))
        txn.init_transactions()
        consumer = stack.enter_context(KafkaConsumer({
            "bootstrap.servers": self.bootstrap, "group.id": "dash-readers", "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "max.poll.records": 20}))
        consumer.subscribe([TOPIC])
        kip848 = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "dash-kip848",
                           "group.protocol": "consumer", "auto.offset.reset": "earliest",
                           "enable.auto.commit": True})
        stack.callback(kip848.close)
        kip848.subscribe([TOPIC])
        share = ShareConsumer({"bootstrap.servers": self.bootstrap, "group.id": "dash-share",
                               "share.acknowledgement.mode": "explicit"})
        stack.callback(share.close)
        share.subscribe([TOPIC])
        wire = WireClient(self.port)
        stack.callback(wire.close)
        cold = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "dash-cold",
                         "enable.auto.commit": False})
        stack.callback(cold.close)
        pushing = Producer({"bootstrap.servers": self.bootstrap, "client.id": "dash-rdkafka"})
        stack.callback(pushing.flush, 10)
        while not self._stop.is_set():
            pushing.produce(TOPIC, b"pushed")
            pushing.poll(0)
            self._round(producer, txn, consumer, kip848, share, wire)
            self._read_history(producer, cold)
            self._stop.wait(0.2)

    def _round(self, producer, txn, consumer, kip848, share, wire) -> None:
        for i in range(50):
            producer.send(TOPIC, value=f"order {self.rounds}-{i}".encode() * 4)
        producer.flush(30)
        txn.begin_transaction()
        txn.send(TXN_TOPIC, value=b"payment")
        txn.commit_transaction()
        if list(consumer.poll(100)):  # 20 records a poll, of the 50 produced: the group falls behind
            consumer.commit()
        kip848.poll(0.1)
        for i, message in enumerate(share.poll(0.1)):  # every tenth handed back: it comes again
            if message.error() is None:
                share.acknowledge(message, AcknowledgeType.RELEASE if i % 10 == 9 else AcknowledgeType.ACCEPT)
        wire.request(ApiKey.METADATA, 9,
                     {"topics": [{"name": "no-such-topic"}], "allow_auto_topic_creation": False,
                                          "include_cluster_authorized_operations": False,
                                          "include_topic_authorized_operations": False})
        self.rounds += 1

    def _read_history(self, producer, cold) -> None:
        """A segment's worth of records to the tiered topic, and its first records read again from offset
        0, which is remote once the copier and local retention have run (a cold fetch)."""
        for i in range(20):
            producer.send(TIERED_TOPIC, value=f"event {self.rounds}-{i}".encode() * 10)
        producer.flush(30)
        cold.assign([TopicPartition(TIERED_TOPIC, 0, 0)])
        cold.consume(20, 0.5)


@contextmanager
def dashboard_under_load(tmp: Path, refresh_s: float = 1.0):
    """A broker (KRaft, broker and controller in one), its load, Prometheus and the pages, all on free
    ports; everything stopped on the way out."""
    broker = InProcessBroker(tmp / "broker", {**BROKER_OVERRIDES, "rsm.config.dir": str(tmp / "remote")})
    with ExitStack() as stack:
        stack.callback(broker.stop)
        metrics = broker.server.metrics_endpoint.url.removeprefix("http://")
        dashboard = Dashboard(DashboardSettings([metrics], broker.bootstrap, tmp / "dashboard",
                                                port=free_port(),
                                                prometheus_port=free_port(), refresh_s=refresh_s)).start()
        stack.callback(dashboard.stop)
        # The load starts once Prometheus has scraped the broker: the KIP-848 group's one assignment
        # must fall inside its scrapes for rate() to see the histogram move.
        wait_until(lambda: scraped(dashboard), timeout=60, interval=0.2,
                   message="prometheus to scrape the broker")
        load = Load(broker.bootstrap, broker.port).start()
        stack.callback(load.stop)
        yield dashboard, load


def scraped(dashboard: Dashboard) -> bool:
    """Prometheus has scraped every target at least once, and found it up."""
    query = urllib.parse.urlencode({"query": 'up{job="kafka-teaching"}'})
    with urllib.request.urlopen(f"{dashboard.prometheus.url}/api/v1/query?{query}", timeout=5) as response:
        result = json.load(response)["data"]["result"]
    return bool(result) and all(r["value"][1] == "1" for r in result)


@contextmanager
def chromium():
    """Debian's Chromium, headless, through Playwright (which downloads no browser of its own)."""
    from playwright.sync_api import sync_playwright  # a test dependency; the broker never needs it

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 900})
        finally:
            browser.close()


def wait_for_every_panel(page, url: str, timeout_s: float = 120.0) -> list:
    """Open a page and wait until every panel is drawn; on the deadline, fail naming each panel that is
    not."""
    page.goto(url)
    try:
        page.wait_for_function(ALL_DRAWN, timeout=timeout_s * 1000, polling=500)
    except Exception as e:
        undrawn = [s for s in page.evaluate(PANEL_STATES) if s[1] != "data"]
        raise AssertionError(f"{url}: panels not drawn after {timeout_s:.0f} s: {undrawn}") from e
    return page.evaluate(PANEL_STATES)


def page_urls(dashboard: Dashboard) -> dict[str, str]:
    return {page.slug: f"{dashboard.url}/{page.slug}?refresh=1" for page in PAGES}
