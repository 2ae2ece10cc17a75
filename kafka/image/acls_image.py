"""AclsImage: every ACL of the cluster, by id (Kafka's org.apache.kafka.image.AclsImage).

Built by replaying AccessControlEntryRecord and RemoveAccessControlEntryRecord (AclsDelta), so
every broker and controller holds the same set at the same offset; the StandardAuthorizer of each
node is handed the new image whenever it changes. `write` gives the records a snapshot holds.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from kafka.image.standard_acl import StandardAcl
from kafka.protocol.metadata_records import ApiMessageAndVersion


@dataclass(frozen=True)
class AclsImage:
    acls: dict[uuid.UUID, StandardAcl] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not self.acls

    def write(self) -> list[ApiMessageAndVersion]:
        return [acl.to_record(acl_id) for acl_id, acl in sorted(self.acls.items(), key=lambda e: e[1])]
