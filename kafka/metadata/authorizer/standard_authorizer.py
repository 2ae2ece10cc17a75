"""StandardAuthorizer: the ACL authoriser of a KRaft cluster (Kafka's
org.apache.kafka.metadata.authorizer.StandardAuthorizer).

Enabled by `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer`; with the
key empty there is no authoriser and every request is allowed, as in Kafka. Its ACLs are not its
own: they are the AclsImage of the metadata log, handed over by a publisher whenever a committed
batch changes them, so every broker and controller enforces the same set at the same offset. The
decision itself is StandardAuthorizerData's; this class swaps snapshots of it, reads the
configuration (`super.users`, `allow.everyone.if.no.acl.found`) and counts the decisions.

The brokers' own requests (replica fetches, registrations, heartbeats, AlterPartition, transaction
markers) are authorised like any other, as ClusterAction on the cluster: their principal must be a
super user or hold that ACL. On PLAINTEXT that principal is User:ANONYMOUS (docs/acls.md).
"""

from __future__ import annotations

import uuid

import structlog

from kafka.image.standard_acl import StandardAcl
from kafka.metadata.authorizer.standard_authorizer_data import ALLOWED, MatchingRule, StandardAuthorizerData
from kafka.metrics.authorizer_metrics import AuthorizerMetrics
from kafka.protocol.acl import SUPPORTED_OPERATIONS, AclBinding, AclBindingFilter, AclOperation, ResourceType

log = structlog.get_logger("kafka.authorizer.logger")

STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"


def authorizer_class_problem(name: str) -> str | None:
    """What is wrong with an `authorizer.class.name`: only Kafka's StandardAuthorizer (or none) is known."""
    return None if name in ("",
                            STANDARD_AUTHORIZER) else f"only {STANDARD_AUTHORIZER} (or empty) is known here"


def parse_super_users(value: str) -> frozenset[str]:
    """`super.users`: principals separated by ';', each Type:name."""
    users = [u.strip() for u in value.split(";") if u.strip()]
    for user in users:
        kind, colon, name = user.partition(":")
        if not colon or not kind or not name:
            raise ValueError(f"{user!r} is not a principal of the form Type:name")
    return frozenset(users)


class StandardAuthorizer:
    def __init__(self, super_users: frozenset[str] = frozenset(),
                 allow_everyone_if_no_acl_found: bool = False,
                 metrics: AuthorizerMetrics | None = None) -> None:
        self.data = StandardAuthorizerData({}, frozenset(super_users), allow_everyone_if_no_acl_found)
        self.metrics = metrics if metrics is not None else AuthorizerMetrics()
        log.info("authorizer configured", super_users=sorted(super_users),
                 default="allow" if allow_everyone_if_no_acl_found else "deny")

    @classmethod
    def from_config(cls, config, metrics: AuthorizerMetrics | None = None) -> StandardAuthorizer | None:
        """The authoriser `authorizer.class.name` names, or None when it is empty."""
        if not config.authorizer_class_name:
            return None
        return cls(config.super_users, config.allow_everyone_if_no_acl_found, metrics)

    # ------------------------------------------------------------------ the ACLs, from the metadata log
    def load_snapshot(self, acls: dict[uuid.UUID, StandardAcl]) -> None:
        """Every ACL of a new AclsImage: one new snapshot, swapped in whole (readers never lock)."""
        self.data = self.data.with_acls(dict(acls))

    def acl_count(self) -> int:
        return len(self.data.acls)

    def acls(self, acl_filter: AclBindingFilter) -> list[AclBinding]:
        return self.data.acls_matching(acl_filter)

    # ------------------------------------------------------------------ decisions
    def authorize(self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType,
                  name: str, log_if_denied: bool = True) -> MatchingRule:
        rule = self.data.authorize(principal, host, operation, resource_type, name)
        self.metrics.record(rule.result == ALLOWED)
        if rule.result != ALLOWED and log_if_denied:
            log.info("principal denied operation", principal=principal, host=host, operation=operation.name,
                     resource=f"{resource_type.name}:{name}", rule=rule.reason)
        return rule

    def authorize_by_resource_type(self, principal: str, host: str, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        allowed = self.data.authorize_by_resource_type(principal, host, operation, resource_type) == ALLOWED
        self.metrics.record(allowed)
        return allowed

    def authorized_operations(self, principal: str, host: str, resource_type: ResourceType, name: str) -> set:
        """The operations of this resource type the principal may do (for authorized_operations fields)."""
        data = self.data
        return {op for op in SUPPORTED_OPERATIONS[resource_type]
                if data.authorize(principal, host, op, resource_type, name).result == ALLOWED}
