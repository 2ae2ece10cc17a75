"""FetchHandler: the leader's side of Fetch (KafkaRaftClient's handleFetchRequest, with its fetchPurgatory).

Followers pull (KIP-595). A Fetch names the offset the follower wants next and the epoch of the last
record before it, and the leader answers from those two alone:

    an epoch that is not ours          FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH (newer)
    an offset gone from the log        the snapshot to copy first (the follower sends FetchSnapshot)
    a log that diverges from ours      where our copy of that epoch ends: truncate there, fetch again
    otherwise                          the records from that offset on, and the high watermark

The fetch offset is also the follower's acknowledgement: it moves that voter's end offset in
LeaderState, and perhaps the high watermark with it. A Fetch that finds nothing new, from a replica
that already knows the high watermark, waits in the FetchPurgatory (a long poll) until records are
appended, the high watermark moves, or its wait runs out; then it is answered afresh.

Kafka keeps this inside KafkaRaftClient; here it is a class of its own, as Kafka's AddVoterHandler is
the leader's side of AddRaftVoter, so that the client reads as the election protocol. It shares the
client's log and quorum state, runs on the raft thread, and answers through the `respond` it is given.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.protocol.errors import Errors
from kafka.raft.fetch_purgatory import FetchPurgatory
from kafka.raft.kafka_raft_metrics import KafkaRaftMetrics
from kafka.raft.leader_state import LeaderState
from kafka.raft.quorum_state import QuorumState
from kafka.raft.raft_config import RaftConfig
from kafka.raft.raft_message import RaftRequest
from kafka.raft.raft_util import fetch_response
from kafka.raft.replicated_log import ReplicatedLog


class FetchHandler:
    def __init__(self, log: ReplicatedLog, quorum: QuorumState, config: RaftConfig, metrics: KafkaRaftMetrics,
                 respond: Callable[[RaftRequest, dict], None]) -> None:
        self.log = log
        self.quorum = quorum
        self.config = config
        self.metrics = metrics
        self.respond = respond
        self.purgatory = FetchPurgatory()

    def handle_fetch_request(self, request: RaftRequest, now: int) -> None:
        self._answer(request, now, may_park=True)

    def _answer(self, request: RaftRequest, now: int, may_park: bool) -> None:
        body = request.body
        p = body["topics"][0]["partitions"][0]
        state = self.quorum.state
        epoch = p.get("current_leader_epoch", -1)
        if not isinstance(state, LeaderState):
            self.respond(request, self._response(Errors.NOT_LEADER_OR_FOLLOWER))
            return
        if epoch < state.epoch:
            self.respond(request, self._response(Errors.FENCED_LEADER_EPOCH))
            return
        if epoch > state.epoch:
            self.respond(request, self._response(Errors.UNKNOWN_LEADER_EPOCH))
            return
        fetch_offset, last_fetched_epoch = p["fetch_offset"], p.get("last_fetched_epoch", -1)
        valid = self.log.validate_offset_and_epoch(fetch_offset, last_fetched_epoch)
        if valid.kind == "SNAPSHOT":  # what it asks for is gone from the log: fetch the snapshot first
            self.respond(request, self._response(Errors.NONE, snapshot=valid.offset_and_epoch))
            return
        if valid.kind == "DIVERGING":
            self.respond(request, self._response(Errors.NONE, diverging=valid.offset_and_epoch))
            return
        replica_id = request.source_id
        if state.update_replica_state(replica_id, fetch_offset, now):
            self._on_high_watermark(state, now)
        info = self.log.read(fetch_offset, self.config.fetch_max_bytes)
        if not info.records and may_park and body.get("max_wait_ms", 0) > 0 and \
                state.replica_knows_high_watermark(replica_id, self.log.high_watermark()):
            # Nothing new, not even the HW: hold the fetch (a long poll) until the next append or HW move.
            wait = min(body["max_wait_ms"], self.config.fetch_max_wait_ms)
            self.purgatory.park(request, now + wait)
            return
        state.note_high_watermark_sent(replica_id, self.log.high_watermark())
        self.respond(request, self._response(Errors.NONE, records=info.records))

    def _response(self, error: Errors, records: bytes = b"", diverging=None, snapshot=None) -> dict:
        return fetch_response(error, self.quorum.leader_id, self.quorum.epoch, self.log.high_watermark(),
                              self.log.start_offset(), records, diverging, snapshot)

    def update_leader_high_watermark(self, state: LeaderState, now: int) -> None:
        """The leader's own log end moved (an append, an election): the high watermark may follow."""
        if state.update_local_state(self.log.end_offset(), now):
            self._on_high_watermark(state, now)

    def _on_high_watermark(self, state: LeaderState, now: int) -> None:
        self.log.update_high_watermark(state.high_watermark)
        self.metrics.on_high_watermark(state.high_watermark, now)
        self.complete_all(now)  # the waiting followers learn of the commit at once

    def complete_all(self, now: int) -> None:
        """Answer every waiting Fetch now: records were appended, or we no longer lead."""
        for request in self.purgatory.complete_all():
            self._answer(request, now, may_park=False)

    def complete_expired(self, now: int) -> None:
        for request in self.purgatory.complete_expired(now):
            self._answer(request, now, may_park=False)

    def next_deadline_ms(self) -> int | None:
        return self.purgatory.next_deadline_ms()
