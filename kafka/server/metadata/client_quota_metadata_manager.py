"""ClientQuotaMetadataManager: client quotas from the metadata log to the broker's quota managers
(Kafka's kafka.server.metadata.ClientQuotaMetadataManager, driven by its DynamicClientQuotaPublisher).

A metadata publisher: every committed image whose client quotas changed is compared with what the
quota managers were last given, and each quota that appeared, changed or went is handed to the
manager of its key (producer_byte_rate to Produce, consumer_byte_rate to Fetch, request_percentage
to Request). It also keeps the image's ClientQuotasImage, which DescribeClientQuotas reads.
"""

from __future__ import annotations

import structlog

from kafka.image.client_quotas_image import CLIENT_ID, USER, ClientQuotaEntity, ClientQuotasImage
from kafka.server.quota.client_quota_manager import DEFAULT, QuotaEntity
from kafka.server.quota.quota_factory import QuotaManagers

log = structlog.get_logger("kafka.server.metadata.ClientQuotaMetadataManager")


class ClientQuotaMetadataManager:
    def __init__(self, quota_managers: QuotaManagers) -> None:
        self.quota_managers = quota_managers
        self.image = ClientQuotasImage()
        self._applied: dict[ClientQuotaEntity, dict[str, float]] = {}

    def name(self) -> str:
        return "DynamicClientQuotaPublisher"

    def on_metadata_update(self, delta, image, manifest=None) -> None:
        if getattr(delta, "client_quotas_delta", None) is None and image.client_quotas is self.image:
            return
        self.image = image.client_quotas
        self.update(self.image.entities)

    def update(self, entities: dict[ClientQuotaEntity, dict[str, float]]) -> None:
        for entity in set(self._applied) | set(entities):
            old, new = self._applied.get(entity, {}), entities.get(entity, {})
            for key in set(old) | set(new):
                if old.get(key) != new.get(key):
                    self._handle_quota_change(entity, key, new.get(key))
        self._applied = {entity: dict(values) for entity, values in entities.items()}

    def _handle_quota_change(self, entity: ClientQuotaEntity, key: str, value: float | None) -> None:
        quota_entity = _user_client_entity(entity)
        if quota_entity is None:
            return  # an IP's quota: connection quotas, not these managers
        if not self.quota_managers.update_quota(quota_entity, key, value):
            log.info("quota key not enforced by this broker", entity=entity, key=key)
            return
        log.info("client quota updated", entity=dict(entity), key=key, value=value)

    def close(self) -> None:
        pass


def _user_client_entity(entity: ClientQuotaEntity) -> QuotaEntity | None:
    """(user, client id) as the managers key quotas: None for a part the entity lacks, DEFAULT for
    a default part; None for an entity that is not of users and client ids."""
    parts = dict(entity)
    if not parts or set(parts) - {USER, CLIENT_ID}:
        return None

    def part(entity_type: str) -> str | None:
        if entity_type not in parts:
            return None
        name = parts[entity_type]
        return DEFAULT if name is None else name

    return part(USER), part(CLIENT_ID)
