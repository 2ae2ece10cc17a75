"""ProducerIdsImage: where the next block of producer ids starts (Kafka's
org.apache.kafka.image.ProducerIdsImage).

Seed 004, idempotence (KIP-730): every block the controller hands a broker is a ProducerIdsRecord in
the metadata log, and the image keeps only the last one's next_producer_id: -1 until the first
block. It is in every snapshot (`write`), so a controller restarted from a snapshot, whose log
before it is gone, still starts the next block after the last one and never hands an id out twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record

NO_PRODUCER_IDS = -1


@dataclass(frozen=True)
class ProducerIdsImage:
    next_producer_id: int = NO_PRODUCER_IDS

    def is_empty(self) -> bool:
        return self.next_producer_id == NO_PRODUCER_IDS

    def write(self) -> list[ApiMessageAndVersion]:
        """The record a snapshot holds. Which broker took the last block does not matter any more,
        so, as in Kafka, broker id and epoch are -1."""
        if self.next_producer_id < 0:
            return []
        return [record(MetadataRecordType.PRODUCER_IDS_RECORD, broker_id=-1, broker_epoch=-1,
                       next_producer_id=self.next_producer_id)]
