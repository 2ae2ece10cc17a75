"""RaftListener: what the controller and the MetadataLoader implement (Kafka's RaftClient.Listener).

The raft client calls its listeners on its own thread, from poll(): committed batches in order,
exactly once each; a snapshot when the listener is behind the log start; and every change of
leader. A listener that needs to do real work hands it to its own thread (the QuorumController's
event queue) rather than block the quorum.
"""

from __future__ import annotations

from typing import Protocol

from kafka.raft.batch import Batch, LeaderAndEpoch


class RaftListener(Protocol):
    def handle_commit(self, batch: Batch) -> None: ...

    def handle_load_snapshot(self, reader) -> None: ...

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None: ...

    def begin_shutdown(self) -> None: ...
