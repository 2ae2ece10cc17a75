"""kafka-storage: random-uuid, format (refusing to reformat; --feature, --release-version), info,
version-mapping and feature-dependencies; and a quorum node that was never formatted refusing to start with
a message naming kafka-storage."""

from __future__ import annotations

import re
import subprocess
import sys

from kafka.server.bootstrap_directory import read_bootstrap_records
from kafka.server.meta_properties import read_meta_properties
from tests.helpers import REPO


def storage(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", *args], capture_output=True,
                          text=True,
                          cwd=REPO, timeout=60)


def properties(tmp_path, **props: str):
    path = tmp_path / "server.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def quorum_node(tmp_path, node_id: int = 1):
    return properties(tmp_path, **{
        "node.id": str(node_id), "process.roles": "broker,controller",
        "controller.quorum.voters": "1@127.0.0.1:19093,2@127.0.0.1:19095,3@127.0.0.1:19097",
        "controller.listener.names": "CONTROLLER",
        "listeners": "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:19093",
        "log.dirs": str(tmp_path / "a") + "," + str(tmp_path / "b"),
        "metadata.log.dir": str(tmp_path / "meta")})


def test_random_uuid_is_a_kafka_uuid():
    out = storage("random-uuid")
    assert out.returncode == 0
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}\n", out.stdout)
    assert storage("random-uuid").stdout != out.stdout


def test_format_writes_meta_properties_everywhere_and_refuses_to_reformat(tmp_path):
    config = quorum_node(tmp_path, node_id=2)
    cluster_id = storage("random-uuid").stdout.strip()
    out = storage("format", "-t", cluster_id, "-c", str(config))
    assert out.returncode == 0, out.stderr
    assert "Formatting metadata directory" in out.stdout
    for d in ("a", "b", "meta"):
        props = read_meta_properties(str(tmp_path / d))
        assert (props.cluster_id, props.node_id, len(props.directory_id)) == (cluster_id, 2, 22)

    again = storage("format", "-t", storage("random-uuid").stdout.strip(), "-c", str(config))
    assert again.returncode == 1
    assert "is already formatted. Use --ignore-formatted" in again.stderr
    assert read_meta_properties(str(tmp_path / "a")).cluster_id == cluster_id
    assert storage("format", "-t", cluster_id, "-c", str(config), "--ignore-formatted").returncode == 0

    info = storage("info", "-c", str(config))
    assert info.returncode == 0 and f"cluster.id={cluster_id}" in info.stdout


def test_format_refuses_a_cluster_id_that_is_not_a_uuid(tmp_path):
    out = storage("format", "-t", "not-a-uuid", "-c", str(quorum_node(tmp_path)))
    assert out.returncode == 1 and "kafka-storage random-uuid" in out.stderr


def test_an_unformatted_quorum_node_does_not_start(tmp_path):
    config = quorum_node(tmp_path)
    out = subprocess.run([sys.executable, "-m", "kafka", str(config)], capture_output=True, text=True,
                         cwd=REPO,
                         timeout=60)
    assert out.returncode == 1
    assert "is not formatted" in out.stderr and "kafka-storage format" in out.stderr


def test_a_node_refuses_directories_of_another_node(tmp_path):
    config = quorum_node(tmp_path, node_id=3)
    assert storage("format", "-t", storage("random-uuid").stdout.strip(), "-c", str(config)).returncode == 0
    config.write_text(config.read_text().replace("node.id=3", "node.id=1"))
    out = subprocess.run([sys.executable, "-m", "kafka", str(config)], capture_output=True, text=True,
                         cwd=REPO,
                         timeout=60)
    assert out.returncode == 1 and "is for node.id 3" in out.stderr


def test_format_feature_puts_a_level_in_bootstrap_checkpoint_and_refuses_unknown_ones(tmp_path):
    """Kafka's words: an unknown feature, a level Kafka does not define, no '=' (every level Kafka 4.4
    defines is built here, docs/features.md)."""
    config = quorum_node(tmp_path)
    cluster_id = storage("random-uuid").stdout.strip()
    for bad, why in (("streams.version=2", "No feature:streams.version with feature level 2"),
                     ("foo.version=1", "Unsupported feature: foo.version. Supported features are: "
                                       "eligible.leader.replicas.version, group.version, kraft.version, "
                                       "share.version, streams.version, transaction.version"),
                     ("share.version=5", "No feature:share.version with feature level 5"),
                     ("metadata.version=5",
                      "No MetadataVersion with feature level 5. Valid feature levels are "
                                            "from 7 to 33."),
                     ("kraft.version=1",
                      "Cannot set kraft.version to 1 unless controller.quorum.voters is empty"),
                     ("share.version",
                      "Can't parse feature=level string share.version: equals sign not found.")):
        refused = storage("format", "-t", cluster_id, "-c", str(config), "--feature", bad)
        assert refused.returncode == 1 and why in refused.stderr, refused.stderr
    formatted = storage("format", "-t", cluster_id, "-c", str(config), "--feature", "share.version=0")
    assert formatted.returncode == 0, formatted.stderr
    assert [(r.data.name, r.data.feature_level) for r in read_bootstrap_records(str(tmp_path / "meta"))] == [
        ("share.version", 0)]
    # Kafka's line: metadata.version, then each feature above 0 by name
    line = formatted.stdout.splitlines()[0]
    assert line.startswith("Bootstrap metadata: "
                           "BootstrapMetadata(records=[ApiMessageAndVersion(FeatureLevelRecord("
                           "name='metadata.version', featureLevel=33) at version 0), ApiMessageAndVersion("
                           "FeatureLevelRecord(name='eligible.leader.replicas.version', featureLevel=1) at "
                           "version 0), "
                           "ApiMessageAndVersion(FeatureLevelRecord(name='group.version', featureLevel=1) at "
                           "version 0)")
    assert "share.version" not in line and line.endswith("], metadataVersionLevel=33, source=format command)")


def test_format_release_version_sets_every_feature_as_kafkas_release_does(tmp_path):
    """--release-version 4.0: metadata.version 25 and Kafka 4.0's levels (no eligible leader replicas yet:
    4.1-IV0 brought them, nor streams groups: 4.2-IV1), transaction.version lowered to what is built (0); a
    release this broker does not run is refused, listing those it does."""
    config = quorum_node(tmp_path)
    cluster_id = storage("random-uuid").stdout.strip()
    refused = storage("format", "-t", cluster_id, "-c", str(config), "--release-version", "4.5")
    assert refused.returncode == 1 and refused.stderr.startswith(
        "Unknown metadata.version '4.5'. Supported metadata.version are: 3.3-IV3, 3.4-IV0,")
    assert refused.stderr.strip().endswith("4.4-IV0, 4.4-IV1, 4.4-IV2")
    formatted = storage("format", "-t", cluster_id, "-c", str(config), "--release-version", "4.0")
    assert formatted.returncode == 0, formatted.stderr
    assert "with metadata.version 4.0-IV3." in formatted.stdout
    assert [(r.data.name, r.data.feature_level) for r in read_bootstrap_records(str(tmp_path / "meta"))] == [
        ("metadata.version", 25), ("eligible.leader.replicas.version", 0), ("share.version", 0),
        ("streams.version", 0)]


def test_version_mapping_and_feature_dependencies_print_kafkas_table():
    assert storage("version-mapping", "--release-version", "3.9").stdout == (
        "metadata.version=21 (3.9)\nkraft.version=1\ntransaction.version=0\ngroup.version=0\n"
        "eligible.leader.replicas.version=0\nshare.version=0\nstreams.version=0\n")
    assert storage("feature-dependencies", "--feature", "eligible.leader.replicas.version=1").stdout == (
        "eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n")
    unknown = storage("feature-dependencies", "--feature", "foo=1")
    assert (unknown.returncode, unknown.stderr) == (1, "Unknown feature: foo\n")
