"""ConfigurationsImage: topic and broker configs set in the cluster (Kafka's image.ConfigurationsImage).

Only the overrides are here (what ConfigRecords set); defaults come from each broker's own
configuration, exactly as a topic's effective config is its overrides on top of the broker's log.*.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ConfigurationsImage:
    resources: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)

    def config_props(self, resource_type: int, name: str) -> dict[str, str]:
        return dict(self.resources.get((resource_type, name), {}))
