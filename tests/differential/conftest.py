"""Both brokers of the differential suite, started once per session with the same settings: ours as
`make run` starts it, Apache Kafka from its Maven artifacts (tests/jvm/apache_kafka.py)."""

from __future__ import annotations

import pytest

from tests.differential.oracle import Pair, Side
from tests.helpers import BrokerProcess
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

# The settings both brokers run with, where the scenario needs one that is not the default of either.
SHARED_SETTINGS = {"group.initial.rebalance.delay.ms": "0"}


@pytest.fixture(scope="session")
def apache_kafka(tmp_path_factory):
    try:
        kafka = ApacheKafka(tmp_path_factory.mktemp("apache-kafka"), overrides=SHARED_SETTINGS).start()
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    yield kafka
    kafka.stop()


@pytest.fixture(scope="session")
def our_broker(tmp_path_factory):
    broker = BrokerProcess(tmp_path_factory.mktemp("ours") / "data", {"node.id": "1", **SHARED_SETTINGS})
    yield broker
    broker.stop()


@pytest.fixture
def pair(our_broker, apache_kafka):
    both = Pair(Side("ours", our_broker.port), Side("apache", apache_kafka.nodes[0].port))
    yield both
    both.close()
