"""kafka-configs on brokers' dynamic configs (KIP-226), ours beside Kafka 4.4's own (ConfigCommand from its
jars), on one broker process: the same --alter of one broker and of the cluster default (--entity-default)
prints the same, the --describe of each level afterwards too, and a refused change fails both with Kafka's
message. The two run one after the other here, not at the same time as tests/jvm/test_tools_side_by_side.py
runs its readers: these cases change what the next one reads."""

from __future__ import annotations

import pytest

from tests.helpers import BrokerProcess
from tests.jvm.jvm import classpath, run_java
from tests.jvm.test_kafka_tools import CONFIGS
from tests.jvm.test_tools_side_by_side import run_ours

pytestmark = pytest.mark.timeout(300)
BROKERS = ("--entity-type", "brokers")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    broker = BrokerProcess(tmp_path_factory.mktemp("configs-broker") / "data")
    cp = classpath("tools")

    def run(*args: str) -> tuple[str, str]:
        """Ours, then Kafka's, with the same arguments: each one's standard output, or its exit status and
        the last line of its standard error."""
        ours = run_ours(broker.bootstrap, CONFIGS, *args)
        done = run_java(cp, CONFIGS, "--bootstrap-server", broker.bootstrap, *args, timeout=90)
        theirs = done.stdout if done.returncode == 0 else \
            f"exited {done.returncode}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}"
        return ours, theirs

    try:
        yield run
    finally:
        broker.stop()


def test_alter_and_describe_both_levels(both):
    cluster_default = "log.retention.ms=3600000,max.connections.per.ip=50"
    for alteration in (("--entity-default", "--add-config", cluster_default),
                       ("--entity-name", "1", "--add-config", "num.io.threads=10,log.retention.ms=7200000"),
                       ("--entity-name", "1", "--delete-config", "log.retention.ms")):
        ours, theirs = both(*BROKERS, "--alter", *alteration)
        assert ours == theirs, alteration
    for description in (("--entity-default", "--describe"), ("--entity-name", "1", "--describe"),
                        ("--describe",), ("--entity-name", "1", "--describe", "--all")):
        ours, theirs = both(*BROKERS, *description)
        print("---- ours\n" + ours + "---- kafka\n" + theirs)
        assert ours.splitlines() == theirs.splitlines(), description
    for unset in ("num.io.threads", "log.cleaner.threads"):  # the second was never set: no error either
        ours, theirs = both(*BROKERS, "--alter", "--entity-name", "1", "--delete-config", unset)
        assert ours == theirs == "Completed updating config for broker 1.\n"


def test_refused_alterations_fail_both_with_kafkas_message(both):
    for alteration, message in (
            (("--entity-name", "1", "--add-config", "log.dirs=/elsewhere"),
             "Cannot update these configs dynamically: [log.dirs]"),
            (("--entity-name", "1", "--add-config", "num.io.threads=100"),
             "value should not be greater than double the current value 8"),
            (("--entity-default", "--add-config", "listener.name.plaintext.ssl.keystore.location=/k.p12"),
             "broker id must be specified: [listener.name.plaintext.ssl.keystore.location]"),
            (("--entity-name", "x", "--add-config", "num.io.threads=9"),
             "The entity name for brokers must be a valid integer broker id, but it is: x")):
        ours, theirs = both(*BROKERS, "--alter", *alteration)
        assert ours.startswith("ours exited 1") and theirs.startswith("exited 1"), (ours, theirs)
        assert message in ours and message in theirs, (ours, theirs)
