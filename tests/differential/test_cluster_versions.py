"""The newest versions of the cluster-describing APIs, asked of both brokers: Metadata v13 (a top-level
error code, KIP-1102), ApiVersions v5 (the cluster and node the client means to reach, KIP-1242) and
DescribeCluster v2 (fenced brokers, KIP-1073)."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.differential.oracle import Intended
from tests.differential.test_produce_fetch import create
from tests.helpers import unique_topic

ADDRESSES = (Intended("brokers*", "each broker's own address and node id"),
             Intended("controller_id", "node ids"))


def whoami(side) -> tuple[str, int]:
    """(cluster id, node id) of the broker behind this side, as Metadata tells them."""
    answer = side.request(ApiKey.METADATA, 13, {"topics": [], "allow_auto_topic_creation": False})
    return answer.cluster_id, answer.brokers[0].node_id


def test_metadata_v13_answers_with_a_top_level_error_code_of_none(pair):
    """Kafka sets v13's top-level error only when it fails a Metadata whole (getErrorResponse): a topic it
    does not know, or a name it cannot create, is still an error of that topic."""
    topic = unique_topic("v13")
    create(pair, topic, partitions=2)
    ours = pair.same(ApiKey.METADATA, 13, {"topics": [{"name": topic}, {"name": unique_topic("absent")},
                                                      {"name": "bad/name"}],
                                           "allow_auto_topic_creation": False,
                                           "include_topic_authorized_operations": True},
                     intended=ADDRESSES)
    assert ours.error_code == Errors.NONE
    pair.same(ApiKey.METADATA, 13, {"topics": None, "allow_auto_topic_creation": False,
                                    "include_topic_authorized_operations": False},
              intended=(*ADDRESSES, Intended("topics*", "each broker's own topics")))
