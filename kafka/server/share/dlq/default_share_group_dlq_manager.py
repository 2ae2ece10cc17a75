"""DefaultShareGroupDLQManager: the broker's ShareGroupDLQManager (Kafka's
org.apache.kafka.server.share.dlq.DefaultShareGroupDLQManager, the default of the internal broker config
group.share.dlq.manager.class.name).

It checks what it is handed and passes it to its ShareGroupDLQStateManager, which writes the records to
the group's DLQ topic through Produce requests on the inter-broker listener, as any producer would: the
DLQ partition may be led by another broker.
"""

from __future__ import annotations

from concurrent.futures import Future

import structlog

from kafka.server.share.dlq.share_group_dlq_manager import ShareGroupDLQManager
from kafka.server.share.dlq.share_group_dlq_metadata_cache_helper import ShareGroupDLQMetadataCacheHelper
from kafka.server.share.dlq.share_group_dlq_record_parameter import ShareGroupDLQRecordParameter
from kafka.server.share.dlq.share_group_dlq_state_manager import ShareGroupDLQStateManager
from kafka.utils.time import Time
from kafka.utils.timer.timer import Timer

log = structlog.get_logger("kafka.server.share.dlq.DefaultShareGroupDLQManager")


class DefaultShareGroupDLQManager(ShareGroupDLQManager):
    def __init__(self, state_manager: ShareGroupDLQStateManager) -> None:
        self.state_manager = state_manager

    @classmethod
    def instance(cls, channel, cache_helper: ShareGroupDLQMetadataCacheHelper, time: Time, timer: Timer,
                 log_reader) -> DefaultShareGroupDLQManager:
        """Built and started, its send thread running (Kafka's instance(): start())."""
        manager = cls(ShareGroupDLQStateManager(channel, cache_helper, time, timer, log_reader))
        manager.state_manager.start()
        return manager

    def enqueue(self, param: ShareGroupDLQRecordParameter) -> Future:
        try:
            self.validate(param)
        except ValueError as e:
            log.error("Unable to enqueue DLQ request", error=str(e))
            future: Future = Future()
            future.set_exception(e)
            return future
        return self.state_manager.write(param)

    @staticmethod
    def validate(param: ShareGroupDLQRecordParameter) -> None:
        if not param.group_id or param.topic_id_partition is None:
            raise ValueError("DLQ records parameters: a group id and a partition are required")
        if param.first_offset < 0 or param.last_offset < param.first_offset:
            raise ValueError(f"DLQ records parameters: invalid offsets "
                             f"{param.first_offset}..{param.last_offset}")

    def stop(self) -> None:
        """Stop sending, then the retry timer it was built with (its own, as Kafka's BrokerServer shuts
        the DLQ timer down after the manager)."""
        self.state_manager.stop()
        self.state_manager.timer.shutdown()
