"""The newest versions of the cluster-describing APIs, asked of both brokers: Metadata v13 (a top-level
error code, KIP-1102), ApiVersions v5 (the cluster and node the client means to reach, KIP-1242) and
DescribeCluster v2 (fenced brokers, KIP-1073)."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.differential.oracle import Intended
from tests.differential.test_features import FEATURE_DIFFERENCES
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


def api_versions(cluster_id: str | None, node_id: int = -1) -> dict:
    return {"client_software_name": "oracle", "client_software_version": "1", "cluster_id": cluster_id,
            "node_id": node_id}


def test_api_versions_v5_refuses_a_client_that_meant_another_cluster_or_node(pair):
    """KIP-1242: the broker compares the cluster and node the client names with its own and answers
    REBOOTSTRAP_REQUIRED, without any API ranges, when either differs. No cluster id, no check; one of the
    two without the other, or a software name of other characters, is INVALID_REQUEST (isValid)."""
    me = {side.name: whoami(side) for side in pair.sides}
    ours = pair.same(ApiKey.API_VERSIONS, 5, lambda side: api_versions(*me[side.name]), intended=(
        Intended("api_keys*", "test_api_versions.py compares them, API by API"), *FEATURE_DIFFERENCES),
        volatile=("finalized_features_epoch",))
    assert ours.error_code == Errors.NONE and ours.api_keys
    pair.same(ApiKey.API_VERSIONS, 5, api_versions(None), intended=(
        Intended("api_keys*", "as above"), *FEATURE_DIFFERENCES), volatile=("finalized_features_epoch",))
    for body in (lambda side: api_versions("AAAAAAAAAAAAAAAAAAAAAA", me[side.name][1]),
                 lambda side: api_versions(me[side.name][0], me[side.name][1] + 100)):
        ours = pair.same(ApiKey.API_VERSIONS, 5, body)
        assert (ours.error_code, list(ours.api_keys)) == (Errors.REBOOTSTRAP_REQUIRED, [])
    for body in (lambda side: api_versions(me[side.name][0]), api_versions(None, 1),
                 {**api_versions(None), "client_software_name": "a b"}):
        ours = pair.same(ApiKey.API_VERSIONS, 5, body)
        assert (ours.error_code, list(ours.api_keys)) == (Errors.INVALID_REQUEST, [])


def test_describe_cluster_v2_marks_each_broker_fenced_or_not(pair):
    """KIP-1073: with IncludeFencedBrokers a fenced broker is listed too, each with IsFenced; both
    brokers here are unfenced, so the answers differ from v1's only by that field."""
    for include in (True, False):
        ours = pair.same(ApiKey.DESCRIBE_CLUSTER, 2, {"include_cluster_authorized_operations": True,
                                                     "endpoint_type": 1, "include_fenced_brokers": include},
                         intended=ADDRESSES)
        assert [b.is_fenced for b in ours.brokers] == [False]
    for endpoint_type in (2, 7):  # controllers, asked of a broker; a type no one knows
        pair.same(ApiKey.DESCRIBE_CLUSTER, 2, {"include_cluster_authorized_operations": False,
                                               "endpoint_type": endpoint_type,
                                               "include_fenced_brokers": True},
                  intended=(Intended("error_message", "the wording"),))
