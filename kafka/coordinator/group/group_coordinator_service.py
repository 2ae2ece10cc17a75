"""GroupCoordinatorService: the group coordinator's front, over the coordinator runtime (Kafka's
org.apache.kafka.coordinator.group.GroupCoordinatorService).

Seed 004: "Every consumer sends Join Group Request to the Group Coordinator (a broker)." In Kafka 4
that broker's coordinator is this service. It holds no group state itself: it finds the
``__consumer_offsets`` partition a group id hashes to, hands the request to that partition's shard
as an event on the runtime, and turns the event's future into the API's answer::

    KafkaApis handler -> service.join_group(...) -> runtime.schedule_write_operation(tp, op)
        -> (an event thread) op(shard): decide, produce records -> append -> wait for the HW
        -> future completes -> the handler's callback sends the response

Writes (commits, heartbeats, joins, deletes) wait for their records to commit; reads (OffsetFetch,
DescribeGroups, ListGroups) run on the shard's committed state. Every method returns a
``concurrent.futures.Future`` holding the answer itself, errors already mapped to the API's codes,
so a handler only adds a callback and never blocks an I/O thread.

A share group's heartbeat has a second half (Kafka's persisterInitialize): when it found subscribed
partitions without share state, the service asks the share coordinator, through the persister, to
create it (``share_group_state_initializer``), and then writes down which partitions now have it
(or, if that failed, that they are no longer being initialized). The member's answer does not wait
for it: the partitions are handed out at a later heartbeat.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future

import structlog

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.coordinator.common.runtime.multi_threaded_event_processor import MultiThreadedEventProcessor
from kafka.coordinator.group.group import ApiError, error_of, normalize_error
from kafka.coordinator.group.group_config import GroupConfig
from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka.coordinator.group.modern.consumer.consumer_group import ConsumerGroupState
from kafka.coordinator.group.share_group_offsets_service import ShareGroupOffsetsService
from kafka.coordinator.group.streams.streams_group_service import StreamsGroupService
from kafka.protocol.errors import Errors
from kafka.utils.future_utils import compose
from kafka.utils.java_hash import java_string_hash, kafka_abs
from kafka.utils.time import Time
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.system_timer_reaper import SystemTimerReaper
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.group.GroupCoordinatorService")

# Kafka's Persister.initializeState, one partition at a time, as the group coordinator calls it:
# (group id, topic id, partition, state epoch, start offset) -> a Future of the error code.
ShareGroupStateInitializer = Callable[[str, uuid.UUID, int, int, int], Future]


def initialized_at_once(group_id: str, topic_id: uuid.UUID, partition: int, state_epoch: int,
                        start_offset: int) -> Future:
    """What Kafka's NoOpStatePersister answers: done, no error. The service uses it until the broker
    wires its persister (the share coordinator's DefaultStatePersister)."""
    return answered(Errors.NONE)


def offset_commit_error(error: Errors) -> Errors:
    """An offset commit's append failing as too large is the commit's fault: INVALID_COMMIT_OFFSET_SIZE."""
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.INVALID_COMMIT_OFFSET_SIZE
    return normalize_error(error)


def then(future: Future, on_result: Callable, on_error: Callable[[Errors], object]) -> Future:
    """A future of ``on_result(value)``, or of ``on_error(error)`` when ``future`` failed."""
    answer: Future = Future()

    def done(f: Future) -> None:
        exception = f.exception()
        try:
            answer.set_result(on_error(error_of(exception)) if exception is not None
                              else on_result(f.result()))
        except Exception as e:  # a bug in a mapping: answer rather than leave the client waiting
            log.error("mapping a group coordinator answer failed", error=repr(e))
            answer.set_result(on_error(Errors.UNKNOWN_SERVER_ERROR))

    future.add_done_callback(done)
    return answer


class OnceFuture:
    """A Future a shard's callback and the event's own failure may both try to complete: the first wins.
    Classic JoinGroup and SyncGroup answer from a later event (the join timer, the leader's sync);
    if the event that parked them never ran (NOT_COORDINATOR), its failure answers instead."""

    def __init__(self) -> None:
        self.future: Future = Future()
        self._lock = threading.Lock()

    def complete(self, value) -> None:
        with self._lock:
            if not self.future.done():
                self.future.set_result(value)


class GroupCoordinatorService:
    def __init__(self, config: GroupCoordinatorConfig, runtime, time: Time,
                 group_config_manager: GroupConfigManager | None = None) -> None:
        self.config = config
        # every group's own configs, as the metadata publisher hands them over (update_group_config)
        self.group_config_manager = group_config_manager or GroupConfigManager(config)
        self.runtime = runtime  # CoordinatorRuntime[GroupCoordinatorShard]
        self.time = time
        # (transactional_id, producer_id, producer_epoch, offsets partition) -> None if that partition of
        # __consumer_offsets is in the producer's ongoing transaction, else the error for TxnOffsetCommit;
        # set by the broker from the transaction coordinator (KIP-890's verification, done up front).
        # (transactional id, producer id, epoch, offsets partition, api version, callback(error or None))
        self.transaction_verifier: Callable[..., None] | None = None
        self.is_active = threading.Event()
        # metrics: how long a consumer group's assignor took (ms); the broker sets it to its histogram
        self.on_assignment: Callable[[float], None] = lambda ms: None
        # share groups: how the share coordinator is asked to create a partition's share state
        self.share_group_state_initializer: ShareGroupStateInitializer = initialized_at_once
        # ... and what an admin does to a share group's offsets (its persister calls are set there too)
        self.share_group_offsets = ShareGroupOffsetsService(
            self._write, self._read, self._not_active,
            lambda *partition: self.share_group_state_initializer(*partition))
        self.streams = StreamsGroupService(self._write, self._read, self._not_active, self.partition_for)

    @classmethod
    def build(cls, node_id: int, config: GroupCoordinatorConfig, replica_manager, time: Time, metrics_group,
              topics_image: Callable[[], dict],
              group_config_manager: GroupConfigManager | None = None) -> GroupCoordinatorService:
        """Kafka's GroupCoordinatorService.Builder, as the BrokerServer wires it: a runtime whose shards
        append through the ReplicaManager and load from it, with group.coordinator.threads event threads
        and a timer of its own."""
        metrics = CoordinatorRuntimeMetrics(time, metrics_group)
        service = cls(config, None, time, group_config_manager)
        service.runtime = CoordinatorRuntime(
            log_prefix=f"GroupCoordinator id={node_id}", time=time,
            timer=SystemTimerReaper(f"group-coordinator-reaper-{node_id}",
                                    SystemTimer("group-coordinator", time=time)),
            processor=MultiThreadedEventProcessor(f"group-coordinator-event-processor-{node_id}-",
                                                  config.num_threads, time, metrics),
            partition_writer=CoordinatorPartitionWriter(replica_manager),
            loader=CoordinatorLoaderImpl(replica_manager.read_partition_log, GroupCoordinatorRecordSerde(),
                                         time),
            coordinator_shard_builder=GroupCoordinatorShard.builder(config, topics_image,
                                                                    service.record_assignment_time,
                                                                    service.group_config_manager),
            serde=GroupCoordinatorRecordSerde(), metrics=metrics,
            default_write_timeout_ms=config.offset_commit_timeout_ms)
        service.share_group_offsets.topics_image = topics_image
        service.share_group_offsets.partition_end_offset = lambda tp: high_watermark(replica_manager, tp)
        return service

    # ------------------------------------------------------------------ lifecycle and routing
    def startup(self) -> None:
        self.is_active.set()
        log.info("started up", partitions=self.config.offsets_topic_num_partitions)

    def shutdown(self) -> None:
        self.is_active.clear()
        self.runtime.close()
        self.runtime.timer.shutdown()
        self.group_config_manager.close()

    # ------------------------------------------------------------------ the groups' own configs
    def update_group_config(self, group_id: str, props: Mapping[str, str]) -> None:
        """Kafka's updateGroupConfig: a group's configs changed in the metadata (the publisher calls this)."""
        self.group_config_manager.update_group_config(group_id, props)

    def group_config(self, group_id: str) -> GroupConfig | None:
        return self.group_config_manager.group_config(group_id)

    # ------------------------------------------------------------------ metrics over the shards here
    def _active_shards(self) -> list:
        contexts = list(self.runtime.coordinators.values())
        active = [c for c in contexts if c.state is CoordinatorState.ACTIVE]
        return [c.coordinator for c in active if c.coordinator is not None]

    def record_assignment_time(self, ms: float) -> None:
        """A shard's assignor took this long: to the histogram the broker set (on_assignment)."""
        self.on_assignment(ms)

    def consumer_group_rebalance_count(self) -> int:
        """Kafka's consumer-group-rebalance-count, over the shards loaded now."""
        return sum(c.coordinator.group_metadata_manager.consumer.rebalance_count
                   for c in self._active_shards())

    def consumer_group_count_by_state(self) -> dict[str, int]:
        """Kafka's consumer-group-count by state, read at each shard's committed offset (a metrics
        scrape is not one of the shard's events: it reads what the timeline kept, never the latest)."""
        counts = {str(s): 0 for s in ConsumerGroupState if s is not ConsumerGroupState.DEAD}
        for snapshottable in self._active_shards():
            try:
                shard_counts = snapshottable.coordinator.group_metadata_manager.consumer.count_by_state(
                    snapshottable.last_committed_offset)
            # that snapshot went meanwhile: the next scrape sees it
            except (KeyError, ValueError, RuntimeError):
                continue
            for state, n in shard_counts.items():
                counts[state] = counts.get(state, 0) + n
        return counts

    def partition_for(self, group_id: str) -> int:
        return kafka_abs(java_string_hash(group_id)) % self.config.offsets_topic_num_partitions

    def topic_partition_for(self, group_id: str) -> TopicPartition:
        return TopicPartition(GROUP_METADATA_TOPIC_NAME, self.partition_for(group_id))

    def on_election(self, partition: int, partition_epoch: int) -> None:
        """This broker leads the partition now: its shard loads it (COORDINATOR_LOAD_IN_PROGRESS
        meanwhile)."""
        self.runtime.schedule_load_operation(TopicPartition(GROUP_METADATA_TOPIC_NAME, partition),
                                             partition_epoch)

    def on_resignation(self, partition: int, partition_epoch: int | None) -> None:
        """It does not: the shard goes, its waiting answers say NOT_COORDINATOR."""
        self.runtime.schedule_unload_operation(TopicPartition(GROUP_METADATA_TOPIC_NAME, partition),
                                               partition_epoch)

    def offsets_topic_configs(self) -> dict[str, str]:
        """How __consumer_offsets is created: compacted, with its own segment size (Kafka's
        GroupCoordinatorService.groupMetadataTopicConfigs)."""
        return {"cleanup.policy": "compact",
                "segment.bytes": str(self.config.offsets_topic_segment_bytes),
                "compression.type": "producer"}

    def _not_active(self) -> Errors | None:
        return None if self.is_active.is_set() else Errors.COORDINATOR_NOT_AVAILABLE

    def _write(self, name: str, group_id: str, op: Callable) -> Future:
        return self.runtime.schedule_write_operation(name, self.topic_partition_for(group_id),
                                                     self.config.offset_commit_timeout_ms, op)

    def _read(self, name: str, group_id: str, op: Callable) -> Future:
        return self.runtime.schedule_read_operation(name, self.topic_partition_for(group_id), op)

    # ------------------------------------------------------------------ classic groups
    def join_group(self, request, context) -> Future:
        """JoinGroup: answered when the join phase ends (perhaps a later event: the join timer, the
        last member's join), through the callback the shard parks in the member."""
        from kafka.coordinator.group.classic.classic_group_manager import JoinGroupResult
        if (error := self._not_active() or _invalid_group_id(request.group_id)) is not None:
            return answered(JoinGroupResult(error, request.member_id))
        answer = OnceFuture()
        written = self._write("classic-group-join", request.group_id,
                              lambda shard: shard.classic_group_join(context, request, answer.complete))
        written.add_done_callback(lambda f: f.exception() is not None and answer.complete(
            JoinGroupResult(normalize_error(error_of(f.exception())), request.member_id)))
        return answer.future

    def sync_group(self, request, context) -> Future:
        from kafka.coordinator.group.classic.classic_group_manager import SyncGroupResult
        if (error := self._not_active() or _invalid_group_id(request.group_id)) is not None:
            return answered(SyncGroupResult(error))
        answer = OnceFuture()
        written = self._write("classic-group-sync", request.group_id,
                              lambda shard: shard.classic_group_sync(context, request, answer.complete))

        def failed(f: Future) -> None:
            if f.exception() is None:
                return
            error = error_of(f.exception())
            # The group was here before a reload: its members must rejoin to restore its state.
            answer.complete(SyncGroupResult(Errors.REBALANCE_IN_PROGRESS
                                            if error == Errors.COORDINATOR_LOAD_IN_PROGRESS
                                            else normalize_error(error)))
        written.add_done_callback(failed)
        return answer.future

    def heartbeat(self, request, context) -> Future:
        if (error := self._not_active() or _invalid_group_id(request.group_id)) is not None:
            return answered(error)

        def on_error(error: Errors) -> Errors:
            # The group is still loading: answer NONE rather than make every member rejoin (as Kafka does).
            return Errors.NONE if error == Errors.COORDINATOR_LOAD_IN_PROGRESS else normalize_error(error)
        return then(self._write("classic-group-heartbeat", request.group_id,
                                lambda shard: shard.classic_group_heartbeat(context, request)),
                    lambda response: response, on_error)

    def leave_group(self, request, context) -> Future:
        """Answers (top-level error, [(leaving member, error)])."""
        if (error := self._not_active() or _invalid_group_id(request.group_id)) is not None:
            return answered((error, [(m, error) for m in request.members]))
        return then(self._write("classic-group-leave", request.group_id,
                                lambda shard: shard.classic_group_leave(context, request)),
                    lambda response: response,
                    lambda error: (normalize_error(error),
                                   [(m, normalize_error(error)) for m in request.members]))

    # ------------------------------------------------------------------ consumer groups (KIP-848)
    def consumer_group_heartbeat(self, request, context) -> Future:
        from kafka.coordinator.group.consumer_group_manager import error_response
        if (error := self._not_active() or _invalid_group_id(request.group_id)) is not None:
            return answered(error_response(error, None))
        written = self._write("consumer-group-heartbeat", request.group_id,
                              lambda shard: shard.consumer_group_heartbeat(context, request))
        answer: Future = Future()

        def done(f: Future) -> None:
            exception = f.exception()
            if exception is None:
                answer.set_result(f.result())
                return
            error = normalize_error(error_of(exception))  # a refusal keeps its message, as Kafka's does
            answer.set_result(error_response(error, exception.message if isinstance(exception, ApiError)
                                             else None))
        written.add_done_callback(done)
        return answer

    def consumer_group_describe(self, group_id: str) -> Future:
        """ConsumerGroupDescribe's entry for one group, read from committed state."""
        from kafka.coordinator.group.consumer_group_manager import described_error
        if (error := self._not_active()) is not None:
            return answered(described_error(group_id, error))
        return then(self._read("consumer-group-describe", group_id,
                               lambda shard, committed: shard.consumer_group_describe(group_id, committed)),
                    lambda described: described, lambda error: described_error(group_id, error))

    # ------------------------------------------------------------------ share groups (KIP-932)
    def share_group_heartbeat(self, request, context) -> Future:
        """ShareGroupHeartbeat's answer, once its records commit. Partitions that still need share
        state are then given to the persister (persister_initialize); the answer does not wait."""
        from kafka.coordinator.group.share_group_manager import (
            error_response,
            throw_if_share_group_heartbeat_request_is_invalid,
        )
        if (error := self._not_active()) is not None:
            return answered(error_response(error, None))
        try:
            throw_if_share_group_heartbeat_request_is_invalid(request)
        except ApiError as e:
            return answered(error_response(e.error, e.message))
        written = self._write("share-group-heartbeat", request.group_id,
                              lambda shard: shard.share_group_heartbeat(context, request))
        answer: Future = Future()

        def done(f: Future) -> None:
            exception = f.exception()
            if exception is not None:
                answer.set_result(error_response(normalize_error(error_of(exception)),
                                                 exception.message if isinstance(exception, ApiError)
                                                 else None))
                return
            response, initialize = f.result()
            answer.set_result(response)
            if initialize is not None:
                self.persister_initialize(initialize)
        written.add_done_callback(done)
        return answer

    def persister_initialize(self, parameters) -> Future:
        """Kafka's persisterInitialize and handlePersisterInitializeResponse: ask for every partition's
        share state; when all answered, write them as initialized, or, if any failed, as no longer
        initializing (a later heartbeat asks again). A future of the error."""
        group_id, partitions = parameters.group_id, parameters.topic_partitions()
        asked = []
        for topic_id, offsets in parameters.start_offsets.items():
            for partition, start_offset in sorted(offsets.items()):
                try:
                    asked.append(self.share_group_state_initializer(group_id, topic_id, partition,
                                                                    parameters.state_epoch, start_offset))
                except Exception as e:  # a persister that cannot even take the call: as if it failed
                    log.error("persister refused to initialize share state", group_id=group_id, error=repr(e))
                    asked.append(answered(Errors.UNKNOWN_SERVER_ERROR))
        result: Future = Future()

        def all_answered(codes: list) -> None:
            error = next((Errors(code) for code in codes if code != Errors.NONE), Errors.NONE)
            if error != Errors.NONE:
                log.error("persister could not initialize share state", group_id=group_id, error=error.name)
                self.uninitialize_share_group_state(group_id, partitions, error, result)
                return
            written = self._write("initialize-share-group-state", group_id,
                                  lambda shard: shard.initialize_share_group_state(group_id, partitions))

            def initialized(f: Future) -> None:
                if f.exception() is None:
                    result.set_result(Errors.NONE)
                    return
                failed = normalize_error(error_of(f.exception()))
                log.error("could not write the initialized share state", group_id=group_id, error=failed.name)
                self.uninitialize_share_group_state(group_id, partitions, failed, result)
            written.add_done_callback(initialized)
        gather([then(f, lambda code: code, lambda error: error) for f in asked], lambda codes: codes
               ).add_done_callback(lambda f: all_answered(f.result()))
        return result

    def uninitialize_share_group_state(self, group_id: str, partitions: dict, error: Errors,
                                       result: Future) -> None:
        """The partitions are no longer initializing; ``result`` gets ``error`` once that is written."""
        written = self._write("uninitialize-share-group-state", group_id,
                              lambda shard: shard.uninitialize_share_group_state(group_id, partitions))
        written.add_done_callback(lambda _: result.set_result(error))

    def share_group_describe(self, group_ids: list[str]) -> Future:
        """ShareGroupDescribe's groups, read from committed state: an empty id is INVALID_GROUP_ID, the
        others are asked of their shards, one read per shard (Kafka's order: the invalid ones first)."""
        from kafka.coordinator.group.share_group_manager import described_error
        if (error := self._not_active()) is not None:
            return answered([described_error(g, error) for g in group_ids])
        futures, by_partition = [], {}
        for group_id in group_ids:
            if _invalid_group_id(group_id) is not None:
                invalid = described_error("", Errors.INVALID_GROUP_ID)
                futures.append(answered([{**invalid, "error_message": None}]))
            else:
                by_partition.setdefault(self.partition_for(group_id), []).append(group_id)
        for ids in by_partition.values():
            futures.append(then(self._read("share-group-describe", ids[0],
                                           lambda shard, committed,
                                           ids=ids: shard.share_group_describe(ids, committed)),
                                lambda described: described,
                                lambda error,
                                ids=ids: [described_error(g, normalize_error(error)) for g in ids]))
        return gather(futures, lambda results: [group for described in results for group in described])

    def initialized_share_group_partitions(self, group_id: str) -> Future:
        """{topic id: partitions} whose share state exists, from committed state (what deleting the
        group must ask the persister to delete; Kafka's sharePartitionDeleteRequests)."""
        return then(self._read("initialized-share-group-partitions", group_id,
                               lambda shard,
                               committed: shard.initialized_share_group_partitions(group_id, committed)),
                    lambda partitions: partitions, lambda error: {})

    # ------------------------------------------------------------------ views and deletes
    def describe_group(self, group_id: str, api_version: int = 5) -> Future:
        """DescribeGroups of one group: (error, the shard's description, or None: unknown, before v6)."""
        if (error := self._not_active()) is not None:
            return answered((error, None))
        read = self._read("describe-groups", group_id,
                          lambda shard, committed: shard.describe_group(group_id, committed, api_version))
        return then(read, lambda described: (Errors.NONE, described), lambda error: (error, None))

    def list_groups(self, states: set[str], types: set[str]) -> Future:
        """(error, [listed group dicts]) over every shard here: a loading one makes the error
        COORDINATOR_LOAD_IN_PROGRESS, with the others' groups; one that moved away is skipped."""
        if (error := self._not_active()) is not None:
            return answered((error, []))
        futures = [then(f, lambda listed: (Errors.NONE, listed), lambda error: (error, []))
                   for f in self.runtime.schedule_read_all_operation(
                       "list-groups", lambda shard, committed: shard.list_groups(states, types, committed))]
        return gather(futures, _combine_listed)

    def delete_groups(self, group_ids: list[str]) -> Future:
        """{group id: error}, each shard's groups deleted by one write whose tombstones must commit. A
        share group's state in the share coordinator is deleted first, through the persister (Kafka's
        deleteShareGroups); a share group whose state could not go stays, with that error."""
        if (error := self._not_active()) is not None:
            return answered({g: error for g in group_ids})
        by_partition: dict[int, list[str]] = {}
        errors: dict[str, Errors] = {}
        for group_id in group_ids:
            if _invalid_group_id(group_id) is not None:
                errors[group_id] = Errors.INVALID_GROUP_ID
            else:
                by_partition.setdefault(self.partition_for(group_id), []).append(group_id)
        futures = [compose(self.share_group_offsets.delete_share_groups(ids),
                           lambda share_errors, ids=ids: self._delete_groups(ids, share_errors))
                   for ids in by_partition.values()]
        return gather(futures, lambda results: {**errors, **{g: e for r in results for g, e in r.items()}})

    def _delete_groups(self, group_ids: list[str], share_errors: dict[str, Errors]) -> Future:
        failed = {g: e for g, e in share_errors.items() if e != Errors.NONE}
        rest = [g for g in group_ids if g not in failed]
        if not rest:
            return answered(failed)
        return then(self._write("delete-groups", rest[0], lambda shard: shard.delete_groups(rest)),
                    lambda response: {**failed, **response},
                    lambda error: {**failed, **{g: normalize_error(error) for g in rest}})

    # ------------------------------------------------------------------ offsets
    def commit_offsets(self, request, context) -> Future:
        """{partition: error}; the offsets are answered once their records commit."""
        if (error := self._not_active() or _invalid_group_id(request.group_id, allow_empty=True)) is not None:
            return answered({tp: error for tp in request.offsets})
        return then(self._write("commit-offset", request.group_id,
                                lambda shard: shard.commit_offset(context, request)),
                    lambda response: response,
                    lambda error: {tp: offset_commit_error(error) for tp in request.offsets})

    def commit_transactional_offsets(self, request, context) -> Future:
        """TxnOffsetCommit: the offsets go into the producer's transaction, pending until its marker, once
        ``transaction_verifier`` (the AddPartitionsToTxnManager, KIP-890) has the partition in it."""
        if (error := self._not_active() or _invalid_group_id(request.group_id, allow_empty=True)) is not None:
            return answered({tp: error for tp in request.offsets})
        answer: Future = Future()
        if self.transaction_verifier is None:
            self._commit_verified(request, context, None, answer)
        else:
            self.transaction_verifier(request.transactional_id, request.producer_id, request.producer_epoch,
                                      self.partition_for(request.group_id), request.api_version,
                                      lambda e: self._commit_verified(request, context, e, answer))
        return answer

    def _commit_verified(self, request, context, error: Errors | None, answer: Future) -> None:
        if error is not None:
            return answer.set_result({tp: error for tp in request.offsets})
        future = self.runtime.schedule_transactional_write_operation(
            "txn-commit-offset", self.topic_partition_for(request.group_id), request.transactional_id,
            request.producer_id, request.producer_epoch, self.config.offset_commit_timeout_ms,
            lambda shard: shard.commit_transactional_offset(context, request))
        then(future, lambda r: r, lambda e: dict.fromkeys(request.offsets, offset_commit_error(e))
             ).add_done_callback(lambda f: answer.set_result(f.result()))

    def fetch_offsets(self, group_id: str, partitions, require_stable: bool, member_id: str | None = None,
                      member_epoch: int = -1, topic_ids: dict | None = None) -> Future:
        """(error, {partition: PartitionOffset}). With require_stable it runs as a write, on the latest
        state, so it sees (and answers UNSTABLE_OFFSET_COMMIT for) pending transactional offsets; else
        a read of committed state (Kafka's fetchOffsets / fetchAllOffsets)."""
        if (error := self._not_active() or _invalid_group_id(group_id, allow_empty=True)) is not None:
            return answered((error, {}))
        if require_stable:
            future = self._write("fetch-offsets", group_id, lambda shard: shard.fetch_offsets_stable(
                group_id, partitions, member_id, member_epoch, topic_ids))
        else:
            future = self._read("fetch-offsets", group_id, lambda shard, committed: shard.fetch_offsets(
                group_id, partitions, member_id, member_epoch, committed, topic_ids))
        return then(future, lambda response: response, lambda error: (normalize_error(error), {}))

    def delete_offsets(self, group_id: str, partitions) -> Future:
        """OffsetDelete: (error, {partition: error})."""
        if (error := self._not_active() or _invalid_group_id(group_id, allow_empty=True)) is not None:
            return answered((error, {}))
        return then(self._write("delete-offsets", group_id,
                                lambda shard: shard.delete_offsets(group_id, partitions)),
                    lambda response: response, lambda error: (normalize_error(error), {}))

    # ------------------------------------------------------------------ transactions (KIP-98)
    def complete_transaction(self, partition: int, producer_id: int, producer_epoch: int,
                             coordinator_epoch: int, commit: bool, timeout_ms: int) -> Future:
        """WriteTxnMarkers for a __consumer_offsets partition: the shard writes the marker itself and
        replays it (the producer's pending offsets become committed, or go); answers the error."""
        if (error := self._not_active()) is not None:
            return answered(error)
        result = TransactionResult.COMMIT if commit else TransactionResult.ABORT
        future = self.runtime.schedule_transaction_completion(
            "write-txn-marker", TopicPartition(GROUP_METADATA_TOPIC_NAME, partition), producer_id,
            producer_epoch, coordinator_epoch, result, timeout_ms)
        return then(future, lambda _: Errors.NONE, lambda error: error)


def answered(value) -> Future:
    """A future that already has its answer (a request refused before it reached a shard)."""
    future: Future = Future()
    future.set_result(value)
    return future


def high_watermark(replica_manager, tp: TopicPartition) -> int | None:
    """A partition's end for a share partition's lag: its high watermark here (Kafka asks the leader
    with ListOffsets; a partition not hosted here has no lag shown)."""
    error, _, offset = replica_manager.fetch_offset_for_timestamp(tp, -1, 0, -1)
    return offset if error == Errors.NONE else None


def _invalid_group_id(group_id: str | None, allow_empty: bool = False) -> Errors | None:
    """Kafka's isGroupIdNotEmpty check: an empty id is refused where a group must be named."""
    if group_id is None or (not group_id and not allow_empty):
        return Errors.INVALID_GROUP_ID
    return None


def gather(futures: list[Future], combine: Callable[[list], object]) -> Future:
    """One future of ``combine([each future's result])`` once all are done (no thread waits)."""
    answer: Future = Future()
    if not futures:
        answer.set_result(combine([]))
        return answer
    remaining = [len(futures)]
    lock = threading.Lock()

    def done(_: Future) -> None:
        with lock:
            remaining[0] -= 1
            if remaining[0]:
                return
        answer.set_result(combine([f.result() for f in futures]))
    for future in futures:
        future.add_done_callback(done)
    return answer


def _combine_listed(results: list[tuple[Errors, list]]) -> tuple[Errors, list]:
    """Kafka's ListGroups over shards: a shard still loading makes the answer's error
    COORDINATOR_LOAD_IN_PROGRESS (the groups of the others still listed); one that moved away says
    nothing."""
    errors = {error for error, _ in results} - {Errors.NONE, Errors.NOT_COORDINATOR}
    error = Errors.COORDINATOR_LOAD_IN_PROGRESS if Errors.COORDINATOR_LOAD_IN_PROGRESS in errors else (
        next(iter(errors)) if errors else Errors.NONE)
    return error, [group for _, listed in results for group in listed]
