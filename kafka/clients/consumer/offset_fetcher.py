"""OffsetFetcher: ListOffsets requests -- earliest, latest or by time
(Kafka's consumer.internals.OffsetFetcher).

A partition with no position (a new consumer, no committed offset) gets one from
``auto.offset.reset``: the log start ("earliest", timestamp -2) or end ("latest", -1), as the
partition's leader reports it. ``beginning_offsets``/``end_offsets``/``offsets_for_times`` use the
same request.
"""

from __future__ import annotations

from kafka.clients.client_request import ClientRequest
from kafka.clients.consumer.subscription_state import SubscriptionState
from kafka.clients.errors import KafkaError, KafkaTimeoutError
from kafka.clients.metadata import STALE_METADATA_ERRORS, Metadata
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
_STRATEGY_TIMESTAMPS = {"earliest": EARLIEST_TIMESTAMP, "latest": LATEST_TIMESTAMP}


class OffsetFetcher:
    def __init__(self, client: NetworkClient, metadata: Metadata, subscriptions: SubscriptionState | None,
                 isolation_level: int, time: Time) -> None:
        self.client = client
        self.metadata = metadata
        self.subscriptions = subscriptions
        self.isolation_level = isolation_level
        self.time = time
        self._resetting: set[TopicPartition] = set()  # a ListOffsets for their reset is in flight

    def reset_positions_if_needed(self, timeout_ms: int) -> None:
        """Send ListOffsets for the partitions awaiting auto.offset.reset and wait up to timeout_ms.

        The answer is applied by the request's callback whenever it arrives, in this poll or a later
        one (Kafka's resetPositionsIfNeeded is asynchronous the same way): a ListOffsets slower than
        poll()'s timeout used to be abandoned and sent again on every poll, and on a loaded broker
        such a partition never got a position at all."""
        needing = self.subscriptions.partitions_needing_reset()
        if not needing:
            return
        unsent = {tp: s for tp, s in needing.items() if tp not in self._resetting}
        by_leader: dict[int, dict[TopicPartition, int]] = {}
        leaderless: list[TopicPartition] = []
        for tp, strategy in unsent.items():
            leader = self.metadata.cluster.leader_for(tp)
            if leader is None:
                leaderless.append(tp)
                self.metadata.add_topics(tp.topic)
                self.metadata.request_update()
                continue
            by_leader.setdefault(leader.node_id, {})[tp] = _STRATEGY_TIMESTAMPS[strategy]
        for node_id, partitions in by_leader.items():
            self._resetting.update(partitions)
            request = self._request(node_id, partitions)
            request.callback = lambda response, parts=partitions: self._on_reset_response(response, parts)
            self.client.send(request)

        def answered_or_leader_known() -> bool:
            # A partition with no known leader waits for the metadata it asked for, so that a caller
            # that does not poll (position() right after seek_to_beginning) asks again with a leader.
            return not (set(needing) & self._resetting) and all(
                self.metadata.cluster.leader_for(tp) is not None for tp in leaderless)

        self.client.poll_until(answered_or_leader_known, timeout_ms)

    def _on_reset_response(self, response, partitions: dict[TopicPartition, int]) -> None:
        try:
            if response.body is None:  # disconnected or timed out: the next poll asks again
                self.metadata.request_update()
                return
            subscriptions = self.subscriptions
            for topic in response.body.topics:
                for p in topic.partitions:
                    tp = TopicPartition(topic.name, p.partition_index)
                    error = Errors.for_code(p.error_code)
                    if error != Errors.NONE:
                        self.metadata.request_update()
                    elif subscriptions.is_assigned(tp) and tp in subscriptions.partitions_needing_reset():
                        subscriptions.seek(tp, p.offset)
        finally:
            self._resetting.difference_update(partitions)

    def list_offsets(self, timestamps: dict[TopicPartition, int],
                     timeout_ms: int) -> dict[TopicPartition, tuple[int, int]]:
        """{tp: (offset, timestamp)} from each partition's leader; retries stale-metadata errors."""
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        result: dict[TopicPartition, tuple[int, int]] = {}
        remaining = dict(timestamps)
        while remaining:
            left = deadline - self.time.hi_res_clock_ms()
            if left <= 0:
                raise KafkaTimeoutError(f"ListOffsets for {sorted(map(str, remaining))} did not finish in "
                                        f"{timeout_ms} ms")
            self.metadata.add_topics(*{tp.topic for tp in remaining})
            by_leader: dict[int, dict[TopicPartition, int]] = {}
            for tp, ts in remaining.items():
                leader = self.metadata.cluster.leader_for(tp)
                if leader is not None:
                    by_leader.setdefault(leader.node_id, {})[tp] = ts
            if not by_leader:
                self.client.await_metadata(left)
                continue
            futures = [self.client.send(self._request(node_id, parts))
                       for node_id, parts in by_leader.items()]
            self.client.poll_until(lambda fs=futures: all(f.done() for f in fs), left)
            stale = False
            for future in futures:
                if not future.done():
                    continue
                response = future.result()
                if response.body is None:
                    stale = True
                    continue
                for topic in response.body.topics:
                    for p in topic.partitions:
                        tp = TopicPartition(topic.name, p.partition_index)
                        error = Errors.for_code(p.error_code)
                        if error == Errors.NONE:
                            result[tp] = (p.offset, p.timestamp)
                            remaining.pop(tp, None)
                        elif error in STALE_METADATA_ERRORS or error.retriable:
                            stale = True
                        else:
                            raise KafkaError(error, f"listing offsets of {tp}")
            if stale and remaining:
                self.client.await_metadata(max(1, deadline - self.time.hi_res_clock_ms()))
        return result

    def _request(self, node_id: int, partitions: dict[TopicPartition, int]):
        by_topic: dict[str, list[dict]] = {}
        for tp, ts in partitions.items():
            by_topic.setdefault(tp.topic, []).append({"partition_index": tp.partition, "timestamp": ts})
        body = {"replica_id": -1, "isolation_level": self.isolation_level,
                "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()]}
        return ClientRequest(node_id, ApiKey.LIST_OFFSETS, body)
