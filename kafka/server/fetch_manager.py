"""FetchManager and the fetch contexts: what one Fetch request means for its session (Kafka's
kafka.server.FetchManager, SessionErrorContext, SessionlessFetchContext, FullFetchContext and
IncrementalFetchContext; KIP-227).

KafkaApis asks the FetchManager for a context before it reads anything. The context says which
partitions to read (for an incremental request: every partition of the session, at the fetch
offsets the session remembers, not only those the request names) and, once ReplicaManager has
read them, which partitions go into the response and with which session id:

    handle_fetch_request
      -> FetchManager.new_context(session id, epoch, partitions, forgotten)   which context?
      -> ReplicaManager.fetch_messages(context.fetch_data())                  read (or wait)
      -> context.update_and_generate_response_data(results)                   what to send back

A Fetch v13+ names topics by id (KIP-516): its partitions are TopicIdPartitions, the name filled in by
KafkaApis from the metadata (None for an id unknown here, answered UNKNOWN_TOPIC_ID), and a session
it opens keys them by id; an older Fetch's partitions are TopicPartitions. A session is asked only in
the way it was opened: an incremental request of the other kind is FETCH_SESSION_TOPIC_ID_ERROR.

An incremental response leaves out partitions with nothing new. Partitions that did return records
move to the end of the session's order, so with a small fetch.max.bytes the others get their turn
next time (Kafka does the same, for fairness).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import structlog

from kafka.protocol.errors import Errors
from kafka.server.fetch_partition_data import FetchPartitionData, FetchPartitionInfo
from kafka.server.fetch_session import (
    FINAL_EPOCH,
    INITIAL_EPOCH,
    INVALID_SESSION_ID,
    CachedPartition,
    FetchSession,
    FetchSessionCache,
    SessionPartition,
    next_epoch,
    session_key,
)
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.FetchManager")

FetchResults = list[tuple[SessionPartition, FetchPartitionData]]
FetchData = dict[SessionPartition, FetchPartitionInfo]


@dataclass
class FetchResponseData:
    """The top of a FetchResponse: its error, its session id and the partitions it carries, in order."""

    error: Errors
    session_id: int
    partitions: FetchResults = field(default_factory=list)


class FetchContext:
    def fetch_data(self) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
        raise NotImplementedError

    def update_and_generate_response_data(self, results: FetchResults) -> FetchResponseData:
        raise NotImplementedError

    def get_throttled_response_data(self) -> FetchResponseData:
        """The empty answer of a fetch over its quota (Kafka's getThrottledResponse): no partitions,
        and no session opened, so nothing read is counted as sent."""
        return FetchResponseData(Errors.NONE, INVALID_SESSION_ID)


class SessionErrorContext(FetchContext):
    """The request named a session that does not exist or expected another epoch: read nothing."""

    def __init__(self, error: Errors) -> None:
        self.error = error

    def fetch_data(self) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
        return []

    def update_and_generate_response_data(self, results: FetchResults) -> FetchResponseData:
        return FetchResponseData(self.error, INVALID_SESSION_ID)

    def get_throttled_response_data(self) -> FetchResponseData:
        return FetchResponseData(self.error, INVALID_SESSION_ID)


class SessionlessFetchContext(FetchContext):
    """A full fetch that opens no session (epoch -1): every partition asked, every one answered."""

    def __init__(self, fetch_data: FetchData) -> None:
        self._fetch_data = fetch_data

    def fetch_data(self) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
        return list(self._fetch_data.items())

    def update_and_generate_response_data(self, results: FetchResults) -> FetchResponseData:
        return FetchResponseData(Errors.NONE, INVALID_SESSION_ID, results)


class FullFetchContext(FetchContext):
    """A full fetch that opens a session (epoch 0): answered in full, with the new session's id --
    or with id 0 if the cache had no room, and the fetcher carries on with full fetches."""

    def __init__(self, cache: FetchSessionCache, time: Time, fetch_data: FetchData,
                 is_from_follower: bool, uses_topic_ids: bool = False) -> None:
        self.cache = cache
        self.time = time
        self._fetch_data = fetch_data
        self.is_from_follower = is_from_follower
        self.uses_topic_ids = uses_topic_ids

    def fetch_data(self) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
        return list(self._fetch_data.items())

    def update_and_generate_response_data(self, results: FetchResults) -> FetchResponseData:
        partitions: OrderedDict[SessionPartition, CachedPartition] = OrderedDict()
        for tp, data in results:
            info = self._fetch_data[tp]
            cached = CachedPartition(tp, info.fetch_offset, info.max_bytes, info.current_leader_epoch,
                                     info.last_fetched_epoch)
            cached.maybe_update_response_data(data, update=True)
            partitions[session_key(tp)] = cached
        session_id = self.cache.maybe_create_session(self.time.milliseconds(), self.is_from_follower,
                                                     partitions, self.uses_topic_ids)
        return FetchResponseData(Errors.NONE, session_id, results)


class IncrementalFetchContext(FetchContext):
    """The next request of a session: read all its partitions, answer only those with news."""

    def __init__(self, session: FetchSession, request_epoch: int, topic_names: dict | None = None) -> None:
        self.session = session
        self.request_epoch = request_epoch
        self.topic_names = topic_names or {}  # topic id -> name, for the ids the session could not name yet

    def fetch_data(self) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
        with self.session.lock:
            for cached in self.session.partition_map.values():
                cached.maybe_resolve_unknown_name(self.topic_names)
            return [(cached.tp, cached.fetch_info()) for cached in self.session.partition_map.values()]

    def update_and_generate_response_data(self, results: FetchResults) -> FetchResponseData:
        session = self.session
        with session.lock:
            # another request moved the session on meanwhile
            if session.epoch != next_epoch(self.request_epoch):
                return FetchResponseData(Errors.INVALID_FETCH_SESSION_EPOCH, session.id)
            changed: FetchResults = []
            for tp, data in results:
                cached = session.partition_map.get(session_key(tp))
                if cached is None or not cached.maybe_update_response_data(data, update=True):
                    continue
                changed.append((tp, data))
                if len(data.records) > 0:  # it had its turn: to the back of the line
                    session.partition_map.move_to_end(session_key(tp))
            return FetchResponseData(Errors.NONE, session.id, changed)

    def get_throttled_response_data(self) -> FetchResponseData:
        """The session goes on; its partitions' positions stay where they were, so the next fetch
        returns what this one would have."""
        with self.session.lock:
            if self.session.epoch != next_epoch(self.request_epoch):
                return FetchResponseData(Errors.INVALID_FETCH_SESSION_EPOCH, self.session.id)
            return FetchResponseData(Errors.NONE, self.session.id)


class FetchManager:
    def __init__(self, time: Time, cache: FetchSessionCache) -> None:
        self.time = time
        self.cache = cache

    def new_context(self, session_id: int, epoch: int, fetch_data: FetchData,
                    to_forget: list[SessionPartition], is_from_follower: bool, uses_topic_ids: bool = False,
                    topic_names: dict | None = None) -> FetchContext:
        """uses_topic_ids: the request is a Fetch v13+ (Kafka passes its version); topic_names: the
        metadata's topic id -> name, to name the ids an incremental session could not name before."""
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):  # a full request: it closes any session it names
            if session_id != INVALID_SESSION_ID and self.cache.remove(session_id) is not None:
                log.debug("fetch session closed", session_id=session_id)
            if epoch == FINAL_EPOCH:
                return SessionlessFetchContext(fetch_data)
            return FullFetchContext(self.cache, self.time, fetch_data, is_from_follower, uses_topic_ids)
        session = self.cache.get(session_id)
        if session is None:
            return SessionErrorContext(Errors.FETCH_SESSION_ID_NOT_FOUND)
        with session.lock:
            if session.epoch != epoch:
                return SessionErrorContext(Errors.INVALID_FETCH_SESSION_EPOCH)
            if session.uses_topic_ids != uses_topic_ids:  # opened by name, asked by id, or the other way
                return SessionErrorContext(Errors.FETCH_SESSION_TOPIC_ID_ERROR)
            session.update(fetch_data, to_forget)
            if session.size == 0:  # everything forgotten: nothing left to remember
                self.cache.remove(session.id)
                return SessionlessFetchContext(fetch_data)
            self.cache.touch(session, self.time.milliseconds())
            session.epoch = next_epoch(session.epoch)
        return IncrementalFetchContext(session, epoch, topic_names)
