"""ShareSessionCache: the broker's share sessions, at most group.share.max.share.sessions of them
(Kafka's org.apache.kafka.server.share.session.ShareSessionCache).

A full cache refuses a new session (SHARE_SESSION_LIMIT_REACHED: the client waits and retries) rather
than evicting one, since a session holds a member's acquired records. A session ends when its
member closes it (epoch -1) or its connection closes: on_disconnect removes it and tells the
ShareGroupListener (Kafka's onMemberLeave: the member's acquired records are released), and when the
last member of a group is gone, onGroupEmpty lets the group's share partitions go from the cache.
"""

from __future__ import annotations

import threading

from kafka.server.share.session.share_session import ShareSession, ShareSessionKey, next_epoch
from kafka.utils.topic_id_partition import TopicIdPartition


class ShareSessionCache:
    def __init__(self, max_entries: int, on_eviction=None) -> None:
        self.max_entries = max_entries
        self._lock = threading.RLock()
        self._sessions: dict[ShareSessionKey, ShareSession] = {}
        self._members_per_group: dict[str, int] = {}
        self._connections: dict[str, list] = {}  # connection id -> [session key, stale]
        self._num_partitions = 0
        # Kafka's ShareGroupListener: on_member_leave(group, member), on_group_empty(group)
        self._listener = None
        self._on_eviction = on_eviction or (lambda: None)  # ShareSessionEvictionsPerSec

    def register_share_group_listener(self, listener) -> None:
        self._listener = listener

    def get(self, key: ShareSessionKey) -> ShareSession | None:
        with self._lock:
            return self._sessions.get(key)

    def size(self) -> int:
        return len(self._sessions)

    def total_partitions(self) -> int:
        return self._num_partitions

    def num_members(self, group_id: str) -> int | None:
        return self._members_per_group.get(group_id)

    def maybe_create_session(self, group_id: str, member_id: str, partitions: list[TopicIdPartition],
                             connection_id: str) -> ShareSessionKey | None:
        """A new session at epoch 1, or None when the cache is full."""
        with self._lock:
            if len(self._sessions) >= self.max_entries:
                return None
            session = ShareSession(ShareSessionKey(group_id, member_id), partitions, next_epoch(0),
                                   connection_id)
            self._sessions[session.key] = session
            self.update_num_partitions(session)
            self._members_per_group[group_id] = self._members_per_group.get(group_id, 0) + 1
            self._connections[connection_id] = [session.key, False]
            return session.key

    def update_num_partitions(self, session: ShareSession) -> None:
        with self._lock:
            self._num_partitions += session.update_cached_size()

    def remove(self, key: ShareSessionKey) -> ShareSession | None:
        with self._lock:
            session = self._sessions.pop(key, None)
            if session is None:
                return None
            self._num_partitions -= max(session.cached_size, 0)
            self._members_per_group[key.group_id] = self._members_per_group.get(key.group_id, 1) - 1
            known = self._connections.get(session.connection_id)
            if known is not None and known[0] == key:
                known[1] = True  # stale: the member closed it before its connection went
            return session

    def remove_all_sessions(self) -> None:
        with self._lock:
            self._sessions.clear()
            self._members_per_group.clear()
            self._num_partitions = 0

    def on_disconnect(self, connection_id: str) -> None:
        """A client connection closed (Kafka's ConnectionDisconnectListener): its member has left."""
        with self._lock:
            known = self._connections.pop(connection_id, None)
        if known is None:
            return
        key, stale = known
        if not stale and self.get(key) is not None:
            self._on_eviction()
            if self._listener is not None:
                self._listener.on_member_leave(key.group_id, key.member_id)
            self.remove(key)
        with self._lock:
            empty = self._members_per_group.get(key.group_id, 0) == 0
            if empty:
                self._members_per_group.pop(key.group_id, None)
        if empty and self._listener is not None:
            self._listener.on_group_empty(key.group_id)
