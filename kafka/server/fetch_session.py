"""FetchSession and FetchSessionCache: what the broker remembers of a fetcher between two Fetch
requests (Kafka's kafka.server.CachedPartition, FetchSession and FetchSessionCache; KIP-227).

Without a session, every Fetch names every partition the client reads and every response lists
every one of them, data or not. A consumer of 1,000 partitions that sees new records on three of
them still sends and receives 1,000 entries per request, several times a second. KIP-227 lets the
broker remember the partitions and their fetch offsets in a session: after one full request, an
incremental request names only the partitions whose fetch offset (or max bytes, or epoch) changed
and those to forget, and its response carries only the partitions that have something to say.

    session id 0, epoch -1       sessionless: a full request and response, nothing remembered
    session id 0, epoch 0        full: read everything, open a session, answer with its id
    session id S, epoch N > 0    incremental on session S, which must expect exactly epoch N
    session id S, epoch -1 or 0  close session S (and, for 0, open a new one)

The cache is bounded by max.incremental.fetch.session.cache.slots (1,000, Kafka's default). When it
is full, a newcomer may take the slot of a session unused for 120 s, or else of the least valuable
session it is allowed to evict: followers' sessions are "privileged" and worth more than
consumers', and among equals a session with more partitions saves more bytes and is worth more. A
newcomer can evict a consumer's session of any age only if it is a follower; any other session
must first have lived 120 s, so two big consumers cannot keep evicting each other.

From Fetch v13 (KIP-516) a request names topics by id, and a session opened by such a request
keys its partitions by topic id: a partition is a TopicIdPartition whose name the broker fills in
from its metadata, and may still be None (an id it does not know yet; the name is looked up again
on each fetch until found). A session keeps the name it found, so a topic deleted and created
again under the same name is, for that session, another topic (INCONSISTENT_TOPIC_ID). Before v13
the partitions are TopicPartitions, by name. A session is one or the other for its whole life
(FETCH_SESSION_TOPIC_ID_ERROR otherwise).

Kafka keeps the eviction order in sorted maps; with at most a thousand sessions and a new session
only now and then, this file scans the sessions instead, which reads more plainly.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from dataclasses import dataclass

import structlog

from kafka.protocol.errors import Errors
from kafka.server.fetch_partition_data import FetchPartitionData, FetchPartitionInfo
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.server.FetchSessionCache")

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0  # a full request that opens a session
FINAL_EPOCH = -1  # a full request that opens none (and closes the one it names)
MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000  # Kafka's KafkaBroker constant of the same name


# What a session's partitions are: a name and a number (before v13), or a topic id, a name if known,
# and a number (v13+)
SessionPartition = TopicPartition | TopicIdPartition


def session_key(tp: SessionPartition) -> SessionPartition:
    """How a session finds a partition (Kafka's CachedPartition.equals): by topic id when it has one,
    whether its name is known yet or not; by name otherwise."""
    if isinstance(tp, TopicIdPartition) and tp.topic is not None:
        return TopicIdPartition(tp.topic_id, None, tp.partition)
    return tp


def next_epoch(epoch: int) -> int:
    """The epoch the next request of a session must carry (Kafka's FetchMetadata.nextEpoch)."""
    if epoch < 0:
        return FINAL_EPOCH
    return 1 if epoch == 2**31 - 1 else epoch + 1


@dataclass
class CachedPartition:
    """One partition of a session: the fetcher's last request parameters and the last response
    values the fetcher was told, so an incremental response can leave out what has not changed."""

    tp: SessionPartition
    fetch_offset: int
    max_bytes: int
    leader_epoch: int = -1
    last_fetched_epoch: int = -1
    high_watermark: int = -1  # as last sent to the fetcher; -1 until sent, or after an error
    log_start_offset: int = -1
    last_stable_offset: int = -1

    def update_request_params(self, info: FetchPartitionInfo) -> None:
        self.fetch_offset = info.fetch_offset
        self.max_bytes = info.max_bytes
        self.leader_epoch = info.current_leader_epoch
        self.last_fetched_epoch = info.last_fetched_epoch

    def maybe_resolve_unknown_name(self, topic_names: dict) -> None:
        """A topic id the broker did not know when the fetcher named it: is it known now? (Kafka's
        maybeResolveUnknownName). A name once found is kept."""
        if isinstance(self.tp, TopicIdPartition) and self.tp.topic is None:
            name = topic_names.get(self.tp.topic_id)
            if name is not None:
                self.tp = self.tp._replace(topic=name)

    def fetch_info(self) -> FetchPartitionInfo:
        return FetchPartitionInfo(self.fetch_offset, self.max_bytes, self.leader_epoch,
                                  self.last_fetched_epoch)

    def maybe_update_response_data(self, data: FetchPartitionData, update: bool) -> bool:
        """Must this partition be in the incremental response? Yes if it has records, an error, or a
        high watermark, log start offset or last stable offset the fetcher has not seen. With update,
        remember them."""
        must_respond = len(data.records) > 0
        if data.high_watermark != self.high_watermark:
            must_respond = True
            if update:
                self.high_watermark = data.high_watermark
        if data.log_start_offset != self.log_start_offset:
            must_respond = True
            if update:
                self.log_start_offset = data.log_start_offset
        if data.last_stable_offset != self.last_stable_offset:  # a read_committed fetcher waits on it
            must_respond = True
            if update:
                self.last_stable_offset = data.last_stable_offset
        if data.error != Errors.NONE:
            must_respond = True
            if update:  # so the partition is sent again, with its high watermark, once the error clears
                self.high_watermark = -1
        if data.diverging_epoch is not None:  # the fetcher must learn it, to truncate
            must_respond = True
        return must_respond


class FetchSession:
    """The partitions one fetcher reads, in the order they are fetched, and the epoch it must send next."""

    def __init__(self, session_id: int, privileged: bool,
                 partitions: OrderedDict[SessionPartition, CachedPartition],
                 now_ms: int, uses_topic_ids: bool = False) -> None:
        self.id = session_id
        self.privileged = privileged  # a follower's session
        self.partition_map = partitions  # by session_key
        self.uses_topic_ids = uses_topic_ids  # opened by a Fetch v13+: partitions by topic id
        self.creation_ms = now_ms
        self.last_used_ms = now_ms
        self.epoch = next_epoch(INITIAL_EPOCH)
        self.lock = threading.Lock()

    @property
    def size(self) -> int:
        return len(self.partition_map)

    def update(self, fetch_data: dict[SessionPartition, FetchPartitionInfo], to_forget: list[SessionPartition]
               ) -> tuple[int, int, int]:
        """Apply an incremental request: new partitions join at the end, named ones take their new
        parameters, forgotten ones leave. Returns how many were (added, updated, removed)."""
        added = updated = removed = 0
        for tp, info in fetch_data.items():
            cached = self.partition_map.get(session_key(tp))
            if cached is None:
                self.partition_map[session_key(tp)] = CachedPartition(
                    tp, info.fetch_offset, info.max_bytes, info.current_leader_epoch, info.last_fetched_epoch)
                added += 1
            else:
                cached.update_request_params(info)
                updated += 1
        for tp in to_forget:
            if self.partition_map.pop(session_key(tp), None) is not None:
                removed += 1
        return added, updated, removed

    def eviction_rank(self) -> tuple[bool, int, int]:
        """Kafka's EvictableKey: the smallest is evicted first (consumers before followers, then fewer
        partitions)."""
        return self.privileged, self.size, self.id

    def __repr__(self) -> str:
        kind = "follower" if self.privileged else "consumer"
        return f"FetchSession(id={self.id}, {kind}, partitions={self.size}, epoch={self.epoch})"


class FetchSessionCache:
    def __init__(self, max_entries: int, eviction_ms: int = MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS,
                 rng: random.Random | None = None) -> None:
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self._rng = rng or random.Random()
        self._sessions: dict[int, FetchSession] = {}
        self._lock = threading.Lock()
        self.evictions = 0
        self.evictions_meter = None  # IncrementalFetchSessionEvictionsPerSec, set by the MetricsEndpoint

    # ------------------------------------------------------------------ the gauges
    @property
    def size(self) -> int:
        """NumIncrementalFetchSessions."""
        return len(self._sessions)

    @property
    def total_partitions(self) -> int:
        """NumIncrementalFetchPartitionsCached."""
        with self._lock:
            return sum(s.size for s in self._sessions.values())

    # ------------------------------------------------------------------ lookups
    def get(self, session_id: int) -> FetchSession | None:
        with self._lock:
            return self._sessions.get(session_id)

    def touch(self, session: FetchSession, now_ms: int) -> None:
        session.last_used_ms = now_ms

    def remove(self, session_id: int) -> FetchSession | None:
        with self._lock:
            return self._sessions.pop(session_id, None)

    # ------------------------------------------------------------------ creating, and making room
    def maybe_create_session(self, now_ms: int, privileged: bool,
                             partitions: OrderedDict[SessionPartition, CachedPartition],
                             uses_topic_ids: bool = False) -> int:
        """Open a session for a full fetch if there is a free slot or one may be taken; its id, or
        INVALID_SESSION_ID when the fetcher must carry on without one (it then sends full fetches)."""
        with self._lock:
            if len(self._sessions) >= self.max_entries and not self._try_evict(privileged, len(partitions),
                                                                               now_ms):
                return INVALID_SESSION_ID
            session_id = self._new_session_id()
            self._sessions[session_id] = FetchSession(session_id, privileged, partitions, now_ms,
                                                      uses_topic_ids)
            return session_id

    def _new_session_id(self) -> int:
        while True:
            session_id = self._rng.randint(1, 2**31 - 1)
            if session_id not in self._sessions:
                return session_id

    def _try_evict(self, privileged: bool, size: int, now_ms: int) -> bool:
        """Kafka's FetchSessionCache.tryEvict: the stalest session if unused for eviction_ms, else
        the least valuable session this newcomer may evict, if it is worth less than the newcomer."""
        if not self._sessions:
            return False
        stalest = min(self._sessions.values(), key=lambda s: (s.last_used_ms, s.id))
        if now_ms - stalest.last_used_ms > self.eviction_ms:
            return self._evict(stalest)
        old_enough = lambda s: now_ms - s.creation_ms > self.eviction_ms  # noqa: E731
        evictable = [s for s in self._sessions.values()
                     if old_enough(s) or (privileged and not s.privileged)]
        if not evictable:
            return False
        weakest = min(evictable, key=FetchSession.eviction_rank)
        if (privileged, size, 0) < weakest.eviction_rank():  # id 0: a tie keeps the session already there
            return False
        return self._evict(weakest)

    def _evict(self, session: FetchSession) -> bool:
        del self._sessions[session.id]
        self.evictions += 1
        if self.evictions_meter is not None:
            self.evictions_meter.inc()
        log.info("fetch session evicted", session=repr(session), slots=self.max_entries)
        return True
