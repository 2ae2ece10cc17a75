"""ClientQuotasImage: the quotas set for users, client ids and IPs (Kafka's image.ClientQuotasImage).

Each ClientQuotaRecord sets (or removes) one key of one entity. An entity is a set of
(entity type, entity name) pairs: ``user``, ``client-id`` or ``ip``; a name of None is the default
entity of its type, so (("client-id", None),) is "every client id without a quota of its own".
The image keeps each entity's keys and values; `describe` answers DescribeClientQuotas from it, as
Kafka's broker does, without asking the controller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record

USER, CLIENT_ID, IP = "user", "client-id", "ip"
ENTITY_TYPES = (USER, CLIENT_ID, IP)
MATCH_TYPE_EXACT, MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED = 0, 1, 2

# (("client-id", "app"),) or (("client-id", None), ("user", "alice")): sorted by type, so equal
# entities are equal tuples however a request listed them.
ClientQuotaEntity = tuple[tuple[str, str | None], ...]


def quota_entity(pairs: Iterable[tuple[str, str | None]]) -> ClientQuotaEntity:
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


class InvalidQuotaFilterError(Exception):
    """A DescribeClientQuotas filter Kafka refuses: INVALID_REQUEST, or UNSUPPORTED_VERSION for an
    entity type it does not know."""

    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


@dataclass(frozen=True)
class ClientQuotasImage:
    entities: dict[ClientQuotaEntity, dict[str, float]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        return not self.entities

    def write(self) -> list[ApiMessageAndVersion]:
        return [record(MetadataRecordType.CLIENT_QUOTA_RECORD, key=key, value=value,
                       entity=[dict(entity_type=t, entity_name=n) for t, n in entity])
                for entity, values in sorted(self.entities.items(), key=lambda e: repr(e[0]))
                for key, value in sorted(values.items())]

    def describe(self, components, strict: bool) -> list[tuple[ClientQuotaEntity, dict[str, float]]]:
        """The entities a DescribeClientQuotas filter matches, with their quotas (Kafka's
        ClientQuotasImage.describe). `components`: (entity_type, match_type, match) triples."""
        exact: dict[str, str | None] = {}
        any_name: set[str] = set()
        for entity_type, match_type, match in components:
            if not entity_type:
                raise InvalidQuotaFilterError(Errors.INVALID_REQUEST, "Invalid empty entity type.")
            if entity_type in exact or entity_type in any_name:
                raise InvalidQuotaFilterError(
                    Errors.INVALID_REQUEST,
                    f"Entity type {entity_type} cannot appear more than once in the filter.")
            if entity_type not in ENTITY_TYPES:
                raise InvalidQuotaFilterError(Errors.UNSUPPORTED_VERSION,
                                              f"Unsupported entity type {entity_type}")
            if match_type == MATCH_TYPE_EXACT:
                if match is None:
                    raise InvalidQuotaFilterError(
                        Errors.INVALID_REQUEST,
                        "Request specified MATCH_TYPE_EXACT, but set match string to null.")
                exact[entity_type] = match
            elif match_type in (MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED):
                if match is not None:
                    name = ("MATCH_TYPE_DEFAULT" if match_type == MATCH_TYPE_DEFAULT
                            else "MATCH_TYPE_SPECIFIED")
                    raise InvalidQuotaFilterError(
                        Errors.INVALID_REQUEST,
                        f"Request specified {name}, but also specified a match string.")
                if match_type == MATCH_TYPE_DEFAULT:
                    exact[entity_type] = None
                else:
                    any_name.add(entity_type)
            else:
                raise InvalidQuotaFilterError(Errors.INVALID_REQUEST, f"Unknown match type {match_type}")
        named = set(exact) | any_name
        if IP in named and named & {USER, CLIENT_ID}:
            raise InvalidQuotaFilterError(
                Errors.INVALID_REQUEST, "Invalid entity filter component combination. IP filter component "
                                        "should not be used with user or clientId filter component.")
        return [(entity, dict(values)) for entity, values in self.entities.items()
                if _matches(dict(entity), exact, any_name, strict)]


def _matches(entity: dict[str, str | None], exact: dict[str, str | None], any_name: set[str],
             strict: bool) -> bool:
    if any(t not in entity or entity[t] != name for t, name in exact.items()):
        return False
    if any(t not in entity for t in any_name):
        return False
    # strict: no entity types beyond the filter's (an empty strict filter matches nothing)
    return not strict or len(entity) == len(exact) + len(any_name) and bool(exact or any_name)
