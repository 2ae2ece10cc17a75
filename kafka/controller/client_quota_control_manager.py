"""ClientQuotaControlManager: quotas of users, client ids and IPs
(Kafka's org.apache.kafka.controller.ClientQuotaControlManager).

AlterClientQuotas arrives here (from any broker, forwarded). Each entry names an entity -- a user,
a client id, both, or an IP, a null name meaning that type's default -- and the keys to set or
remove. The entity and every key are checked first (Kafka's entity combinations, its quota keys
and their types); an entry that passes becomes one ClientQuotaRecord per changed key, an entry that
does not gets INVALID_REQUEST and writes nothing. Brokers replay the records into their
ClientQuotasImage and hand them to their quota managers.
"""

from __future__ import annotations

import ipaddress

from kafka.image.client_quotas_image import CLIENT_ID, IP, USER, ClientQuotaEntity, quota_entity
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"
CONTROLLER_MUTATION_RATE = "controller_mutation_rate"
CONNECTION_CREATION_RATE = "connection_creation_rate"

# Kafka's QuotaConfigs: the keys a user or client-id entity may have, and an IP's; True = whole numbers only
USER_AND_CLIENT_QUOTA_KEYS = {PRODUCER_BYTE_RATE: True, CONSUMER_BYTE_RATE: True, REQUEST_PERCENTAGE: False,
                              CONTROLLER_MUTATION_RATE: False}
IP_QUOTA_KEYS = {CONNECTION_CREATION_RATE: True}
_EPSILON = 1e-6


class ClientQuotaError(Exception):
    def __init__(self, message: str, error: Errors = Errors.INVALID_REQUEST) -> None:
        super().__init__(message)
        self.error = error


class ClientQuotaControlManager:
    def __init__(self) -> None:
        self.client_quota_data: dict[ClientQuotaEntity, dict[str, float]] = {}

    def reset(self) -> None:
        self.client_quota_data = {}

    # ------------------------------------------------------------------ decide
    def alter_client_quotas(self, entries) -> tuple[list[ApiMessageAndVersion], list[dict]]:
        """Records for every valid entry, and one result per entry (its entity echoed back)."""
        records: list[ApiMessageAndVersion] = []
        results: list[dict] = []
        seen: set[ClientQuotaEntity] = set()
        for entry in entries:
            pairs = [(e.entity_type, e.entity_name) for e in entry.entity]
            result = dict(entity=[dict(entity_type=t, entity_name=n) for t, n in pairs],
                          error_code=Errors.NONE, error_message=None)
            try:
                entity = self._validate_entity(pairs)
                if entity in seen:
                    raise ClientQuotaError(f"Ignoring duplicate entity {_describe(entity)}")
                seen.add(entity)
                records += self._alter_entity(entity,
                                              [(op.key, None if op.remove else op.value) for op in entry.ops])
            except ClientQuotaError as e:
                result.update(error_code=e.error, error_message=str(e))
            results.append(result)
        return records, results

    def _alter_entity(self, entity: ClientQuotaEntity, ops: list[tuple[str, float | None]]
                      ) -> list[ApiMessageAndVersion]:
        valid_keys = _quota_keys(entity)
        changes: dict[str, float | None] = {}
        for key, value in ops:
            if key in changes:
                raise ClientQuotaError(f"Duplicate quota key {key} not updating quota for this entity "
                                       f"{_describe(entity)}")
            if value is not None:
                _validate_value(valid_keys, key, value)
            changes[key] = value
        current = self.client_quota_data.get(entity, {})
        entity_data = [dict(entity_type=t, entity_name=n) for t, n in entity]
        records = []
        for key, value in changes.items():
            if value is None and key in current:
                records.append(record(MetadataRecordType.CLIENT_QUOTA_RECORD, entity=entity_data, key=key,
                                      remove=True))
            elif value is not None and current.get(key) != value:  # only a change is written
                records.append(record(MetadataRecordType.CLIENT_QUOTA_RECORD, entity=entity_data, key=key,
                                      value=value))
        return records

    @staticmethod
    def _validate_entity(pairs: list[tuple[str, str | None]]) -> ClientQuotaEntity:
        if not pairs:
            raise ClientQuotaError("Invalid empty client quota entity")
        types = [t for t, _ in pairs]
        for entity_type, name in pairs:
            if types.count(entity_type) > 1:
                raise ClientQuotaError("Invalid empty client quota entity, duplicate entity entry "
                                       f"{entity_type}")
            if entity_type not in (USER, CLIENT_ID, IP):
                raise ClientQuotaError(f"Unhandled client quota entity type: {entity_type}")
            if name is not None and not name:
                raise ClientQuotaError(f"Empty {entity_type} not supported")
        if IP in types and len(types) > 1:
            raise ClientQuotaError("Invalid empty client quota entity")
        entity = quota_entity(pairs)
        ip = dict(entity).get(IP)
        if ip is not None:
            try:
                ipaddress.ip_address(ip)  # Kafka also resolves host names; the controller thread must not
            except ValueError:
                raise ClientQuotaError(f"{ip} is not a valid IP or resolvable host.") from None
        return entity

    # ------------------------------------------------------------------ replay
    def replay(self, r) -> None:
        entity = quota_entity((e["entity_type"], e["entity_name"]) for e in r.entity)
        values = self.client_quota_data.setdefault(entity, {})
        if r.remove:
            values.pop(r.key, None)
        else:
            values[r.key] = r.value
        if not values:
            del self.client_quota_data[entity]


def _quota_keys(entity: ClientQuotaEntity) -> dict[str, bool]:
    return IP_QUOTA_KEYS if dict(entity).keys() == {IP} else USER_AND_CLIENT_QUOTA_KEYS


def _validate_value(valid_keys: dict[str, bool], key: str, value: float) -> None:
    if key not in valid_keys:
        raise ClientQuotaError(f"Invalid configuration key {key}")
    if value != value or value <= 0:  # NaN, zero or less: a quota that can never be met
        raise ClientQuotaError(f"Configuration {key} must be positive, not {value}")
    if valid_keys[key] and abs(int(value + _EPSILON) - value) > _EPSILON:
        raise ClientQuotaError(f"Configuration {key} must be a Long value")


def _describe(entity: ClientQuotaEntity) -> str:
    return "ClientQuotaEntity(entries=" + ", ".join(f"{t}={n}" for t, n in entity) + ")"
