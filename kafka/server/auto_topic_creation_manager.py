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

A streams group's internal topics (KIP-1071) are created the same way, with the partition count, replication
factor and configs the group coordinator decided: its members' heartbeats report them missing
(MISSING_INTERNAL_TOPICS) until they exist. A creation that failed is remembered with its error for a while
(ExpiringErrorCache, twice the group's heartbeat interval): not retried meanwhile, and named in the status.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

import structlog

from kafka.protocol import topic
from kafka.protocol.errors import Errors
from kafka.server.admin_manager import AdminManager, TopicError
from kafka.server.expiring_error_cache import ExpiringErrorCache

log = structlog.get_logger("kafka.server.AutoTopicCreationManager")

DEFAULT_TOPIC_ERROR_CACHE_CAPACITY = 1000  # Kafka's


class AutoTopicCreationManager:
    def __init__(self, config, admin_manager: AdminManager) -> None:
        self.config = config
        self.admin_manager = admin_manager
        self._inflight_topics: set[str] = set()
        self._lock = threading.Lock()
        self.topic_creation_error_cache = ExpiringErrorCache(DEFAULT_TOPIC_ERROR_CACHE_CAPACITY)

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

    def create_streams_internal_topics(self, topics: dict, timeout_ms: int, time) -> None:
        """Kafka's createStreamsInternalTopics: the topics (CreatableTopics) neither in flight nor failed
        lately, in one CreateTopics; a failure is remembered for ``timeout_ms``."""
        now = time.milliseconds()
        with self._lock:
            to_create = [t for name, t in topics.items() if name not in self._inflight_topics
                         and not self.topic_creation_error_cache.has_error(name, now)]
            self._inflight_topics.update(t.name for t in to_create)
        if not to_create:
            return
        created = self.admin_manager.create_topics(
            [(t.name, t.num_partitions, t.replication_factor, t.configs) for t in to_create])
        created.add_done_callback(
            lambda future: self._streams_creation_done(to_create, future, timeout_ms, time))
        log.info("sent the creation of streams internal topics to the controller",
                 topics=[t.name for t in to_create])

    def _streams_creation_done(self, topics: list, future: Future, timeout_ms: int, time) -> None:
        with self._lock:
            self._inflight_topics.difference_update(t.name for t in topics)
        now = time.milliseconds()
        failure = future.exception()
        if failure is not None:  # the controller did not answer: every topic failed so
            for t in topics:
                self.topic_creation_error_cache.put(t.name, str(failure), timeout_ms, now)
            log.warning("cannot create streams internal topics", topics=[t.name for t in topics],
                        error=str(failure))
            return
        for name, (error, message) in future.result().topics.items():
            if error != Errors.NONE:  # the controller's message, else its error's (Kafka's)
                self.topic_creation_error_cache.put(name, message or error.message, timeout_ms, now)
                log.warning("cannot create a streams internal topic", topic=name, error=error.name)

    def streams_internal_topic_creation_errors(self, names, now_ms: int) -> dict[str, str]:
        return self.topic_creation_error_cache.errors_for_topics(names, now_ms)

    def is_inflight(self, name: str) -> bool:
        """Still being created: until the BrokerMetadataPublisher has applied the topic to the
        partitions (and the coordinators) too, not just to the MetadataCache."""
        return name in self._inflight_topics

    @property
    def inflight_count(self) -> int:
        return len(self._inflight_topics)
