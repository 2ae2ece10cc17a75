"""CIDR ACL hosts (KIP-1107) on a QuorumController over real records: refused below metadata.version
4.4-IV1 with Kafka's UNSUPPORTED_VERSION and words, accepted from it, a malformed CIDR refused with
INVALID_REQUEST and Commons Net's words, and the AclsImage a broker builds from the log carrying it."""

from __future__ import annotations

import pytest

from kafka.protocol.errors import Errors
from tests.controller.metadata_version_cluster import ClusterAt
from tests.controller.test_acl_control_manager import create, creation, image_of

BELOW, AT = 31, 32  # 4.4-IV0, 4.4-IV1


def test_a_cidr_host_needs_4_4_iv1():
    cluster = ClusterAt(BELOW)
    [result] = create(cluster, creation(host="10.0.0.0/8"))
    assert result["error_code"] == Errors.UNSUPPORTED_VERSION
    assert result["error_message"] == \
        "CIDR-based ACL host patterns require metadata version 4.4-IV1 or higher."
    assert cluster.active.acls.id_to_acl == {}
    # an address and "*" stay what they were
    results = create(cluster, creation(host="10.0.0.1"), creation())
    assert [r["error_code"] for r in results] == [Errors.NONE] * 2


def test_a_cidr_host_is_written_and_replayed_from_4_4_iv1():
    cluster = ClusterAt(AT)
    results = create(cluster, creation(host="10.0.0.0/8"), creation(host="2001:db8::/32"))
    assert [r["error_code"] for r in results] == [Errors.NONE] * 2
    hosts = sorted(acl.host for acl in image_of(cluster).acls.acls.values())
    assert hosts == ["10.0.0.0/8", "2001:db8::/32"]
    assert cluster.standby.acls.id_to_acl == cluster.active.acls.id_to_acl


@pytest.mark.parametrize("host, why", [
    ("10.0.0.0/33", "Value [33] not in range [0,32]"),
    ("10.0.0.256/8", "Value [256] not in range [0,255]"),
    ("10.0.0/8", "Could not parse [10.0.0/8]"),
    ("2001:db8::/129", "Could not parse [2001:db8::/129] - prefix length must be between 0 and 128"),
    ("2001:db8::/x", "Could not parse [2001:db8::/x] - invalid prefix length"),
    ("2001:zz8::/32", "Could not parse [2001:zz8::]"),
])
def test_a_malformed_cidr_is_an_invalid_request(host, why):
    [result] = create(ClusterAt(AT), creation(host=host))
    assert (result["error_code"], result["error_message"]) == \
        (Errors.INVALID_REQUEST, f"Invalid CIDR notation '{host}': {why}")


def test_an_empty_host_is_refused_at_every_level():
    [result] = create(ClusterAt(BELOW), creation(host=""))
    assert (result["error_code"], result["error_message"]) == \
        (Errors.INVALID_REQUEST, "Host pattern cannot be null or empty")
