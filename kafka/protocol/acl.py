"""ACL vocabulary (Kafka's org.apache.kafka.common.acl: AclOperation, AclPermissionType, AccessControlEntry,
AclBinding, AclBindingFilter; and org.apache.kafka.common.resource: ResourceType, PatternType,
ResourcePattern).

An ACL binds a resource pattern (a topic, group, transactional id or the cluster, named LITERALly or
by a PREFIX; the literal name ``*`` is every resource of its type) to an entry: a principal, the host
it connects from, an operation and whether that is allowed or denied. The codes are the wire's
(CreateAcls, DescribeAcls, DeleteAcls and the metadata log's AccessControlEntryRecord); a filter uses
ANY (and, for pattern types, MATCH) where a binding has a value, and None for "any name".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

WILDCARD_RESOURCE = "*"  # a LITERAL pattern named * matches every resource of its type
WILDCARD_HOST = "*"
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"  # the one name of the CLUSTER resource


class ResourceType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


def _enum_or_unknown(enum, code: int):
    try:
        return enum(code)
    except ValueError:
        return enum.UNKNOWN


# Kafka's AclEntry.supportedOperations: the operations that mean something for each resource type,
# the bits of an authorized_operations field.
SUPPORTED_OPERATIONS: dict[ResourceType, tuple[AclOperation, ...]] = {
    ResourceType.TOPIC: (AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
                         AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS,
                         AclOperation.ALTER_CONFIGS),
    ResourceType.GROUP: (AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE,
                         AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS),  # group configs
    ResourceType.CLUSTER: (AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                           AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER,
                           AclOperation.DESCRIBE),
    ResourceType.TRANSACTIONAL_ID: (AclOperation.DESCRIBE, AclOperation.WRITE),
    ResourceType.DELEGATION_TOKEN: (AclOperation.DESCRIBE,),
    ResourceType.USER: (AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS),
}


def to_32bit_field(operations) -> int:
    """Kafka's Utils.to32BitField: one bit per operation code."""
    field = 0
    for op in operations:
        field |= 1 << int(op)
    return field


@dataclass(frozen=True, order=True)
class ResourcePattern:
    resource_type: ResourceType
    name: str
    pattern_type: PatternType

    def __str__(self) -> str:
        return (f"ResourcePattern(resourceType={self.resource_type.name}, name={self.name}, "
                f"patternType={self.pattern_type.name})")


@dataclass(frozen=True, order=True)
class AccessControlEntry:
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    def __str__(self) -> str:
        return (f"(principal={self.principal}, host={self.host}, operation={self.operation.name}, "
                f"permissionType={self.permission_type.name})")


@dataclass(frozen=True, order=True)
class AclBinding:
    pattern: ResourcePattern
    entry: AccessControlEntry

    @classmethod
    def of(cls, resource_type: int, name: str, pattern_type: int, principal: str, host: str, operation: int,
           permission_type: int) -> AclBinding:
        return cls(ResourcePattern(_enum_or_unknown(ResourceType, resource_type), name,
                                   _enum_or_unknown(PatternType, pattern_type)),
                   AccessControlEntry(principal, host, _enum_or_unknown(AclOperation, operation),
                                      _enum_or_unknown(AclPermissionType, permission_type)))

    def to_creation(self) -> dict:
        """This binding as a CreateAcls AclCreation."""
        p, e = self.pattern, self.entry
        return dict(resource_type=int(p.resource_type), resource_name=p.name,
                    resource_pattern_type=int(p.pattern_type),
                    principal=e.principal, host=e.host, operation=int(e.operation),
                    permission_type=int(e.permission_type))


@dataclass(frozen=True)
class AclBindingFilter:
    """What DescribeAcls and DeleteAcls match with: None strings and ANY codes match anything."""

    resource_type: ResourceType = ResourceType.ANY
    name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission_type: AclPermissionType = AclPermissionType.ANY

    @classmethod
    def of(cls, resource_type: int, name: str | None, pattern_type: int, principal: str | None,
           host: str | None,
           operation: int, permission_type: int) -> AclBindingFilter:
        return cls(_enum_or_unknown(ResourceType, resource_type), name,
                   _enum_or_unknown(PatternType, pattern_type),
                   principal, host, _enum_or_unknown(AclOperation, operation),
                   _enum_or_unknown(AclPermissionType, permission_type))

    def to_filter(self) -> dict:
        """This filter as DescribeAcls's request body or one DeleteAclsFilter (the same fields)."""
        return dict(resource_type_filter=int(self.resource_type), resource_name_filter=self.name,
                    pattern_type_filter=int(self.pattern_type), principal_filter=self.principal,
                    host_filter=self.host, operation=int(self.operation),
                    permission_type=int(self.permission_type))

    def is_unknown(self) -> bool:
        return PatternType.UNKNOWN == self.pattern_type or ResourceType.UNKNOWN == self.resource_type \
            or AclOperation.UNKNOWN == self.operation or AclPermissionType.UNKNOWN == self.permission_type

    def matches(self, binding: AclBinding) -> bool:
        return self._matches_pattern(binding.pattern) and self._matches_entry(binding.entry)

    def _matches_pattern(self, pattern: ResourcePattern) -> bool:
        """Kafka's ResourcePatternFilter.matches: MATCH finds the patterns that would apply to the name."""
        if self.resource_type not in (ResourceType.ANY, pattern.resource_type):
            return False
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH, pattern.pattern_type):
            return False
        if self.name is None:
            return True
        if self.pattern_type in (PatternType.ANY, pattern.pattern_type):
            return self.name == pattern.name
        if pattern.pattern_type == PatternType.LITERAL:  # the filter is MATCH from here on
            return self.name == pattern.name or pattern.name == WILDCARD_RESOURCE
        if pattern.pattern_type == PatternType.PREFIXED:
            return self.name.startswith(pattern.name)
        return False

    def _matches_entry(self, entry: AccessControlEntry) -> bool:
        return ((self.principal is None or self.principal == entry.principal)
                and (self.host is None or self.host == entry.host)
                and self.operation in (AclOperation.ANY, entry.operation)
                and self.permission_type in (AclPermissionType.ANY, entry.permission_type))
