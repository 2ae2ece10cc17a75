"""ShareGroupDLQManager: what a share partition hands the records it gives up on (Kafka's
org.apache.kafka.server.share.dlq.ShareGroupDLQManager).

`enqueue(param)` never blocks: it answers a Future that completes (None, or an exception) once the records
are on the group's dead-letter queue topic -- or once the manager gave up on them. Either way the share
partition then archives them (ARCHIVING -> ARCHIVED): a DLQ that cannot be written never stalls a group.
The two causes are Kafka's, and their messages become the `__dlq.errors.message` header.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import Future

from kafka.server.share.dlq.share_group_dlq_record_parameter import ShareGroupDLQRecordParameter


class ShareGroupDLQThrowable(Exception):
    """Kafka's ShareGroupDLQManager.ShareGroupDLQThrowable: why records went to the DLQ."""


CLIENT_REJECT = ShareGroupDLQThrowable("Offset rejected by client.")
DELIVERY_COUNT_EXCEEDED = ShareGroupDLQThrowable("Offset delivery count exceeded the threshold.")


class ShareGroupDLQManager(ABC):
    @abstractmethod
    def enqueue(self, param: ShareGroupDLQRecordParameter) -> Future:
        """Write param's records to the group's DLQ topic; a Future of None once written."""

    @abstractmethod
    def stop(self) -> None:
        """Stop sending; what is still queued is answered with an error."""


class NoOpShareGroupDLQManager(ShareGroupDLQManager):
    """Kafka's NoOpShareGroupDLQManager: every enqueue is done at once, nothing written."""

    def enqueue(self, param: ShareGroupDLQRecordParameter) -> Future:
        future: Future = Future()
        future.set_result(None)
        return future

    def stop(self) -> None:
        pass
