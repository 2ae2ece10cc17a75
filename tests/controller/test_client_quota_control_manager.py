"""AlterClientQuotas on the controller (Kafka's ClientQuotaControlManagerTest, in spirit): Kafka's
entity and key checks, one ClientQuotaRecord per change, a standby and the image that agree, and
DescribeClientQuotas' filters on the image."""

from __future__ import annotations

import pytest

from kafka.image.client_quotas_image import (
    MATCH_TYPE_DEFAULT,
    MATCH_TYPE_EXACT,
    MATCH_TYPE_SPECIFIED,
    InvalidQuotaFilterError,
)
from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import deserialize, serialize
from tests.controller.test_quorum_controller import Cluster, record


def entry(entity: dict, ops: dict) -> object:
    return record(entity=[record(entity_type=t, entity_name=n) for t, n in entity.items()],
                  ops=[record(key=k, value=0.0 if v is None else v, remove=v is None)
                       for k, v in ops.items()])


def alter(cluster: Cluster, *entries, validate_only: bool = False) -> list[tuple[int, str | None]]:
    response = cluster.call(cluster.active.alter_client_quotas(record(entries=list(entries),
                                                                      validate_only=validate_only)))
    return [(e["error_code"], e["error_message"]) for e in response["entries"]]


def test_quotas_are_written_replayed_by_a_standby_and_removed():
    cluster = Cluster()
    assert alter(cluster, entry({"client-id": "noisy"}, {"producer_byte_rate": 1048576.0}),
                 entry({"user": None}, {"consumer_byte_rate": 2048.0, "request_percentage": 12.5})) == [
        (Errors.NONE, None), (Errors.NONE, None)]
    expected = {(("client-id", "noisy"),): {"producer_byte_rate": 1048576.0},
                (("user", None),): {"consumer_byte_rate": 2048.0, "request_percentage": 12.5}}
    assert cluster.active.client_quotas.client_quota_data == expected
    assert cluster.standby.client_quotas.client_quota_data == expected
    written = len(cluster.raft.entries)
    assert alter(cluster,
                 entry({"client-id": "noisy"}, {"producer_byte_rate": 1048576.0})) == [(Errors.NONE, None)]
    assert len(cluster.raft.entries) == written  # unchanged: no record
    alter(cluster, entry({"user": None}, {"consumer_byte_rate": None}))
    assert cluster.standby.client_quotas.client_quota_data[(("user", None),)] == {"request_percentage": 12.5}
    assert alter(cluster, entry({"client-id": "x"}, {"producer_byte_rate": 5.0}), validate_only=True) == [
        (Errors.NONE, None)]
    assert (("client-id", "x"),) not in cluster.active.client_quotas.client_quota_data


@pytest.mark.parametrize(("entity", "ops", "message"), [
    ({}, {"producer_byte_rate": 1.0}, "Invalid empty client quota entity"),
    ({"group": "g"}, {"producer_byte_rate": 1.0}, "Unhandled client quota entity type: group"),
    ({"client-id": ""}, {"producer_byte_rate": 1.0}, "Empty client-id not supported"),
    ({"ip": "127.0.0.1", "user": "u"}, {"producer_byte_rate": 1.0}, "Invalid empty client quota entity"),
    ({"ip": "not-an-ip"}, {"connection_creation_rate": 1.0}, "is not a valid IP"),
    ({"client-id": "c"}, {"retention.ms": 1.0}, "Invalid configuration key retention.ms"),
    ({"client-id": "c"}, {"connection_creation_rate": 1.0}, "Invalid configuration key"),
    ({"client-id": "c"}, {"producer_byte_rate": 1.5}, "producer_byte_rate must be a Long value"),
    ({"client-id": "c"}, {"producer_byte_rate": -1.0}, "must be positive"),
])
def test_bad_entries_get_invalid_request_and_write_nothing(entity, ops, message):
    cluster = Cluster()
    before = len(cluster.raft.entries)
    [(error, text)] = alter(cluster, entry(entity, ops),
                            entry({"client-id": "ok"}, {"request_percentage": 0.5}))[:1]
    assert error == Errors.INVALID_REQUEST and message in text
    assert cluster.active.client_quotas.client_quota_data == {(("client-id",
                                                                "ok"),): {"request_percentage": 0.5}}
    assert len(cluster.raft.entries) == before + 1  # the good entry's record only


def image_of(cluster: Cluster):
    delta = MetadataDelta(EMPTY_IMAGE)
    for value in cluster.raft.entries:
        delta.replay(deserialize(value))
    return delta.apply(MetadataProvenance(len(cluster.raft.entries) - 1, 1, 0))


def test_the_image_describes_as_kafka_filters():
    cluster = Cluster()
    alter(cluster, entry({"client-id": "a"}, {"producer_byte_rate": 1.0}),
          entry({"client-id": None}, {"producer_byte_rate": 2.0}),
          entry({"user": "u", "client-id": "a"}, {"producer_byte_rate": 3.0}),
          entry({"user": None}, {"request_percentage": 4.0}),
          entry({"ip": "10.0.0.1"}, {"connection_creation_rate": 5.0}))
    image = image_of(cluster).client_quotas
    assert image == cluster.active.committed_image.client_quotas

    def describe(components, strict=False):
        return {e for e, _ in image.describe(components, strict)}

    assert describe([("client-id", MATCH_TYPE_EXACT, "a")], strict=True) == {(("client-id", "a"),)}
    assert describe([("client-id", MATCH_TYPE_EXACT, "a")]) == {(("client-id", "a"),),
                                                                (("client-id", "a"), ("user", "u"))}
    assert describe([("client-id", MATCH_TYPE_DEFAULT, None)]) == {(("client-id", None),)}
    assert describe([("client-id", MATCH_TYPE_SPECIFIED, None)], strict=True) == {
        (("client-id", None),), (("client-id", "a"),)}
    assert describe([("user", MATCH_TYPE_SPECIFIED, None), ("client-id", MATCH_TYPE_SPECIFIED, None)],
                    strict=True) == {
        (("client-id", "a"), ("user", "u"))}
    assert len(describe([])) == 5 and describe([], strict=True) == set()
    assert image.describe([("ip", MATCH_TYPE_EXACT, "10.0.0.1")], True) == [
        ((("ip", "10.0.0.1"),), {"connection_creation_rate": 5.0})]
    for components, error in (([("user", MATCH_TYPE_EXACT, None)], Errors.INVALID_REQUEST),
                              ([("user", 1, None), ("user", 2, None)], Errors.INVALID_REQUEST),
                              ([("ip", 2, None), ("user", 2, None)], Errors.INVALID_REQUEST),
                              ([("user", 7, None)], Errors.INVALID_REQUEST),
                              ([("group", 2, None)], Errors.UNSUPPORTED_VERSION)):
        with pytest.raises(InvalidQuotaFilterError) as raised:
            image.describe(components, False)
        assert raised.value.error == error
    # a snapshot of the image rebuilds it
    rebuilt = MetadataDelta(EMPTY_IMAGE)
    for r in image_of(cluster).write():
        rebuilt.replay(deserialize(serialize(r)))
    assert rebuilt.apply(MetadataProvenance(0, 1, 0)).client_quotas == image
