"""FetchSessionHandler: the fetcher's side of a fetch session with one broker (Kafka's
org.apache.kafka.clients.FetchSessionHandler; KIP-227).

The consumer's Fetcher and a follower's replica fetcher both ask one broker, over and over, for
the same partitions. With a session the broker remembers them, so each request after the first
names only what changed since the last one:

    build(partitions)          the partitions to fetch now, each with its fetch offset
      first, or after an error:  a full request (epoch 0) naming all of them; the broker opens a session
      then:                      an incremental request (epoch 1, 2, ...) naming the partitions that are
                                 new or whose offset changed, and forgetting those no longer wanted
    handle_response(response)  a session id in a full response starts the session; an error
                               (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH: the broker
                               evicted the session or restarted) makes the next request full again
    handle_error()             no response at all: the next request is full too, closing the session

The handler only decides what the request says; the caller sends it and reads the response.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import structlog

from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.FetchSessionHandler")

INVALID_SESSION_ID = 0
INITIAL_EPOCH = 0


@dataclass(frozen=True)
class PartitionData:
    """What one partition's entry in a Fetch request says; a change to any of it is sent again."""

    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    log_start_offset: int = -1
    last_fetched_epoch: int = -1  # a follower's: the epoch of its last batch, for the leader to check


@dataclass(frozen=True)
class FetchRequestData:
    session_id: int
    epoch: int
    to_send: dict[TopicPartition, PartitionData]  # the request's topics: all of them, or what changed
    to_forget: list[TopicPartition] = field(default_factory=list)

    @property
    def is_full(self) -> bool:
        return self.epoch == INITIAL_EPOCH


class FetchSessionHandler:
    def __init__(self, node_id: int) -> None:
        self.node_id = node_id
        self.session_id = INVALID_SESSION_ID
        self.next_epoch = INITIAL_EPOCH
        self.session_partitions: OrderedDict[TopicPartition, PartitionData] = OrderedDict()

    def build(self, partitions: dict[TopicPartition, PartitionData]) -> FetchRequestData:
        if self.next_epoch == INITIAL_EPOCH:
            self.session_partitions = OrderedDict(partitions)
            return FetchRequestData(self.session_id, INITIAL_EPOCH, dict(partitions))
        to_forget = [tp for tp in self.session_partitions if tp not in partitions]
        for tp in to_forget:
            del self.session_partitions[tp]
        to_send = {}
        for tp, data in partitions.items():
            if self.session_partitions.get(tp) != data:  # new to the session, or changed
                self.session_partitions[tp] = data
                to_send[tp] = data
        return FetchRequestData(self.session_id, self.next_epoch, to_send, to_forget)

    def handle_response(self, error: Errors, session_id: int) -> bool:
        """Move the session on after a response; False if the response is a session error and its
        (empty) contents must be ignored."""
        if error != Errors.NONE:
            log.info("fetch session error, the next fetch will be full", node=self.node_id,
                     session_id=self.session_id, error=error.name)
            if error == Errors.FETCH_SESSION_ID_NOT_FOUND:
                self.session_id = INVALID_SESSION_ID
            self.next_epoch = INITIAL_EPOCH  # a full request, closing the session we named, if any
            return False
        if session_id == INVALID_SESSION_ID:  # the broker keeps no session for us (no room, or closed)
            self.session_id, self.next_epoch = INVALID_SESSION_ID, INITIAL_EPOCH
        elif self.next_epoch == INITIAL_EPOCH:
            self.session_id, self.next_epoch = session_id, 1
        else:
            self.next_epoch = 1 if self.next_epoch == 2**31 - 1 else self.next_epoch + 1
        return True

    def handle_error(self) -> None:
        """The request failed without a response (a disconnect, a timeout): start again with a full fetch."""
        self.next_epoch = INITIAL_EPOCH
