"""RLMFollowerTask: a follower keeping track of how far its leader has copied (Kafka's
RemoteLogManager.RLMFollowerTask).

Every `remote.log.manager.task.interval.ms`, on a follower thread, it reads from the remote log metadata
the highest offset copied in this replica's leader-epoch lineage and tells the local log, so the
follower's local retention deletes only what is remote, as its leader's does, and a follower that becomes
leader already knows where copying stands.
"""

from __future__ import annotations

from kafka.log.remote.rlm_task import RLMTask
from kafka.log.unified_log import UnifiedLog


class RLMFollowerTask(RLMTask):
    def execute(self, unified_log: UnifiedLog) -> None:
        highest = self.rlm.find_highest_remote_offset(self.topic_id_partition, unified_log)
        unified_log.update_highest_offset_in_remote_storage(highest.offset)
