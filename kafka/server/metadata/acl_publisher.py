"""AclPublisher: ACLs from the metadata log to this node's authoriser (Kafka's
kafka.server.metadata.AclPublisher).

A metadata publisher: whenever a committed batch changed the ACLs (an AccessControlEntryRecord or a
RemoveAccessControlEntryRecord), the new AclsImage goes to the StandardAuthorizer, which swaps in a
new snapshot at once. Brokers and controllers each install one, so every node enforces the ACLs of
the offset it has applied.
"""

from __future__ import annotations

import structlog

from kafka.image.acls_image import AclsImage
from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer

log = structlog.get_logger("kafka.server.metadata.AclPublisher")


class AclPublisher:
    def __init__(self, node_id: int, authorizer: StandardAuthorizer) -> None:
        self.node_id = node_id
        self.authorizer = authorizer
        self.image = AclsImage()

    def name(self) -> str:
        return f"AclPublisher node {self.node_id}"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        if getattr(delta, "acls_delta", None) is None and image.acls is self.image:
            return
        self.image = image.acls
        self.authorizer.load_snapshot(self.image.acls)
        log.info("ACLs loaded", acls=len(self.image.acls), offset=image.provenance.last_contained_offset)

    def close(self) -> None:
        pass
