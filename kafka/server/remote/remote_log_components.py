"""A tiered storage config change reaching the RemoteLogManager (Kafka's
TopicConfigHandler.maybeUpdateRemoteLogComponents).

The metadata publisher applies a topic's new configs to its logs, then calls this:

    remote.storage.enable turned on, or remote.log.copy.disable turned off
        the partitions this broker leads get their copy and expiration tasks, the others a follower task
    remote.log.copy.disable turned on
        copying stops; expiration goes on (the remote data is read-only from now on)
    remote.storage.enable turned off with remote.log.delete.on.disable=true
        the remote segments are deleted and the tasks stop (LogConfig.validate refuses turning it off without)
"""

from __future__ import annotations

from kafka.log.log_config import LogConfig
from kafka.log.remote.stop_partition import StopPartition
from kafka.utils.topic_partition import TopicPartition


def maybe_update_remote_log_components(replica_manager, topic, old: LogConfig, new: LogConfig) -> None:
    rlm = replica_manager.remote_log_manager
    if rlm is None:
        return
    hosted = (replica_manager.get_partition(TopicPartition(topic.name, state.partition))
              for state in topic.partitions)
    partitions = [p for p in hosted if p is not None]
    system = rlm.config.remote_storage_system_enable
    was_enabled, enabled = system and old.remote_storage_enable, system and new.remote_storage_enable
    if enabled and (not was_enabled or old.remote_log_copy_disable and not new.remote_log_copy_disable):
        for partition in partitions:
            rlm.on_partition_leadership_change(partition, topic.topic_id, partition.is_leader)
    if enabled and not old.remote_log_copy_disable and new.remote_log_copy_disable:
        rlm.stop_leader_copy_rlm_tasks([p.topic_partition for p in partitions if p.is_leader])
    if was_enabled and not enabled and new.remote_log_delete_on_disable:
        rlm.stop_partitions([StopPartition(p.topic_partition, False, True, True) for p in partitions])
