"""CidrUtils (Kafka's CidrUtils over Commons Net's SubnetUtils and SubnetUtils6): which addresses a CIDR
holds, both ends included, host bits in the network part ignored, the other family never."""

from __future__ import annotations

import pytest

from kafka.utils.cidr_utils import is_cidr, is_in_range, validate


@pytest.mark.parametrize("address, cidr, inside", [
    ("10.1.2.3", "10.0.0.0/8", True),
    ("10.0.0.0", "10.0.0.0/8", True),  # the network address: inclusive host count
    ("10.255.255.255", "10.0.0.0/8", True),  # the broadcast address too
    ("11.0.0.0", "10.0.0.0/8", False),
    ("10.9.9.9", "10.1.2.3/8", True),  # host bits set in the CIDR are ignored
    ("192.168.1.7", "192.168.1.7/32", True),
    ("192.168.1.8", "192.168.1.7/32", False),
    ("1.2.3.4", "0.0.0.0/0", True),
    ("2001:db8::1", "2001:db8::/32", True),
    ("2001:db9::1", "2001:db8::/32", False),
    ("::1", "::1/128", True),
    ("10.0.0.1", "::/0", False),  # an IPv4 client never matches an IPv6 CIDR
    ("2001:db8::1", "0.0.0.0/0", False),  # nor the other way round
    ("not-an-address", "10.0.0.0/8", False),
    ("10.0.0.1", "10.0.0.1", False),  # no slash: not a CIDR (the authorizer compares it as a string)
])
def test_is_in_range(address, cidr, inside):
    assert is_in_range(address, cidr) is inside


def test_is_cidr_is_a_slash():
    assert is_cidr("10.0.0.0/8") and is_cidr("::/0")
    assert not is_cidr("*") and not is_cidr("10.0.0.1") and not is_cidr(None)


def test_validate_accepts_both_families():
    validate("10.0.0.0/8")
    validate("2001:db8::/32")
    with pytest.raises(ValueError, match=r"Could not parse \[::ffff:1.2.3.4\] - not an IPv6 address"):
        validate("::ffff:1.2.3.4/96")
