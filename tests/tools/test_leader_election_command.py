"""kafka-leader-election's command line: Kafka's flags, and errors that name them (the cluster test
runs a real election)."""

from __future__ import annotations

import json

import pytest

from kafka.tools.leader_election_command import _partitions, build_parser
from kafka.utils.topic_partition import TopicPartition


def parse(*argv: str):
    return build_parser().parse_args(["--bootstrap-server", "127.0.0.1:1", *argv])


def test_the_election_type_is_case_insensitive_and_one_of_kafkas():
    assert parse("--election-type", "preferred", "--all-topic-partitions").election_type == "PREFERRED"
    with pytest.raises(SystemExit):
        parse("--election-type", "fastest", "--all-topic-partitions")


def test_which_partitions(tmp_path):
    assert _partitions(parse("--election-type", "UNCLEAN", "--all-topic-partitions")) is None
    assert _partitions(parse("--election-type", "UNCLEAN", "--topic", "t", "--partition", "2")) == [
        TopicPartition("t", 2)]
    path = tmp_path / "parts.json"
    path.write_text(json.dumps({"partitions": [{"topic": "a", "partition": 0},
                                               {"topic": "b", "partition": 1}]}))
    assert _partitions(parse("--election-type", "PREFERRED", "--path-to-json-file", str(path))) == [
        TopicPartition("a", 0), TopicPartition("b", 1)]


def test_a_topic_without_a_partition_is_an_error_naming_the_flag():
    # (run() would print it as "ERROR --topic needs --partition" and exit 1; calling main() here would
    # point the process's logging at this test's captured stderr, which closes after it.)
    with pytest.raises(ValueError, match="--partition"):
        _partitions(parse("--election-type", "PREFERRED", "--topic", "t"))
