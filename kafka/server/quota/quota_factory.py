"""QuotaManagers: the broker's three client quota managers (Kafka's kafka.server.QuotaFactory).

KafkaApis asks them on every Produce and Fetch (bytes) and every other client request (time); the
ClientQuotaMetadataManager hands them each quota the metadata log sets, routed by its key.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.server.quota.client_quota_manager import (
    ClientQuotaManager,
    ClientQuotaManagerConfig,
    QuotaEntity,
    QuotaType,
)
from kafka.server.quota.client_request_quota_manager import ClientRequestQuotaManager
from kafka.utils.time import Time

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"


@dataclass
class QuotaManagers:
    produce: ClientQuotaManager
    fetch: ClientQuotaManager
    request: ClientRequestQuotaManager

    @classmethod
    def instantiate(cls, config, time: Time) -> QuotaManagers:
        """From KafkaConfig's quota.window.num and quota.window.size.seconds."""
        quota_config = ClientQuotaManagerConfig(config.quota_window_num, config.quota_window_size_seconds)
        return cls(ClientQuotaManager(quota_config, QuotaType.PRODUCE, time),
                   ClientQuotaManager(quota_config, QuotaType.FETCH, time),
                   ClientRequestQuotaManager(quota_config, time))

    def for_key(self, key: str) -> ClientQuotaManager | None:
        """The manager a quota key belongs to; None for keys no manager enforces
        (controller_mutation_rate, an IP's connection_creation_rate)."""
        return {PRODUCER_BYTE_RATE: self.produce, CONSUMER_BYTE_RATE: self.fetch,
                REQUEST_PERCENTAGE: self.request}.get(key)

    def update_quota(self, entity: QuotaEntity, key: str, value: float | None) -> bool:
        manager = self.for_key(key)
        if manager is None:
            return False
        manager.update_quota(entity, value)
        return True
