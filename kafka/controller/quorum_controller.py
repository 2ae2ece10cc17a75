"""QuorumController: the KRaft controller (Kafka's org.apache.kafka.controller.QuorumController).

Seed 004: "New Metadata on KRaft": one controller of the quorum is active -- the one whose raft
client leads `__cluster_metadata` -- and it alone decides metadata: broker registrations and
fencing, topics, replica placement, leaders and ISRs, configs, client quotas, ACLs, and the blocks of
producer ids brokers hand to idempotent producers. The others are standbys: they replay
the log into the same state, so that one of them can take over the moment it is elected.

Everything runs on one thread (KafkaEventQueue). A write is one event:

    decide (a manager returns a ControllerResult: records + a response; it changes nothing)
      -> raft_client.schedule_append(epoch, records) -> the offset they will have
      -> replay the records into the managers at once (the next decision must see them)
      -> park the response until that offset is committed (DeferredEventQueue) -- only then is it true

The rule that keeps standbys equal to the active controller: state changes only in replay. A
decision reads the managers and returns records; it never replays one early to see its effect (a
fenced broker's partitions are moved by telling ReplicationControlManager which broker to leave
out). A read, or a write that decides to write nothing, is answered once the highest offset still
pending commits, as Kafka's ControllerWriteEvent does: what it saw may be a decision the quorum has
not committed yet, and might never.

A standby replays records in handle_commit. A controller that loses leadership throws away what
it decided but the quorum did not commit: it resets its managers to the committed MetadataImage it
keeps (kafka.image), by replaying that image's records. It loses leadership when the raft client
refuses an append (NotLeaderError) or names another leader, and when an event fails with an
exception nothing expected (Kafka's handleEventException): that is a fault, logged with its
traceback and counted in MetadataErrorCount, and the controller renounces and resigns the raft
leadership, since its in-memory state may be half-changed; the caller gets UNKNOWN_SERVER_ERROR.

An admin request's decision is bounded before it is replayed (MAX_RECORDS_PER_USER_OP): more than
10,000 records, or more bytes than a metadata log batch holds, and the whole request is refused with
POLICY_VIOLATION. On shutdown each caller still waiting is answered REQUEST_TIMED_OUT.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.controller.acl_control_manager import AclControlManager, not_controller_acls_response
from kafka.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafka.controller.client_quota_control_manager import ClientQuotaControlManager
from kafka.controller.cluster_control_manager import (
    ClusterControlManager,
    StaleBrokerEpochError,
    broker_registration_reply,
)
from kafka.controller.configuration_control_manager import (
    ConfigurationControlManager,
    ConfigurationValidator,
)
from kafka.controller.controller_result import (
    EXCESSIVE_BATCH_MESSAGE,
    SHUTTING_DOWN_MESSAGE,
    ControllerResult,
    bounded_batch,
    with_error,
)
from kafka.controller.deferred_event_queue import DeferredEventQueue
from kafka.controller.feature_control_manager import FeatureControlManager, kraft_version_reader
from kafka.controller.kafka_event_queue import KafkaEventQueue
from kafka.controller.periodic_task_control_manager import (
    Operation,
    PeriodicTask,
    PeriodicTaskControlManager,
)
from kafka.controller.producer_id_control_manager import (
    ProducerIdControlManager,
    ProducerIdsExhaustedError,
)
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.controller.quorum_controller_metrics import QuorumControllerMetrics
from kafka.controller.replication_control_manager import ReplicationControlManager, create_topics_error
from kafka.controller.scram_control_manager import SCRAM_RECORDS, ScramControlManager
from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED
from kafka.protocol.metadata_records import (
    TOPIC_RESOURCE,
    ApiMessageAndVersion,
    MetadataRecordType,
    deserialize,
    record,
    serialize,
)
from kafka.raft.batch import NotLeaderError
from kafka.utils.time import Time

log = structlog.get_logger("kafka.controller.QuorumController")
T = MetadataRecordType


class QuorumController:
    def __init__(self, node_id: int, raft_client, time: Time, config: QuorumControllerConfig,
                 cluster_id: str, threaded: bool = True,
                 config_validator: ConfigurationValidator | None = None) -> None:
        self.node_id = node_id
        self.raft = raft_client
        self.time = time
        self.config = config
        self.cluster_id = cluster_id
        self.queue = KafkaEventQueue(time, f"quorum-controller-{node_id}-event-handler", threaded)
        self.features = FeatureControlManager(node_id, kraft_version=kraft_version_reader(raft_client))
        self.heartbeats = BrokerHeartbeatManager(config.broker_session_timeout_ms)
        self.cluster = ClusterControlManager(cluster_id, self.features, self.heartbeats, self._write)
        self.configs = ConfigurationControlManager(config_validator, self.features)  # server's knows groups
        self.replication = ReplicationControlManager(self.cluster, self.configs, self.features, config)
        self.cluster.broker_shutdown_handler = self.replication.handle_broker_shutdown
        self.producer_ids = ProducerIdControlManager(self.cluster)
        self.client_quotas = ClientQuotaControlManager()
        self.acls = AclControlManager(self.features)
        self.scram = ScramControlManager()
        self.bootstrap_records: list[ApiMessageAndVersion] = []  # kafka-storage format --feature, --add-scram
        self.committed_image: MetadataImage = EMPTY_IMAGE
        self.last_committed_offset = -1
        self.epoch = -1  # the leader epoch we are active in; -1 on a standby
        # The log end - 1 as this controller knows it: the next offset is the next broker epoch.
        self.last_written_offset = -1
        self._last_appended_offset = -1  # our own last append this term: pending until it is committed
        self._deferred = DeferredEventQueue()
        self.metrics = QuorumControllerMetrics()
        self.periodic = PeriodicTaskControlManager(time, self._schedule_periodic_write,
                                                   self.queue.cancel_deferred)
        self._register_periodic_tasks()

    # ================================================================== lifecycle
    def startup(self) -> None:
        log.info("controller started", node_id=self.node_id)

    def shutdown(self) -> None:
        self.queue.close()
        self._fail_deferred()

    def is_active(self) -> bool:
        return self.epoch >= 0

    # ================================================================== the raft listener (raft thread)
    def handle_commit(self, batch) -> None:
        self._append_event("handle_commit", lambda: self._handle_commit(batch))

    def handle_load_snapshot(self, reader) -> None:
        batches = list(reader)
        self._append_event("handle_load_snapshot", lambda: self._handle_snapshot(reader.snapshot_id, batches))

    def handle_leader_change(self, leader) -> None:
        self._append_event("handle_leader_change", lambda: self._handle_leader_change(leader))

    def begin_shutdown(self) -> None:
        pass

    def _handle_commit(self, batch) -> None:
        records = [deserialize(value) for value in batch.records]
        delta = MetadataDelta(self.committed_image)
        for r in records:
            delta.replay(r)
        provenance = MetadataProvenance(batch.last_offset, batch.epoch, batch.append_timestamp)
        self.committed_image = delta.apply(provenance)
        self.last_committed_offset = batch.last_offset
        if not self.is_active():
            for r in records:  # the active controller replayed these when it wrote them
                self.replay(r)
        self._deferred.complete_up_to(batch.last_offset)

    def _handle_snapshot(self, snapshot_id, batches) -> None:
        delta = MetadataDelta(EMPTY_IMAGE)
        for batch in batches:
            for value in batch.records:
                delta.replay(deserialize(value))
        self.committed_image = delta.apply(MetadataProvenance(snapshot_id.offset - 1, snapshot_id.epoch, -1))
        self.last_committed_offset = snapshot_id.offset - 1
        self._reset_to_committed()

    def _handle_leader_change(self, leader) -> None:
        if leader.leader_id == self.node_id and not self.is_active():
            self._claim(leader.epoch)
        elif leader.leader_id != self.node_id and self.is_active():
            self._renounce()

    # ================================================================== becoming active, and not
    def _claim(self, epoch: int) -> None:
        """The raft client says we lead, and we have replayed everything before our epoch."""
        self.epoch = epoch
        self.last_written_offset = self.raft.log_end_offset() - 1
        self._last_appended_offset = -1  # everything before our epoch is committed and replayed
        self.heartbeats.reset(self.cluster.brokers, self.time.milliseconds())  # a full session each, from now
        log.info("became the active controller", epoch=epoch, committed_offset=self.last_committed_offset)
        if self.committed_image.is_empty() and self.last_committed_offset < 0:
            bootstrap = self.features.bootstrap_records(self.bootstrap_records,
                                                        self.config.min_insync_replicas)
            if self._append_or_renounce("bootstrap", bootstrap) is None:
                return
        self.periodic.activate()

    def _renounce(self) -> None:
        """Stop being active (Kafka's renounce): fail what waits for a commit, forget what was not
        committed, and resign the raft leadership of our epoch if we still hold it."""
        log.info("no longer the active controller", epoch=self.epoch,
                 reverting_to_committed_offset=self.last_committed_offset)
        epoch, self.epoch = self.epoch, -1
        self._last_appended_offset = -1
        self.periodic.deactivate()
        self._fail_deferred()
        self._reset_to_committed()
        self.raft.resign(epoch)

    def _reset_to_committed(self) -> None:
        """Forget uncommitted decisions: rebuild every manager from the committed image."""
        for manager in (self.features, self.cluster, self.configs, self.replication, self.producer_ids,
                        self.client_quotas, self.acls, self.scram):
            manager.reset()
        for r in self.committed_image.write():
            self.replay(r)

    def _fail_deferred(self) -> None:
        self._deferred.fail_all(_not_controller)

    # ================================================================== events, and their faults
    def _append_event(self, name: str, event: Callable[[], None]) -> None:
        self.queue.append(name, lambda: self._run_event(name, event))

    def _run_event(self, name: str, event: Callable[[], None]) -> bool:
        """Run one event; False if it failed with a fault (handled as Kafka's handleEventException)."""
        try:
            event()
            return True
        except Exception as e:
            self._handle_event_exception(name, e)
            return False

    def _handle_event_exception(self, name: str, e: Exception) -> None:
        """An exception no decision expects is a bug, never a reason to pass over in silence: it is
        logged with its traceback, counted in MetadataErrorCount (Kafka's nonFatalFaultHandler), and
        an active controller renounces, because the event may have left its managers half-changed."""
        self.metrics.increment_metadata_error_count()
        active = self.is_active()
        log.error("controller event failed with a fault" + ("; renouncing" if active else ""), operation=name,
                  epoch=self.epoch, committed_offset=self.last_committed_offset, error=repr(e), exc_info=e)
        if active:
            self._renounce()

    # ================================================================== replay: records -> managers
    def replay(self, r: ApiMessageAndVersion) -> None:
        if r.type == T.REMOVE_TOPIC_RECORD:
            if (name := self.replication.replay_remove_topic(r.data)) is not None:  # its configs go too
                self.configs.remove_resource(TOPIC_RESOURCE, name)
        elif r.type in SCRAM_RECORDS:
            self.scram.replay(r)
        elif (replay := self._replayers.get(r.type)) is not None:
            replay(r.data)

    @functools.cached_property
    def _replayers(self) -> dict:
        return {T.FEATURE_LEVEL_RECORD: self.features.replay_feature_level,
                T.REGISTER_BROKER_RECORD: self.cluster.replay_register_broker,
                T.UNREGISTER_BROKER_RECORD: self.cluster.replay_unregister_broker,
                T.BROKER_REGISTRATION_CHANGE_RECORD: self.cluster.replay_registration_change,
                T.TOPIC_RECORD: self.replication.replay_topic,
                T.PARTITION_RECORD: self.replication.replay_partition,
                T.PARTITION_CHANGE_RECORD: self.replication.replay_partition_change,
                T.CONFIG_RECORD: self.configs.replay_config, T.PRODUCER_IDS_RECORD: self.producer_ids.replay,
                T.CLIENT_QUOTA_RECORD: self.client_quotas.replay,
                T.ACCESS_CONTROL_ENTRY_RECORD: self.acls.replay,
                T.REMOVE_ACCESS_CONTROL_ENTRY_RECORD: self.acls.replay_remove,
                **self.cluster.controllers.replayers()}  # KIP-919's two records

    # ================================================================== the write path
    def _append_or_renounce(self, name: str, records: list[ApiMessageAndVersion],
                            serialized: list[bytes] | None = None) -> int | None:
        """Append `records` to the metadata log and replay them: the offset of the last one. If the raft
        client says we no longer lead (NotLeaderError, Kafka's NotLeaderException), renounce and return
        None. Any other exception is a bug and goes up to _handle_event_exception."""
        if serialized is None:
            serialized = [serialize(r) for r in records]
        try:
            offset = self.raft.schedule_append(self.epoch, serialized)
        except NotLeaderError as e:
            log.info("append refused: no longer the raft leader; renouncing", operation=name,
                     epoch=self.epoch, error=str(e))
            self._renounce()
            return None
        self.last_written_offset = self._last_appended_offset = offset
        for r in records:
            self.replay(r)
        return offset

    def _highest_pending_offset(self) -> int | None:
        """Our last append, if it is not committed yet."""
        appended = self._last_appended_offset
        return appended if appended > self.last_committed_offset else None

    def _answer_after_pending_writes(self, future: Future, response) -> None:
        """An answer decided without writing: it may rest on records not yet committed, so it goes
        out once the highest pending offset commits (at once when nothing is pending)."""
        pending = self._highest_pending_offset()
        if pending is None:
            future.set_result(response)
        else:
            self._deferred.add(pending, future, response)

    def _write(self, name: str, operation, not_controller_response) -> Future:
        """Run `operation` on the controller thread; answer once its records are committed."""
        future: Future = Future()

        def run() -> None:
            if not self.is_active():
                future.set_result(not_controller_response)
                return
            result: ControllerResult = operation()
            if self.queue.closed:  # shutdown began while we decided: nothing more is written
                future.set_result(_shutting_down(result.response))
                return
            if not result.records:
                self._answer_after_pending_writes(future, result.response)
                return
            serialized = bounded_batch(result.records)
            if serialized is None:
                log.info("refused an excessively large batch operation", operation=name,
                         records=len(result.records))
                too_large = with_error(result.response, Errors.POLICY_VIOLATION, EXCESSIVE_BATCH_MESSAGE)
                future.set_result(too_large)
                return
            offset = self._append_or_renounce(name, result.records, serialized)
            if offset is None:
                future.set_result(not_controller_response)
                return
            self._deferred.add(offset, future, result.response)

        return self._operation_event(name, run, future, not_controller_response)

    def _read(self, name: str, operation: Callable[[], object], not_controller_response) -> Future:
        """A read-only operation (Kafka's ControllerReadEvent): run on the controller thread and
        answered once everything it may have seen is committed, never from a decision the quorum
        might lose."""
        future: Future = Future()

        def run() -> None:
            if not self.is_active():
                future.set_result(not_controller_response)
                return
            self._answer_after_pending_writes(future, operation())

        return self._operation_event(name, run, future, not_controller_response)

    def _operation_event(self, name: str, run: Callable[[], None], future: Future,
                         not_controller_response) -> Future:
        """Queue a request's event: a fault answers UNKNOWN_SERVER_ERROR, a closed queue REQUEST_TIMED_OUT."""
        def event() -> None:
            if not self._run_event(name, run) and not future.done():
                future.set_result(with_error(not_controller_response, Errors.UNKNOWN_SERVER_ERROR))

        def rejected() -> None:
            future.set_result(_shutting_down(not_controller_response))

        self.queue.append(name, event, rejected)
        return future

    # ================================================================== brokers
    def register_broker(self, request) -> Future:
        def operation() -> ControllerResult:
            epoch = self.last_written_offset + 1  # the offset its record will have: the broker epoch
            return self.cluster.register_broker(request, epoch, self.time.milliseconds())
        return self._write("register_broker", operation, broker_registration_reply(Errors.NOT_CONTROLLER))

    def process_broker_heartbeat(self, request) -> Future:
        def operation() -> ControllerResult:
            now = self.time.milliseconds()
            broker = self.cluster.brokers.get(request.broker_id)
            if broker is None:
                return ControllerResult([], _heartbeat_response(Errors.BROKER_ID_NOT_REGISTERED))
            if broker.epoch != request.broker_epoch:
                return ControllerResult([], _heartbeat_response(Errors.STALE_BROKER_EPOCH))
            self.heartbeats.touch(request.broker_id, now)
            caught_up = request.current_metadata_offset >= broker.epoch
            fenced = broker.fenced
            records = self.cluster.handle_directories_cordoned(request)  # KIP-1066, from 4.3-IV0
            if request.want_shut_down and not broker.in_controlled_shutdown:
                # Controlled shutdown: leadership moves away now; the broker may stop once it leads nothing.
                records += [self.cluster.controlled_shutdown_record(request.broker_id),
                           *self.replication.handle_broker_unavailable(request.broker_id)]
            elif broker.fenced and caught_up and not request.want_fence and not request.want_shut_down:
                records += [self.cluster.unfence_record(request.broker_id),
                           *self.replication.handle_broker_available(request.broker_id)]
                fenced = False
            should_shut_down = (request.want_shut_down
                                and self._leads_nothing_after(request.broker_id, records))
            return ControllerResult(records, dict(throttle_time_ms=0, error_code=Errors.NONE,
                                                  is_caught_up=caught_up, is_fenced=fenced,
                                                  should_shut_down=should_shut_down))
        return self._write("process_broker_heartbeat", operation, _heartbeat_response(Errors.NOT_CONTROLLER))

    def _leads_nothing_after(self, broker_id: int, records: list[ApiMessageAndVersion]) -> bool:
        if records:
            return False  # the leaderships move once these are committed; the next heartbeat hears so
        return self.replication.partitions_led_by(broker_id) == 0

    # ================================================================== periodic tasks
    def _register_periodic_tasks(self) -> None:
        config = self.config
        self.periodic.register_task(PeriodicTask("fence-stale-brokers", self._fence_stale_brokers,
                                                 max(100, config.broker_session_timeout_ms // 4)))
        if config.metadata_max_idle_interval_ms > 0:
            self.periodic.register_task(PeriodicTask("write-no-op-record", lambda: ControllerResult(
                [record(T.NO_OP_RECORD)], False), config.metadata_max_idle_interval_ms))
        if config.auto_leader_rebalance_enable:
            self.periodic.register_task(PeriodicTask("auto-leader-rebalance",
                                                     self._maybe_balance_partition_leaders,
                                                     config.leader_imbalance_check_interval_ms))

    def _schedule_periodic_write(self, tag: str, deadline_ms: int, operation: Operation) -> None:
        """How a periodic task reaches the queue: at its deadline its decision runs, and is written, as
        one event (Kafka's scheduleDeferredWriteEvent)."""
        def write() -> None:
            if self.is_active():
                records = operation().records
                if records:
                    self._append_or_renounce(tag, records)
        self.queue.schedule_deferred(tag, deadline_ms, lambda: self._run_event(tag, write))

    def _fence_stale_brokers(self) -> ControllerResult:
        """Fence one broker whose session expired; True if there may be another."""
        for broker_id in self.heartbeats.expired(self.time.milliseconds()):
            broker = self.cluster.brokers.get(broker_id)
            self.heartbeats.remove(broker_id)
            if broker is None or broker.fenced:
                continue
            log.info("fencing a broker whose session expired", broker_id=broker_id,
                     session_timeout_ms=self.config.broker_session_timeout_ms)
            return ControllerResult([self.cluster.fence_record(broker_id),
                                     *self.replication.handle_broker_unavailable(broker_id)], True)
        return ControllerResult([], False)

    def _maybe_balance_partition_leaders(self) -> ControllerResult:
        """auto.leader.rebalance.enable: preferred elections where a broker leads too little of what
        it prefers (leader.imbalance.per.broker.percentage), every
        leader.imbalance.check.interval.seconds."""
        wanted = self.replication.imbalanced_partitions(self.config.leader_imbalance_per_broker_percentage)
        records = self.replication.elect_leaders(PREFERRED, wanted)[0] if wanted else []
        if records:
            partitions = [f"{t.topic}-{p}" for t in wanted for p in t.partitions]
            log.info("auto leader rebalance: preferred elections", partitions=partitions,
                     elected=len(records))
        return ControllerResult(records, False)

    # ================================================================== producer ids (KIP-730)
    def allocate_producer_ids(self, request) -> Future:
        """AllocateProducerIds: the next block of producer ids for this broker, answered once its
        ProducerIdsRecord is committed (a block the quorum might lose could be handed out again)."""
        def operation() -> ControllerResult:
            try:
                result = self.producer_ids.generate_next_producer_id(request.broker_id, request.broker_epoch)
            except (StaleBrokerEpochError, ProducerIdsExhaustedError) as e:
                log.info("AllocateProducerIds refused", broker_id=request.broker_id,
                         broker_epoch=request.broker_epoch, error=e.error.name, reason=str(e))
                return ControllerResult([], _allocate_producer_ids_response(e.error))
            block = result.response
            log.info("allocated a block of producer ids", broker_id=request.broker_id,
                     first_producer_id=block.first_producer_id, last_producer_id=block.last_producer_id)
            return ControllerResult(result.records, dict(throttle_time_ms=0, error_code=Errors.NONE,
                                                         producer_id_start=block.first_producer_id,
                                                         producer_id_len=block.size))
        not_controller = _allocate_producer_ids_response(Errors.NOT_CONTROLLER)
        return self._write("allocate_producer_ids", operation, not_controller)

    # ================================================================== topics and configs
    def create_topics(self, request) -> Future:
        not_controller = dict(throttle_time_ms=0, topics=[
            create_topics_error(t.name, Errors.NOT_CONTROLLER, None) for t in request.topics])
        return self._write("create_topics", lambda: self.replication.create_topics(request), not_controller)

    def delete_topics(self, request) -> Future:
        names = list(request.get("topic_names") or [])
        names += [t.name for t in request.get("topics") or [] if t.name]
        not_controller = dict(throttle_time_ms=0, responses=[
            dict(name=n, error_code=Errors.NOT_CONTROLLER) for n in names])
        return self._write("delete_topics",
                           lambda: self.replication.delete_topics(names, self.config.delete_topic_enable),
                           not_controller)

    def create_partitions(self, request) -> Future:
        not_controller = dict(throttle_time_ms=0, results=[
            dict(name=t.name, error_code=Errors.NOT_CONTROLLER, error_message=None) for t in request.topics])
        return self._write("create_partitions", lambda: self.replication.create_partitions(request),
                           not_controller)

    def incremental_alter_configs(self, request, forwarded: bool = True) -> Future:
        def operation() -> ControllerResult:
            result = self.configs.incremental_alter_configs(
                request.resources, lambda name: self.replication.topic(name) is not None, forwarded)
            return ControllerResult([], result.response) if request.validate_only else result
        not_controller = dict(throttle_time_ms=0, responses=[
            dict(resource_type=r.resource_type, resource_name=r.resource_name,
                 error_code=Errors.NOT_CONTROLLER, error_message=None) for r in request.resources])
        return self._write("incremental_alter_configs", operation, not_controller)

    def alter_client_quotas(self, request) -> Future:
        def operation() -> ControllerResult:
            records, results = self.client_quotas.alter_client_quotas(request.entries)
            return ControllerResult([] if request.validate_only else records,
                                    dict(throttle_time_ms=0, entries=results))
        return self._write("alter_client_quotas", operation, dict(throttle_time_ms=0, entries=[
            dict(error_code=Errors.NOT_CONTROLLER, error_message=None,
                 entity=[dict(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity])
            for entry in request.entries]))

    def create_acls(self, request) -> Future:
        return self._write("create_acls", lambda: ControllerResult(*self.acls.create_acls(request.creations)),
                           not_controller_acls_response(request))

    def delete_acls(self, request) -> Future:
        return self._write("delete_acls", lambda: ControllerResult(*self.acls.delete_acls(request.filters)),
                           not_controller_acls_response(request))

    def alter_user_scram_credentials(self, request) -> Future:
        def operation() -> ControllerResult:
            records, results = self.scram.alter_credentials(request.deletions, request.upsertions)
            return ControllerResult(records, dict(throttle_time_ms=0, results=results))
        return self._write("alter_user_scram_credentials", operation, dict(throttle_time_ms=0, results=[
            dict(user=u, error_code=Errors.NOT_CONTROLLER, error_message=None)
            for u in dict.fromkeys([a.name for a in [*request.deletions, *request.upsertions]])]))

    def update_features(self, request, version: int) -> Future:  # KIP-584: FeatureControlManager decides
        return self._write("update_features", lambda: self.features.update_features_result(request, version),
                           self.features.not_controller_response(version))

    def alter_partition(self, request) -> Future:
        return self._write("alter_partition", lambda: self.replication.alter_partition(request),
                           dict(throttle_time_ms=0, error_code=Errors.NOT_CONTROLLER, topics=[]))

    def elect_leaders(self, request) -> Future:
        def operation() -> ControllerResult:
            records, results = self.replication.elect_leaders(request.election_type, request.topic_partitions)
            return ControllerResult(records, dict(throttle_time_ms=0, error_code=Errors.NONE,
                                                  replica_election_results=results))
        not_controller = dict(throttle_time_ms=0, error_code=Errors.NOT_CONTROLLER,
                              replica_election_results=[])
        return self._write("elect_leaders", operation, not_controller)

    def alter_partition_reassignments(self, request) -> Future:
        def operation() -> ControllerResult:
            records, responses, seen = [], [], set()
            allow = request.get("allow_replication_factor_change", True)  # v1 may forbid it (KIP-860)
            for t in request.topics:
                partitions = []
                for p in t.partitions:
                    index = p.partition_index
                    if (t.name, index) in seen:  # a second target for one partition decides nothing
                        error, message = Errors.INVALID_REQUEST, f"{t.name}-{index} appears more than once"
                    else:
                        seen.add((t.name, index))
                        changes, error, message = self.replication.alter_partition_reassignment(
                            t.name, index, p.replicas, allow)
                        records += changes
                    partitions.append(dict(partition_index=index, error_code=error, error_message=message))
                responses.append(dict(name=t.name, partitions=partitions))
            return ControllerResult(records, dict(
                throttle_time_ms=0, error_code=Errors.NONE, error_message=None, responses=responses,
                allow_replication_factor_change=allow))
        return self._write("alter_partition_reassignments", operation, dict(
            throttle_time_ms=0, error_code=Errors.NOT_CONTROLLER, error_message=None, responses=[]))

    def list_partition_reassignments(self, request) -> Future:
        def operation() -> dict:
            wanted = None
            if request.topics is not None:
                wanted = {t.name: list(t.partition_indexes) for t in request.topics}
            return dict(throttle_time_ms=0, error_code=Errors.NONE, error_message=None,
                        topics=self.replication.ongoing_reassignments(wanted))
        return self._read("list_partition_reassignments", operation, dict(
            throttle_time_ms=0, error_code=Errors.NOT_CONTROLLER, error_message=None, topics=[]))

    # ================================================================== metrics
    def metrics_values(self) -> dict[str, int]:
        return self.metrics.values(self.is_active(), self.replication, self.cluster)


# ---------------------------------------------------------------------------------- responses
def _heartbeat_response(error: Errors) -> dict:
    return dict(throttle_time_ms=0, error_code=error, is_caught_up=False, is_fenced=True,
                should_shut_down=False)


def _allocate_producer_ids_response(error: Errors) -> dict:
    return dict(throttle_time_ms=0, error_code=error, producer_id_start=-1, producer_id_len=0)


def _not_controller(response) -> object:
    """A parked response whose records were never committed: the same shape, NOT_CONTROLLER everywhere."""
    return with_error(response, Errors.NOT_CONTROLLER)


def _shutting_down(response) -> object:
    """Never decided, or decided as the queue closed: REQUEST_TIMED_OUT everywhere (SHUTTING_DOWN_MESSAGE)."""
    return with_error(response, Errors.REQUEST_TIMED_OUT, SHUTTING_DOWN_MESSAGE)

