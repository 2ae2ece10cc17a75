"""CidrUtils: an ACL host written in CIDR notation (10.0.0.0/8, 2001:db8::/32) and whether a client's
address lies in it (Kafka's org.apache.kafka.server.authorizer.internals.CidrUtils, KIP-1107's CIDR ACLs).

Kafka parses a CIDR with Apache Commons Net's SubnetUtils (IPv4) and SubnetUtils6 (IPv6: the text has a
colon), so a malformed one is refused with their words ("Could not parse [...]", "Value [33] not in
range [0,32]"); AclControlManager puts those words in its INVALID_REQUEST. The network part may have host
bits set (10.1.2.3/8 is 10.0.0.0/8), and both ends of the range are in it (Kafka asks SubnetUtils for an
inclusive host count). A client address that cannot be parsed, or is of the other family, is not in range.
"""

from __future__ import annotations

import ipaddress
import re

_IPV4_CIDR = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})/(\d{1,2})")
_IPV4_ADDRESS = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")
_PARSE_FAIL = "Could not parse [{}]"


def is_cidr(host: str | None) -> bool:
    """An ACL host is a CIDR when it holds a slash (Kafka's test; "*" and a plain address hold none)."""
    return host is not None and "/" in host


def _is_ipv6(text: str) -> bool:
    return ":" in text


def _range_check(value: int, begin: int, end: int) -> int:
    if begin <= value <= end:
        return value
    raise ValueError(f"Value [{value}] not in range [{begin},{end}]")


def _ipv4_network(cidr: str) -> ipaddress.IPv4Network:
    """SubnetUtils(cidr): four octets of 0-255 and a prefix of 0-32, each checked in that order."""
    match = _IPV4_CIDR.fullmatch(cidr)
    if match is None:
        raise ValueError(_PARSE_FAIL.format(cidr))
    octets = [_range_check(int(match.group(i)), 0, 255) for i in range(1, 5)]
    prefix = _range_check(int(match.group(5)), 0, 32)
    return ipaddress.IPv4Network((".".join(map(str, octets)), prefix), strict=False)


def _ipv6_address(text: str) -> ipaddress.IPv6Address:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(_PARSE_FAIL.format(text)) from None
    if not isinstance(address, ipaddress.IPv6Address) or address.ipv4_mapped is not None:
        # Java's InetAddress reads ::ffff:a.b.c.d as an IPv4 address
        raise ValueError(_PARSE_FAIL.format(text) + " - not an IPv6 address")
    return address


def _ipv6_network(cidr: str) -> ipaddress.IPv6Network:
    """SubnetUtils6(cidr): an address, a slash and a prefix of 0-128."""
    address, slash, prefix_text = cidr.partition("/")
    if not slash:
        raise ValueError(_PARSE_FAIL.format(cidr) + " - missing prefix length")
    try:
        prefix = int(prefix_text)
    except ValueError:
        raise ValueError(_PARSE_FAIL.format(cidr) + " - invalid prefix length") from None
    if not 0 <= prefix <= 128:
        raise ValueError(_PARSE_FAIL.format(cidr) + " - prefix length must be between 0 and 128")
    return ipaddress.IPv6Network((_ipv6_address(address), prefix), strict=False)


def validate(cidr: str) -> None:
    """Kafka's CidrUtils.validate: raises ValueError (Java's IllegalArgumentException) with Commons Net's
    words when `cidr` is not a CIDR of its family."""
    _ipv6_network(cidr) if _is_ipv6(cidr) else _ipv4_network(cidr)


def is_in_range(address: str, cidr: str | None) -> bool:
    """Kafka's CidrUtils.isInRange: does the client address lie in the CIDR (both ends included)?"""
    if not is_cidr(cidr):
        return False
    try:
        if _is_ipv6(cidr):
            return _ipv6_address(address) in _ipv6_network(cidr)
        if _IPV4_ADDRESS.fullmatch(address) is None:
            return False
        octets = [_range_check(int(o), 0, 255) for o in address.split(".")]
        return ipaddress.IPv4Address(".".join(map(str, octets))) in _ipv4_network(cidr)
    except ValueError:
        return False
