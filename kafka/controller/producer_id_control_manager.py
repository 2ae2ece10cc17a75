"""ProducerIdControlManager: the cluster's producer id blocks
(Kafka's org.apache.kafka.controller.ProducerIdControlManager).

Seed 004, idempotence: "Duplicate data can be written if replication is done but the Produce
Response does not reach the producer (which retries)". An idempotent producer numbers its batches
under a producer id that no other producer in the cluster may ever have had, so a broker can
recognise a retried batch. Brokers hand out the ids, but only the controller can keep them unique:
a broker asks for a block (AllocateProducerIds, KIP-730) and the controller answers with the next
PRODUCER_ID_BLOCK_SIZE ids, writing a ProducerIdsRecord whose next_producer_id is where the block
after it starts. Replaying those records, on a standby, after a failover or from a snapshot
(ProducerIdsImage writes one), every controller knows where the next block begins, so no id is
ever handed out twice.
"""

from __future__ import annotations

import structlog

from kafka.controller.cluster_control_manager import ClusterControlManager
from kafka.controller.controller_result import ControllerResult
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.utils.producer_ids_block import PRODUCER_ID_BLOCK_SIZE, ProducerIdsBlock

log = structlog.get_logger("kafka.controller.ProducerIdControlManager")

INT64_MAX = 2**63 - 1


class ProducerIdsExhaustedError(Exception):
    """No block of ids fits below 2**63 any more (Kafka answers UNKNOWN_SERVER_ERROR)."""

    error = Errors.UNKNOWN_SERVER_ERROR


class ProducerIdControlManager:
    def __init__(self, cluster: ClusterControlManager) -> None:
        self.cluster = cluster  # whose registrations say which broker epochs are current
        self.next_producer_id = 0  # the first id of the next block; the first block starts at 0, as in Kafka
        self.broker_epoch = -1  # of the broker that took the last block (kept, as Kafka does, for the record)

    def reset(self) -> None:
        self.next_producer_id = 0
        self.broker_epoch = -1

    def generate_next_producer_id(self, broker_id: int, broker_epoch: int) -> ControllerResult:
        """The next block for this broker: ControllerResult([ProducerIdsRecord], ProducerIdsBlock).

        Raises StaleBrokerEpochError for a broker epoch that is not the registered one (a request
        from an earlier incarnation must not take ids), ProducerIdsExhaustedError past the int64 limit."""
        self.cluster.check_broker_epoch(broker_id, broker_epoch)
        first = self.next_producer_id
        if first > INT64_MAX - PRODUCER_ID_BLOCK_SIZE:
            raise ProducerIdsExhaustedError("exhausted all producer ids: the next block's end would exceed "
                                            "the "
                                            "int64 type limit")
        block = ProducerIdsBlock(broker_id, first, PRODUCER_ID_BLOCK_SIZE)
        producer_ids = record(MetadataRecordType.PRODUCER_IDS_RECORD, broker_id=broker_id,
                              broker_epoch=broker_epoch,
                              next_producer_id=block.next_block_first_id)
        return ControllerResult([producer_ids], block)

    def replay(self, r) -> None:
        """A ProducerIdsRecord: the next block starts at its next_producer_id.

        Kafka throws on a record that does not move forward (a bug somewhere); here the controller
        logs it and keeps the higher value, which is the one that keeps ids unique."""
        if r.next_producer_id <= self.next_producer_id:
            log.error("a ProducerIdsRecord does not move the next producer id forward; ignoring it",
                      record_next_producer_id=r.next_producer_id, next_producer_id=self.next_producer_id)
            return
        self.next_producer_id = r.next_producer_id
        self.broker_epoch = r.broker_epoch
