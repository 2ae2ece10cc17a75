"""Both brokers of the differential suite, started once per session with the same settings: ours as
`make run` starts it given also the keys of Kafka's tarball server.properties, Apache Kafka from its Maven
artifacts (tests/jvm/apache_kafka.py)."""

from __future__ import annotations

import pytest

from kafka.utils.free_port import free_port
from tests.differential.oracle import Pair, Side
from tests.helpers import BrokerProcess
from tests.jvm import resolve
from tests.jvm.apache_kafka import SERVER_PROPERTIES, ApacheKafka

# The settings both brokers run with, where the scenario needs one that is not the default of either;
# queued.max.requests because our config/server.properties sets it (Kafka's leaves it out).
SHARED_SETTINGS = {"group.initial.rebalance.delay.ms": "0", "queued.max.requests": "500"}


@pytest.fixture(scope="session")
def apache_kafka(tmp_path_factory):
    try:
        kafka = ApacheKafka(tmp_path_factory.mktemp("apache-kafka"), overrides=SHARED_SETTINGS).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    yield kafka
    kafka.stop()


def our_settings(port: int, controller: int) -> dict[str, str]:
    """Our broker's settings on these two ports: Apache Kafka's server.properties as well, and its own
    controller listener and quorum of one, so that DescribeConfigs finds each broker key set (or not)
    alike on both (test_configs.py). A restart on the same data must keep both ports."""
    return {**SERVER_PROPERTIES, "node.id": "1", "controller.quorum.voters": f"1@127.0.0.1:{controller}",
            "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
            **SHARED_SETTINGS}


@pytest.fixture(scope="session")
def our_broker(tmp_path_factory):
    port = free_port()
    broker = BrokerProcess(tmp_path_factory.mktemp("ours") / "data", our_settings(port, free_port()),
                           port=port)
    yield broker
    broker.stop()


@pytest.fixture
def pair(our_broker, apache_kafka):
    both = Pair(Side("ours", our_broker.port), Side("apache", apache_kafka.nodes[0].port))
    yield both
    both.close()
