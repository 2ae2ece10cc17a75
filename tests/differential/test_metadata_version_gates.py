"""The metadata.version levels after 4.1-IV1 asked of both brokers, each formatted at 4.2-IV1 (29) and
upgraded a level at a time with UpdateFeatures, as an operator would after a rolling upgrade:

    4.3-IV0 (30)  cordoned.log.dirs: refused below it (INVALID_CONFIG, Kafka's words), a value that is not
                  an entry of log.dirs refused at any level, "*" taken from it; DescribeLogDirs v5's
                  IsCordoned follows it
    4.4-IV1 (32)  CreateAcls with a CIDR host: UNSUPPORTED_VERSION below it, a malformed CIDR refused
                  alike (Commons Net's words), accepted from it
    4.4-IV2 (33)  UnregisterController: UNSUPPORTED_VERSION below it, CONTROLLER_ID_NOT_REGISTERED for an id
                  that never registered

Both run the StandardAuthorizer with allow.everyone.if.no.acl.found=true, so CreateAcls is served and
every request allowed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.server.kafka_config import parse_properties
from kafka.utils.free_port import free_port
from tests.differential.conftest import our_settings
from tests.differential.oracle import Intended, Pair, Side
from tests.differential.test_configs import BROKER, DELETE, SET, alter
from tests.differential.test_features import UPGRADE, update
from tests.helpers import REPO, BrokerProcess, wait_until
from tests.jvm import resolve
from tests.jvm.apache_kafka import ApacheKafka

RELEASE = "4.2-IV1"
SECURED = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
           "allow.everyone.if.no.acl.found": "true"}
TOPIC, ALLOW, READ, LITERAL = 2, 3, 3, 3


def format_apache_node(node, cluster_id: str) -> None:
    """Kafka's kafka-storage format, at RELEASE (ApacheKafkaNode.format formats at Kafka's default)."""
    done = subprocess.run(["java", "-cp", node.classpath, "kafka.tools.StorageTool", "format",
                           "-t", cluster_id, "-c", str(node.config_path), "--release-version", RELEASE],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def format_ours(data_dir, settings: dict[str, str]) -> None:
    """Our kafka-storage format, at RELEASE, on the directory BrokerProcess will start on."""
    props = {**parse_properties((REPO / "config" / "server.properties").read_text()), **settings,
             "log.dirs": str(data_dir)}
    config = data_dir.parent / "server.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    cluster_id = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "random-uuid"], cwd=REPO,
                                capture_output=True, text=True, timeout=60).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "format", "-t", cluster_id,
                           "-c", str(config), "--release-version", RELEASE], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    try:
        apache = ApacheKafka(tmp_path_factory.mktemp("apache-gates"), overrides=SECURED)
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    for node in apache.nodes:
        node.format = lambda cluster_id, node=node: format_apache_node(node, cluster_id)
    apache.start()
    port = free_port()
    settings = {**our_settings(port, free_port()), **SECURED}
    data_dir = tmp_path_factory.mktemp("ours-gates") / "data"
    data_dir.mkdir()
    format_ours(data_dir, settings)
    ours = BrokerProcess(data_dir, settings, port=port)
    both = Pair(Side("ours", ours.port), Side("apache", apache.nodes[0].port))
    try:
        yield both
    finally:
        both.close()
        ours.stop()
        apache.stop()


def metadata_version(side: Side) -> int:
    answer = side.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "oracle",
                                                   "client_software_version": "1"})
    return next(f.max_version_level for f in answer.finalized_features if f.name == "metadata.version")


def upgrade_to(pair: Pair, level: int) -> None:
    pair.same(ApiKey.UPDATE_FEATURES, 1, update(("metadata.version", level, UPGRADE), version=1,
                                                validate_only=False))
    for side in pair.sides:  # each broker serves the new level once its metadata cache has it
        wait_until(lambda s=side: metadata_version(s) == level,
                   message=f"{side.name} at metadata.version {level}")


def cidr_acl(host: str) -> dict:
    return {"creations": [{"resource_type": TOPIC, "resource_name": "gated",
                           "resource_pattern_type": LITERAL, "principal": "User:alice", "host": host,
                           "operation": READ, "permission_type": ALLOW}]}


def cordon(value: str | None) -> dict:
    op = SET if value is not None else DELETE
    return alter("1", ("cordoned.log.dirs", op, value), resource_type=BROKER)


# Each broker's log directory is its own path; DescribeLogDirs names it.
LOG_DIR = Intended("results[*].log_dir", "each broker's own directory")


def test_each_level_opens_its_gate_as_kafkas_does(pair):
    assert [metadata_version(side) for side in pair.sides] == [29, 29]
    # below 4.3-IV0: cordoned.log.dirs refused by the controller; a value not in log.dirs by the broker
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, cordon("*"))
    pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, cordon("/no/such/dir"))
    # below 4.4-IV1: a CIDR host refused; below 4.4-IV2: UnregisterController refused
    pair.same(ApiKey.CREATE_ACLS, 3, cidr_acl("10.0.0.0/8"))
    pair.same(ApiKey.UNREGISTER_CONTROLLER, 0, {"controller_id": 99})

    upgrade_to(pair, 30)  # 4.3-IV0
    try:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, cordon("*"))
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, cordon("*,/no/such/dir"))
        def cordoned(side: Side) -> bool:
            return side.request(ApiKey.DESCRIBE_LOG_DIRS, 5, {"topics": None}).results[0].is_cordoned

        wait_until(lambda: all(cordoned(side) for side in pair.sides),
                   message="both brokers to report a cordoned directory")
        pair.same(ApiKey.DESCRIBE_LOG_DIRS, 5, {"topics": None}, intended=(LOG_DIR,),
                  volatile=("total_bytes", "usable_bytes", "partition_size"))
    finally:
        pair.same(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, cordon(None))
    pair.same(ApiKey.CREATE_ACLS, 3, cidr_acl("10.0.0.0/8"))  # 4.3-IV0 is not enough

    upgrade_to(pair, 32)  # 4.4-IV1
    for host in ("10.0.0.0/33", "10.0.0.256/8", "10.0.0/8", "2001:db8::/129", "2001:db8::/x", ""):
        pair.same(ApiKey.CREATE_ACLS, 3, cidr_acl(host))
    pair.same(ApiKey.CREATE_ACLS, 3, cidr_acl("10.0.0.0/8"))
    pair.same(ApiKey.CREATE_ACLS, 3, cidr_acl("2001:db8::/32"))
    pair.same(ApiKey.UNREGISTER_CONTROLLER, 0, {"controller_id": 99})

    upgrade_to(pair, 33)  # 4.4-IV2
    pair.same(ApiKey.UNREGISTER_CONTROLLER, 0, {"controller_id": 99})
