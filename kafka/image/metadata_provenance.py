"""MetadataProvenance: where in the metadata log an image was taken (Kafka's image.MetadataProvenance)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetadataProvenance:
    last_contained_offset: int
    last_contained_epoch: int
    last_contained_log_time_ms: int


EMPTY_PROVENANCE = MetadataProvenance(-1, -1, -1)
