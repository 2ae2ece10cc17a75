"""AlterPartitionManager: how a partition leader asks the controller to change an ISR (Kafka's
kafka.server.DefaultAlterPartitionManager).

Seed 004: the controller owns the metadata, ISRs included. A leader that sees a follower catch up,
or fall behind for replica.lag.time.max.ms, cannot just change its ISR: it sends AlterPartition
(KIP-497) to the active controller with the leader epoch and partition epoch it knows, and the
controller commits a PartitionChangeRecord, or refuses a proposal made from a stale view
(FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION). The answer goes back to the Partition that asked;
every broker, that leader included, also sees the change in the metadata log.

Requests travel on their own NodeToControllerChannelManager ("alter-partition"), as in Kafka, so an
ISR change never queues behind a slow forwarded CreateTopics.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

ALTER_PARTITION_TIMEOUT_MS = 30000


class AlterPartitionManager:
    def __init__(self, channel_manager, broker_id: int, broker_epoch: Callable[[], int]) -> None:
        self.channel_manager = channel_manager  # a NodeToControllerChannelManager
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch  # from the BrokerLifecycleManager's registration

    def submit(self, tp: TopicPartition, leader_epoch: int, new_isr: list[int], partition_epoch: int,
               callback: Callable[[object, Errors], None]) -> None:
        """Propose new_isr for tp; callback(the controller's partition entry, error) comes later."""
        body = dict(broker_id=self.broker_id, broker_epoch=self.broker_epoch(), topics=[dict(
            topic_name=tp.topic, partitions=[dict(partition_index=tp.partition, leader_epoch=leader_epoch,
                                                  new_isr=list(new_isr), leader_recovery_state=0,
                                                  partition_epoch=partition_epoch)])])

        def on_response(response, error: Errors) -> None:
            if error != Errors.NONE:
                callback(None, error)
            elif response.error_code != Errors.NONE:
                callback(None, Errors.for_code(response.error_code))
            else:
                entry = next((p for t in response.topics if t.topic_name == tp.topic
                              for p in t.partitions if p.partition_index == tp.partition), None)
                if entry is None:
                    callback(None, Errors.UNKNOWN_SERVER_ERROR)
                else:
                    callback(entry, Errors.for_code(entry.error_code))

        self.channel_manager.send_request(ApiKey.ALTER_PARTITION, body, on_response,
                                          ALTER_PARTITION_TIMEOUT_MS)
