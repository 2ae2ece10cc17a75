"""FeaturesImage: the finalized feature levels, metadata.version above all (Kafka's image.FeaturesImage)."""

from __future__ import annotations

from dataclasses import dataclass, field

METADATA_VERSION = "metadata.version"


@dataclass(frozen=True)
class FeaturesImage:
    finalized_versions: dict[str, int] = field(default_factory=dict)

    @property
    def metadata_version(self) -> int:
        return self.finalized_versions.get(METADATA_VERSION, 0)
