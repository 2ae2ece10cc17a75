"""AclsDelta: the ACLs one batch of metadata records created and removed (Kafka's
org.apache.kafka.image.AclsDelta).

`changes` maps an ACL id to its StandardAcl (created) or None (removed), so a publisher can tell the
authoriser exactly what changed; `apply` gives the next AclsImage.
"""

from __future__ import annotations

import uuid

from kafka.image.acls_image import AclsImage
from kafka.image.standard_acl import StandardAcl


class AclsDelta:
    def __init__(self, image: AclsImage) -> None:
        self.image = image
        self.changes: dict[uuid.UUID, StandardAcl | None] = {}

    def replay_access_control_entry(self, r) -> None:
        self.changes[r.id] = StandardAcl.from_record(r)

    def replay_remove_access_control_entry(self, r) -> None:
        if r.id in self.image.acls:
            self.changes[r.id] = None
        else:  # created and removed within this delta: nothing to tell anyone
            self.changes.pop(r.id, None)

    def apply(self) -> AclsImage:
        acls = dict(self.image.acls)
        for acl_id, acl in self.changes.items():
            if acl is None:
                acls.pop(acl_id, None)
            else:
                acls[acl_id] = acl
        return AclsImage(acls)
