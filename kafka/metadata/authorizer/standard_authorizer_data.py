"""StandardAuthorizerData: one immutable snapshot of what the authoriser knows (Kafka's
org.apache.kafka.metadata.authorizer.StandardAuthorizerData).

It holds the ACLs of one AclsImage, indexed for the question every request asks -- may this
principal, from this host, do this operation on this resource? -- plus `super.users` and the answer
when no ACL names the resource (`allow.everyone.if.no.acl.found`). The rules, as Kafka's:

- a super user may do anything;
- the ACLs that apply to a resource are the LITERAL ones with its name, the LITERAL ones named `*`,
  and the PREFIXED ones whose name begins its name; of those, the ones whose principal is the
  requester's (or `User:*`) and whose host is the client's address, `*`, or a CIDR holding the
  address (KIP-1107: 10.0.0.0/8, 2001:db8::/32);
- any matching DENY for the operation (or ALL) wins; otherwise a matching ALLOW decides, where an
  ALLOW of READ, WRITE, DELETE or ALTER also allows DESCRIBE and one of ALTER_CONFIGS allows
  DESCRIBE_CONFIGS (DENY implies nothing);
- no ACL at all on the resource: the default (denied unless allow.everyone.if.no.acl.found);
  ACLs on it, none for this requester: denied.

A new snapshot is built whenever the ACLs change, and swapped in whole, so a request thread never
sees half an update and never takes a lock.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from kafka.image.standard_acl import StandardAcl
from kafka.protocol.acl import (
    WILDCARD_HOST,
    WILDCARD_PRINCIPAL,
    WILDCARD_RESOURCE,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka.utils import cidr_utils

ALLOWED, DENIED = "ALLOWED", "DENIED"  # Kafka's AuthorizationResult

IMPLIES_DESCRIBE = frozenset({AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE,
                              AclOperation.DELETE,
                              AclOperation.ALTER})
IMPLIES_DESCRIBE_CONFIGS = frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS})
HARDCODED_NAME = "hardcode"  # authorize_by_resource_type's probe, as Kafka's Authorizer default does it


@dataclass(frozen=True)
class MatchingRule:
    """Why a decision was taken (Kafka's MatchingRule): the ACL that decided, or the rule that did."""

    result: str
    reason: str  # "SuperUser", "DefaultAllow", "DefaultDeny", "NoMatchingAllow", or the deciding ACL

    def __str__(self) -> str:
        return f"{self.result} by {self.reason}"


class StandardAuthorizerData:
    def __init__(self, acls: dict[uuid.UUID, StandardAcl], super_users: frozenset[str],
                 allow_if_no_acl: bool) -> None:
        self.acls = acls
        self.super_users = super_users
        self.default_result = ALLOWED if allow_if_no_acl else DENIED
        # (type, name) -> ACLs of LITERAL patterns; (type, prefix) -> ACLs of PREFIXED patterns
        self._literal: dict[tuple[ResourceType, str], list[StandardAcl]] = {}
        self._prefixed: dict[tuple[ResourceType, str], list[StandardAcl]] = {}
        self._prefix_lengths: dict[ResourceType, set[int]] = {}
        for acl in acls.values():
            key = (acl.resource_type, acl.resource_name)
            if acl.pattern_type == PatternType.PREFIXED:
                self._prefixed.setdefault(key, []).append(acl)
                self._prefix_lengths.setdefault(acl.resource_type, set()).add(len(acl.resource_name))
            else:
                self._literal.setdefault(key, []).append(acl)

    def with_acls(self, acls: dict[uuid.UUID, StandardAcl]) -> StandardAuthorizerData:
        return StandardAuthorizerData(acls, self.super_users, self.default_result == ALLOWED)

    # ------------------------------------------------------------------ authorize
    def authorize(self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType,
                  name: str) -> MatchingRule:
        if principal in self.super_users:
            return MatchingRule(ALLOWED, "SuperUser")
        principals = (principal, WILDCARD_PRINCIPAL)
        found_acls = False
        allow: StandardAcl | None = None
        for acl in self._applicable(resource_type, name):
            found_acls = True
            result = _find_result(operation, principals, host, acl)
            if result == DENIED:
                return MatchingRule(DENIED, _describe(acl))
            if result == ALLOWED:
                allow = acl
        if allow is not None:
            return MatchingRule(ALLOWED, _describe(allow))
        if not found_acls:
            return MatchingRule(self.default_result, "DefaultAllow" if self.default_result == ALLOWED
                                else "DefaultDeny")
        return MatchingRule(DENIED, "NoMatchingAllow")

    def _applicable(self, resource_type: ResourceType, name: str) -> Iterable[StandardAcl]:
        yield from self._literal.get((resource_type, name), ())
        if name != WILDCARD_RESOURCE:
            yield from self._literal.get((resource_type, WILDCARD_RESOURCE), ())
        for length in self._prefix_lengths.get(resource_type, ()):
            if length <= len(name):
                yield from self._prefixed.get((resource_type, name[:length]), ())

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> str:
        """May the principal do `operation` on SOME resource of this type (Kafka's
        Authorizer.authorizeByResourceType, KIP-679: idempotent producers need WRITE on any topic)?
        Allowed when an ALLOW for it exists that no DENY of the same or a shorter prefix cancels."""
        if self.authorize(principal, host, operation, resource_type, HARDCODED_NAME).result == ALLOWED:
            return ALLOWED
        deny_literal, deny_prefixed, allow_literal, allow_prefixed = set(), set(), set(), set()
        for acl in self.acls.values():
            if acl.resource_type != resource_type or not host_matches(acl.host, host) \
                    or acl.principal not in (principal, WILDCARD_PRINCIPAL) \
                    or acl.operation not in (operation, AclOperation.ALL):
                continue
            literal = acl.pattern_type == PatternType.LITERAL
            if acl.permission_type == AclPermissionType.DENY:
                if literal and acl.resource_name == WILDCARD_RESOURCE:
                    return DENIED
                (deny_literal if literal else deny_prefixed).add(acl.resource_name)
            elif acl.permission_type == AclPermissionType.ALLOW:
                if literal and acl.resource_name == WILDCARD_RESOURCE:
                    return ALLOWED
                (allow_literal if literal else allow_prefixed).add(acl.resource_name)
        for literal, names in ((True, allow_literal), (False, allow_prefixed)):
            for name in names:
                if literal and name in deny_literal:
                    continue
                if not any(name[:i] in deny_prefixed for i in range(1, len(name) + 1)):
                    return ALLOWED
        return DENIED

    # ------------------------------------------------------------------ describe
    def acls_matching(self, acl_filter: AclBindingFilter) -> list[AclBinding]:
        return sorted(b for b in (acl.to_binding() for acl in self.acls.values()) if acl_filter.matches(b))


def host_matches(acl_host: str, host: str) -> bool:
    """Does an ACL's host speak to a client at `host`: "*", the address itself, or (KIP-1107) a CIDR the
    address lies in (Kafka's findResult and authorizeByResourceType ask CidrUtils.isInRange)?"""
    return acl_host == WILDCARD_HOST or acl_host == host or cidr_utils.is_in_range(host, acl_host)


def _find_result(operation: AclOperation, principals: tuple[str, str], host: str,
                 acl: StandardAcl) -> str | None:
    """ALLOWED or DENIED if this ACL speaks to the request, None if it does not (Kafka's findResult).

    `principals` is the requester's principal and the wildcard `User:*`. The caller, `authorize`, asks
    this of every ACL on the resource (LITERAL, the `*` wildcard, PREFIXED) and lets a DENY win."""
    # BEGIN LAB 13 SOLUTION: principal (or User:*) and host (or *) must match; ALL matches any operation; an
    # ALLOW of READ, WRITE, DELETE or ALTER also matches DESCRIBE, of ALTER_CONFIGS DESCRIBE_CONFIGS; a DENY
    # matches only its own operation
    if acl.principal not in principals:
        return None
    if not host_matches(acl.host, host):
        return None
    if acl.operation != AclOperation.ALL:
        if acl.permission_type == AclPermissionType.ALLOW:
            if operation == AclOperation.DESCRIBE:
                if acl.operation not in IMPLIES_DESCRIBE:
                    return None
            elif operation == AclOperation.DESCRIBE_CONFIGS:
                if acl.operation not in IMPLIES_DESCRIBE_CONFIGS:
                    return None
            elif operation != acl.operation:
                return None
        elif operation != acl.operation:
            return None
    return ALLOWED if acl.permission_type == AclPermissionType.ALLOW else DENIED
    # END LAB 13 SOLUTION


def _describe(acl: StandardAcl) -> str:
    return (f"{acl.permission_type.name} {acl.operation.name} for {acl.principal}@{acl.host} on "
            f"{acl.resource_type.name}:{acl.pattern_type.name}:{acl.resource_name}")
