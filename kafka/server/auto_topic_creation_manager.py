"""AutoTopicCreationManager: topics created because a client asked about them (Kafka's
kafka.server.AutoTopicCreationManager).

A Metadata request for a topic that does not exist creates it when auto.create.topics.enable is
true and the request allows it; a FindCoordinator request creates __consumer_offsets or
__transaction_state on first use. Produce never does, as in Kafka 4: a producer asks for metadata
first (which creates the topic), and a produce to a topic this broker does not know is answered
UNKNOWN_TOPIC_OR_PARTITION.

The creation is sent to the controller and not waited for: the request that caused it is answered
at once, with an error that makes the client retry -- LEADER_NOT_AVAILABLE for a topic whose
creation this request started (COORDINATOR_NOT_AVAILABLE for FindCoordinator), UNKNOWN_TOPIC_OR_PARTITION
while one started earlier is still under way, INVALID_TOPIC_EXCEPTION for a name no topic may have.
Each name is in flight at most once, until this broker's metadata shows the topic (or the creation
failed), so clients retrying every few milliseconds send the controller one CreateTopics, not hundreds.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

import structlog

from kafka.protocol import topic
from kafka.protocol.errors import Errors
from kafka.server.admin_manager import AdminManager, TopicError

log = structlog.get_logger("kafka.server.AutoTopicCreationManager")


class AutoTopicCreationManager:
    def __init__(self, config, admin_manager: AdminManager) -> None:
        self.config = config
        self.admin_manager = admin_manager
        self._inflight_topics: set[str] = set()
        self._lock = threading.Lock()

    def create_topic(self, name: str, num_partitions: int = -1, replication_factor: int = -1,
                     configs: dict[str, str] | None = None) -> Errors:
        """Start creating `name` unless it is already on its way; the error to answer with now."""
        try:
            topic.validate(name)
        except topic.InvalidTopicError:
            return Errors.INVALID_TOPIC_EXCEPTION
        with self._lock:
            if name in self._inflight_topics:
                return Errors.UNKNOWN_TOPIC_OR_PARTITION
            self._inflight_topics.add(name)
        created = self.admin_manager.create_topic(name, num_partitions, replication_factor, configs)
        created.add_done_callback(lambda future: self._creation_done(name, future))
        return Errors.LEADER_NOT_AVAILABLE

    def _creation_done(self, name: str, future: Future) -> None:
        with self._lock:
            self._inflight_topics.discard(name)
        error = future.exception()
        if isinstance(error, TopicError) and error.error == Errors.TOPIC_ALREADY_EXISTS:
            return  # another broker, or an admin, created it first
        if error is not None:
            log.warning("cannot auto-create topic", topic=name, error=str(error))

    def is_inflight(self, name: str) -> bool:
        """Still being created: until the BrokerMetadataPublisher has applied the topic to the
        partitions (and the coordinators) too, not just to the MetadataCache."""
        return name in self._inflight_topics

    @property
    def inflight_count(self) -> int:
        return len(self._inflight_topics)
