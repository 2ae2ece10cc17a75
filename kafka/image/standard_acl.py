"""StandardAcl: one ACL as the metadata log stores it (Kafka's
org.apache.kafka.metadata.authorizer.StandardAcl and StandardAclWithId).

The controller gives every ACL a random id when it writes its AccessControlEntryRecord; deleting the
ACL writes a RemoveAccessControlEntryRecord with that id. Every node replays both into its AclsImage,
and the authoriser reads StandardAcls from there.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from kafka.protocol.acl import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record


@dataclass(frozen=True, order=True)
class StandardAcl:
    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission_type: AclPermissionType

    @classmethod
    def from_binding(cls, binding: AclBinding) -> StandardAcl:
        p, e = binding.pattern, binding.entry
        return cls(p.resource_type, p.name, p.pattern_type, e.principal, e.host, e.operation,
                   e.permission_type)

    @classmethod
    def from_record(cls, r) -> StandardAcl:
        return cls(ResourceType(r.resource_type), r.resource_name, PatternType(r.pattern_type), r.principal,
                   r.host,
                   AclOperation(r.operation), AclPermissionType(r.permission_type))

    def to_record(self, acl_id: uuid.UUID) -> ApiMessageAndVersion:
        return record(MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD, id=acl_id,
                      resource_type=int(self.resource_type), resource_name=self.resource_name,
                      pattern_type=int(self.pattern_type), principal=self.principal, host=self.host,
                      operation=int(self.operation), permission_type=int(self.permission_type))

    def to_binding(self) -> AclBinding:
        return AclBinding(ResourcePattern(self.resource_type, self.resource_name, self.pattern_type),
                          AccessControlEntry(self.principal, self.host, self.operation, self.permission_type))
