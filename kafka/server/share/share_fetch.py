"""ShareFetch: one ShareFetch request's fetch, waiting to be answered (Kafka's
org.apache.kafka.server.share.fetch.ShareFetch).

What the request asks (group, member, partitions, limits) and the future its answer completes,
with the partitions already known to fail (a share partition that could not load): their errors
join whatever the fetch acquired, and each of their topics counts a failed share fetch
(FailedShareFetchRequestsPerSec, once for the topic and once for all topics, as Kafka counts it).
The future completes once; later attempts are ignored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field

from kafka.protocol.errors import Errors
from kafka.server.replica_manager import FetchParams
from kafka.server.share.share_errors import error_of
from kafka.utils.topic_id_partition import TopicIdPartition

# The current leader a share partition's answer carries unless it names one (NOT_LEADER_OR_FOLLOWER):
# the generated default of ShareFetchResponse's and ShareAcknowledgeResponse's LeaderIdAndEpoch, which
# give no default of their own, so 0 and 0 (where Fetch's says -1).
NO_CURRENT_LEADER = {"leader_id": 0, "leader_epoch": 0}


def partition_response(tip: TopicIdPartition, error: Errors, message: str | None = None) -> dict:
    """A ShareFetch PartitionData with an error and nothing acquired (Kafka's
    ShareFetchResponse.partitionResponse)."""
    return dict(partition_index=tip.partition, error_code=error, error_message=message,
                acknowledge_error_code=0,
                acknowledge_error_message=None, current_leader=dict(NO_CURRENT_LEADER),
                records=b"",
                acquired_records=[])


@dataclass
class ShareFetch:
    fetch_params: FetchParams
    group_id: str
    member_id: str
    future: Future  # of {TopicIdPartition: PartitionData dict}
    topic_id_partitions: list[TopicIdPartition]
    acquire_mode: int
    batch_size: int
    max_fetch_records: int
    erroneous: dict[TopicIdPartition, BaseException] = field(default_factory=dict)
    on_failed_topics: Callable[[set[str]], None] = lambda topics: None  # BrokerTopicStats' meter
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add_erroneous(self, tip: TopicIdPartition, error: BaseException) -> None:
        with self._lock:
            self.erroneous[tip] = error

    def error_in_all_partitions(self) -> bool:
        with self._lock:
            return len(self.erroneous) == len(self.topic_id_partitions)

    def filter_erroneous(self, tips) -> list[TopicIdPartition]:
        with self._lock:
            return [tip for tip in tips if tip not in self.erroneous]

    @property
    def is_completed(self) -> bool:
        return self.future.done()

    def maybe_complete(self, response: dict[TopicIdPartition, dict]) -> None:
        if self.is_completed:
            return
        with self._lock:
            for tip, error in self.erroneous.items():
                response[tip] = partition_response(tip, error_of(error), str(error))
            failed_topics = {tip.topic for tip in self.erroneous}
        if failed_topics:
            self.on_failed_topics(failed_topics)
        try:
            self.future.set_result(response)
        except InvalidStateError:  # completed already (an expiry raced a completion)
            pass

    def maybe_complete_with_exception(self, tips, error: BaseException) -> None:
        for tip in tips:
            self.add_erroneous(tip, error)
        self.maybe_complete({})
