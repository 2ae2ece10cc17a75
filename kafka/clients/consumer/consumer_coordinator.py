"""ConsumerCoordinator: the consumer's part of the group protocol -- subscriptions, assignments
and committed offsets (Kafka's consumer.internals.ConsumerCoordinator).

On top of AbstractCoordinator's join/sync/heartbeat it decides what a consumer puts in its
JoinGroup (its topics, and the partitions it owns, for cooperative assignors), runs the chosen
assignor when this member is the leader, applies an assignment when SyncGroup returns it, and
commits and fetches offsets (OffsetCommit / OffsetFetch to the coordinator; the broker's
GroupCoordinator writes them to ``__consumer_offsets``). With ``enable.auto.commit`` the
positions are committed every ``auto.commit.interval.ms`` from ``poll()``, and before a
rebalance takes partitions away.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.clients.client_request import ClientResponse
from kafka.clients.consumer.abstract_coordinator import AbstractCoordinator
from kafka.clients.consumer.assignors import ASSIGNORS, RebalanceProtocol, Subscription
from kafka.clients.consumer.subscription_state import OffsetAndMetadata, SubscriptionState
from kafka.clients.errors import ConfigError, KafkaError, KafkaTimeoutError
from kafka.clients.metadata import Metadata
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.consumer_protocol import (
    deserialize_assignment,
    deserialize_subscription,
    serialize_assignment,
    serialize_subscription,
)
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.clients.consumer.ConsumerCoordinator")

# OffsetCommit v10 names topics by id (KIP-848); the classic consumer names them, as Kafka's
# ConsumerCoordinator does (OffsetCommitRequest.Builder.forTopicNames: v9 at most).
OFFSET_COMMIT_BY_NAME = 9


class ConsumerRebalanceListener:
    """Override to act when partitions are taken away (commit!) or handed to this consumer."""

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pass

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        pass


def _by_topic(partitions) -> list[dict]:
    grouped: dict[str, list[int]] = {}
    for tp in sorted(partitions):
        grouped.setdefault(tp.topic, []).append(tp.partition)
    return [{"topic": t, "partitions": ps} for t, ps in grouped.items()]


def _from_by_topic(entries) -> list[TopicPartition]:
    return [TopicPartition(e.topic, p) for e in entries for p in e.partitions]


class ConsumerCoordinator(AbstractCoordinator):
    def __init__(self, client: NetworkClient, subscriptions: SubscriptionState, metadata: Metadata, config,
                 time: Time) -> None:
        max_poll = config["max.poll.interval.ms"]
        super().__init__(client, config["group.id"], config["group.instance.id"],
                         config["session.timeout.ms"],
                         config["rebalance.timeout.ms"] or max_poll, config["heartbeat.interval.ms"],
                         max_poll,
                         config["retry.backoff.ms"], time)
        unknown = [n for n in config["partition.assignment.strategy"] if n not in ASSIGNORS]
        if unknown:
            raise ConfigError(f"invalid value {unknown[0]!r} for config 'partition.assignment.strategy': "
                              f"known assignors are range, roundrobin, cooperative-sticky")
        self.assignors = [ASSIGNORS[n]() for n in config["partition.assignment.strategy"]]
        # Cooperative only if every assignor we offer is: the group may pick any of them.
        cooperative = all(a.rebalance_protocol == RebalanceProtocol.COOPERATIVE for a in self.assignors)
        self.protocol = RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER
        self.subscriptions = subscriptions
        self.metadata = metadata
        self.listener = ConsumerRebalanceListener()
        self.auto_commit_enabled = config["enable.auto.commit"]
        self.auto_commit_interval_ms = config["auto.commit.interval.ms"]
        self.next_auto_commit_ms = time.hi_res_clock_ms() + self.auto_commit_interval_ms
        self.assignment_snapshot: dict[str, int] | None = None  # the leader's view when it assigned
        # (partitions, generation, future)
        self._pending_offset_fetch: tuple[frozenset, int, Future] | None = None

    # ------------------------------------------------------------------ called from poll()
    def poll(self, timeout_ms: float) -> bool:
        """Keep membership and auto-commit going; False if the group is not joined in time."""
        self.heartbeat.poll_called()
        if self.subscriptions.subscription:
            self.metadata.set_topics(self.subscriptions.subscription)
            self._maybe_rejoin_for_metadata_change()
            if self.rejoin_needed and not self.ensure_active_group(timeout_ms):
                return False
        self.maybe_auto_commit_offsets_async()
        return True

    def _maybe_rejoin_for_metadata_change(self) -> None:
        """The leader notices a topic growing partitions (or appearing) and starts a rebalance."""
        if self.assignment_snapshot is None or self.leader_id != self.member_id:
            return
        if self._partitions_per_topic(self.subscriptions.subscription) != self.assignment_snapshot:
            self.request_rejoin("subscribed topics' partitions changed")

    def _partitions_per_topic(self, topics) -> dict[str, int]:
        cluster = self.metadata.cluster
        return {t: cluster.partition_count(t) for t in topics if cluster.partition_count(t)}

    # ------------------------------------------------------------------ the group protocol
    def join_metadata(self) -> list[tuple[str, bytes]]:
        cooperative = self.protocol == RebalanceProtocol.COOPERATIVE
        owned = self.subscriptions.assigned_partitions() if cooperative else []
        data = serialize_subscription({"topics": sorted(self.subscriptions.subscription), "user_data": None,
                                       "owned_partitions": _by_topic(owned),
                                       "generation_id": self.generation_id,
                                       "rack_id": None})
        return [(a.name, data) for a in self.assignors]

    def on_join_prepare(self, generation_id: int, member_id: str) -> None:
        self.maybe_auto_commit_offsets_sync()
        if self.protocol == RebalanceProtocol.EAGER or generation_id < 0:
            revoked = self.subscriptions.assigned_partitions()
            if revoked:
                self.listener.on_partitions_revoked(revoked)
            self.subscriptions.assign_from_subscribed([])

    def perform_assignment(self, leader_id: str, protocol: str, members: list) -> dict[str, bytes]:
        assignor = next(a for a in self.assignors if a.name == protocol)
        subscriptions = {}
        for m in members:
            sub = deserialize_subscription(m.metadata)
            subscriptions[m.member_id] = Subscription(list(sub.topics),
                                                      _from_by_topic(sub.get("owned_partitions", [])),
                                                      sub.get("generation_id", -1))
        topics = {t for s in subscriptions.values() for t in s.topics}
        self.metadata.add_topics(*topics)
        if any(self.metadata.cluster.partition_count(t) is None for t in topics):
            self.client.await_metadata(self.client.request_timeout_ms)
        partitions_per_topic = self._partitions_per_topic(topics)
        self.assignment_snapshot = self._partitions_per_topic(self.subscriptions.subscription)
        assignment = assignor.assign(partitions_per_topic, subscriptions)
        log.info("assigned partitions as group leader", group=self.group_id, assignor=protocol,
                 assignment={m: [str(tp) for tp in tps] for m, tps in assignment.items()})
        return {m: serialize_assignment({"assigned_partitions": _by_topic(tps), "user_data": None})
                for m, tps in assignment.items()}

    def on_join_complete(self, generation_id: int, member_id: str, protocol: str, assignment: bytes) -> None:
        assigned = set()
        if assignment:
            assigned = set(_from_by_topic(deserialize_assignment(assignment).assigned_partitions))
        owned = self.subscriptions.assigned_partitions()
        revoked = owned - assigned
        if revoked:  # cooperative: give these up now; the next rebalance hands them to their new owner
            self.commit_offsets_sync({tp: o for tp, o in self.subscriptions.all_consumed().items()
                                      if tp in revoked})
            self.listener.on_partitions_revoked(revoked)
        self.subscriptions.assign_from_subscribed(sorted(assigned))
        self.listener.on_partitions_assigned(assigned - owned)
        self.next_auto_commit_ms = self.time.hi_res_clock_ms() + self.auto_commit_interval_ms
        if revoked:
            self.request_rejoin("partitions were revoked and must be reassigned")

    # ------------------------------------------------------------------ committed offsets
    def refresh_committed_offsets_if_needed(self, timeout_ms: float) -> bool:
        """Positions for partitions that have none: the committed offset, else auto.offset.reset.

        False if the committed offsets are not known yet: the caller must then leave those
        partitions alone (no auto.offset.reset!) and ask again on the next poll, which waits for
        the same OffsetFetch. Resetting instead re-read a partition from the beginning whenever
        its OffsetFetch was slower than poll()'s timeout, as in an eager rebalance on a busy machine."""
        missing = self.subscriptions.missing_fetch_positions()
        if not missing:
            return True
        committed = self.fetch_committed_offsets(set(missing), timeout_ms)
        if committed is None:
            return False
        for tp in missing:
            if not self.subscriptions.is_assigned(tp):
                continue
            offset = committed.get(tp)
            if offset is not None:
                self.subscriptions.seek(tp, offset.offset)
            else:
                self.subscriptions.request_offset_reset(tp)
        return True

    def fetch_committed_offsets(self, partitions: set[TopicPartition],
                                timeout_ms: float) -> dict[TopicPartition, OffsetAndMetadata] | None:
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        wanted = frozenset(partitions)
        while True:
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.hi_res_clock_ms())):
                return None
            # A request for the same partitions still in flight from an earlier poll is waited for,
            # not sent again (Kafka's PendingCommittedOffsetRequest): otherwise an OffsetFetch that
            # is always slower than the poll timeout would never be answered in time.
            pending = self._pending_offset_fetch
            if pending is not None and pending[0] == wanted and pending[1] == self.generation_id:
                future = pending[2]
            else:
                body = {"group_id": self.group_id, "require_stable": True,
                        "topics": [{"name": t["topic"], "partition_indexes": t["partitions"]}
                                   for t in _by_topic(partitions)]}
                # v8 moved everything into a per-group array; v7 is enough for one group.
                future = self._send_to_coordinator(ApiKey.OFFSET_FETCH, body, max_version=7)
                self._pending_offset_fetch = (wanted, self.generation_id, future)
            response = self._wait(future, deadline)
            if response is None:
                return None
            self._pending_offset_fetch = None
            error = self._response_error(response)
            if error == Errors.NONE:
                result = {}
                for topic in response.body.topics:
                    for p in topic.partitions:
                        perr = Errors.for_code(p.error_code)
                        if perr != Errors.NONE:
                            if perr.retriable:
                                error = perr
                                break
                            raise KafkaError(perr,
                                             "fetching the committed offset of "
                                             f"{topic.name}-{p.partition_index}")
                        if p.committed_offset >= 0:
                            result[TopicPartition(topic.name, p.partition_index)] = OffsetAndMetadata(
                                p.committed_offset, p.metadata or "")
                if error == Errors.NONE:
                    return result
            if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
                self.mark_coordinator_unknown(error.name)
            elif not error.retriable:
                raise KafkaError(error, f"OffsetFetch for group {self.group_id!r}")
            if self.time.hi_res_clock_ms() >= deadline:
                return None
            self._backoff(deadline)

    def _offset_commit_body(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> dict:
        by_topic: dict[str, list[dict]] = {}
        for tp, om in sorted(offsets.items()):
            by_topic.setdefault(tp.topic,
                                []).append({"partition_index": tp.partition, "committed_offset": om.offset,
                                            "committed_leader_epoch": om.leader_epoch,
                                            "committed_metadata": om.metadata})
        # A consumer that only assign()s commits as generation -1 with no member id ("simple" group).
        active = bool(self.subscriptions.subscription) and self.generation_is_stable()
        return {"group_id": self.group_id, "generation_id_or_member_epoch": self.generation_id if active
                else -1,
                "member_id": self.member_id if active else "", "group_instance_id": self.group_instance_id,
                "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()]}

    def commit_offsets_sync(self, offsets: dict[TopicPartition, OffsetAndMetadata],
                            timeout_ms: float = 60000) -> None:
        if not offsets:
            return
        deadline = self.time.hi_res_clock_ms() + timeout_ms
        while True:
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.hi_res_clock_ms())):
                raise KafkaTimeoutError(f"no coordinator for group {self.group_id!r} within {timeout_ms} ms")
            response = self._wait(self._send_to_coordinator(ApiKey.OFFSET_COMMIT,
                                                            self._offset_commit_body(offsets),
                                                            max_version=OFFSET_COMMIT_BY_NAME),
                                  deadline)
            if response is None:
                raise KafkaTimeoutError(f"offset commit for group {self.group_id!r} took longer than "
                                        f"{timeout_ms} ms")
            error = self._commit_error(response)
            if error == Errors.NONE:
                return
            if not error.retriable or self.time.hi_res_clock_ms() >= deadline:
                raise KafkaError(error, f"committing offsets for group {self.group_id!r}")
            self._backoff(deadline)

    def commit_offsets_async(self, offsets: dict[TopicPartition, OffsetAndMetadata],
                             callback: Callable[[dict, BaseException | None], None] | None = None) -> Future:
        result: Future = Future()
        if not offsets:
            result.set_result(offsets)
            return result

        def done(response_future: Future) -> None:
            error = self._commit_error(response_future.result())
            exception = None if error == Errors.NONE else KafkaError(error, "async offset commit")
            if callback is not None:
                callback(offsets, exception)
            if exception is None:
                result.set_result(offsets)
            else:
                result.set_exception(exception)

        self._send_to_coordinator(ApiKey.OFFSET_COMMIT, self._offset_commit_body(offsets),
                                  max_version=OFFSET_COMMIT_BY_NAME).add_done_callback(done)
        return result

    def _commit_error(self, response: ClientResponse) -> Errors:
        error = self._response_error(response)
        if error == Errors.NONE:
            for topic in response.body.topics:
                for p in topic.partitions:
                    if p.error_code != Errors.NONE:
                        error = Errors.for_code(p.error_code)
        if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.mark_coordinator_unknown(error.name)
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.REBALANCE_IN_PROGRESS):
            self.request_rejoin(f"offset commit failed with {error.name}")
        return error

    def maybe_auto_commit_offsets_async(self) -> None:
        now = self.time.hi_res_clock_ms()
        if self.auto_commit_enabled and now >= self.next_auto_commit_ms:
            self.next_auto_commit_ms = now + self.auto_commit_interval_ms
            if not self.coordinator_unknown():
                self.commit_offsets_async(self.subscriptions.all_consumed())

    def maybe_auto_commit_offsets_sync(self, timeout_ms: int = 5000) -> None:
        if self.auto_commit_enabled:
            try:
                self.commit_offsets_sync(self.subscriptions.all_consumed(), timeout_ms)
            except KafkaError as e:
                log.warning("auto offset commit failed", group=self.group_id, error=str(e))

    def close(self, timeout_ms: int = 30000) -> None:
        self.maybe_auto_commit_offsets_sync(min(timeout_ms, 5000))
        super().close(timeout_ms)
