"""Admin.listConfigResources (KIP-1142; KIP-714's listClientMetricsResources as version 0): the config
resources a broker knows of, by type, through ListConfigResources."""

from __future__ import annotations

from collections.abc import Iterable

from kafka.clients.errors import KafkaError
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors


def list_config_resources(admin, resource_types: Iterable[int] = ()) -> list[tuple[int, str]]:
    """(type, name) of each config resource that exists, asked of any broker (`admin`: an AdminClient)."""
    response = admin._call(admin._any_node(), ApiKey.LIST_CONFIG_RESOURCES,
                           {"resource_types": list(resource_types)})
    if response.error_code != Errors.NONE:
        raise KafkaError(response.error_code, None)
    return [(r.resource_type, r.resource_name) for r in response.config_resources]
