"""ReplicationControlManager: topics, partitions, leaders and ISRs
(Kafka's org.apache.kafka.controller.ReplicationControlManager).

Seed 004: the controller decides where replicas live and who leads. This manager does it:

    CreateTopics       validate like Kafka, place replicas with the StripedReplicaPlacer, the first
                       replica leads; TopicRecord + PartitionRecords (+ ConfigRecords)
    DeleteTopics       RemoveTopicRecord
    CreatePartitions   more PartitionRecords (a topic never shrinks)
    AlterPartition     a leader's new ISR, checked against the epochs it knows
    a broker fenced    every partition it led gets a new leader from the ISR (never from outside it,
    or shutting down   unless unclean.leader.election.enable), and it leaves the ISRs; with nobody
                       left in the ISR the partition is offline (leader -1) until a member returns
    AlterPartition-    move replicas between brokers (partition_reassignment.py): start with the
    Reassignments      target added, complete once it is all in the ISR, or cancel
    ElectLeaders       PREFERRED: leadership back to the first replica, if it is in the ISR;
                       UNCLEAN: an offline partition takes any live replica (records may be lost).
                       The auto leader rebalance runs PREFERRED for brokers that lead too little

A change to a partition is one PartitionChangeRecord: only what changed (leader -2 means "kept"),
built, with the leader it elects, by the PartitionChangeBuilder (partition_change_builder.py).

Every count in a request is checked against a bound before anything is built from it: one request
may add at most MAX_PARTITIONS_PER_BATCH partitions, summed over its topics (Kafka's cap: more has run
controllers out of memory), and a manual assignment names each registered broker once. A request
that breaks a bound costs the controller a few comparisons, not memory proportional to its numbers.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field

from kafka.controller.configuration_control_manager import ConfigError
from kafka.controller.controller_result import ControllerResult
from kafka.controller.partition_change_builder import (
    Election,
    PartitionChangeBuilder,
    complete_reassignment_if_needed,
    partition_change,
)
from kafka.controller.partition_reassignment import PartitionReassignmentReplicas, revert
from kafka.controller.request_bounds import (
    EXCESSIVE_PARTITIONS_MESSAGE,
    MAX_PARTITIONS_PER_BATCH,
    ReplicationError,
    validate_topic_name,
    validate_total_new_partitions,
    validate_total_number_of_partitions,
)
from kafka.controller.striped_replica_placer import InvalidReplicationFactorError, place
from kafka.image.topics_image import PartitionRegistration
from kafka.protocol.errors import Errors
from kafka.protocol.messages.elect_leaders import PREFERRED
from kafka.protocol.metadata_records import (
    BROKER_RESOURCE,
    NO_LEADER,
    TOPIC_RESOURCE,
    ApiMessageAndVersion,
    MetadataRecordType,
    record,
)

T = MetadataRecordType
@dataclass(frozen=True)
class _TopicPartitions:  # the shape of an ElectLeaders request's topic_partitions entry
    topic: str
    partitions: list[int]


@dataclass
class TopicControlInfo:
    name: str
    topic_id: uuid.UUID
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


def create_topics_error(name: str, error: Errors, message: str | None) -> dict:
    """One topic's entry of a CreateTopicsResponse that created nothing."""
    return dict(name=name, error_code=error, error_message=message, num_partitions=-1, replication_factor=-1,
                configs=None)


class ReplicationControlManager:
    def __init__(self, cluster, configs, features, config) -> None:
        self.cluster = cluster  # ClusterControlManager
        self.configs = configs  # ConfigurationControlManager
        self.features = features  # FeatureControlManager: is eligible.leader.replicas.version on?
        self.default_partitions = config.num_partitions
        self.default_replication_factor = config.default_replication_factor
        self.unclean_leader_election_enable = config.unclean_leader_election_enable  # the broker default
        self.default_min_insync_replicas = config.min_insync_replicas  # the controller's own
        self.topics_by_id: dict[uuid.UUID, TopicControlInfo] = {}
        self.topic_ids_by_name: dict[str, uuid.UUID] = {}
        self.new_topic_id = uuid.uuid4  # a seeded simulation draws ids from its own random instead

    def reset(self) -> None:
        self.topics_by_id, self.topic_ids_by_name = {}, {}

    def topic(self, name: str) -> TopicControlInfo | None:
        topic_id = self.topic_ids_by_name.get(name)
        return self.topics_by_id.get(topic_id) if topic_id is not None else None

    # ------------------------------------------------------------------ CreateTopics
    def create_topics(self, request) -> ControllerResult:
        """A CreateTopics request: bounded as a whole, then topic by topic (a duplicate name refused)."""
        records, results, pending = [], [], set()
        try:
            validate_total_number_of_partitions(request.topics, self.default_partitions)
        except ReplicationError as e:
            return ControllerResult([], dict(throttle_time_ms=0, topics=[
                create_topics_error(t.name, e.error, str(e)) for t in request.topics]))
        names = Counter(t.name for t in request.topics)
        for t in request.topics:
            if names[t.name] > 1:
                results.append(create_topics_error(t.name, Errors.INVALID_REQUEST,
                                                   "duplicate topic name in the request"))
                continue
            try:
                topic_records, result = self.create_topic(t, pending)
            except (ReplicationError, ConfigError) as e:
                results.append(create_topics_error(t.name, e.error, str(e)))
                continue
            pending.add(t.name)
            results.append(result)
            if not request.get("validate_only", False):
                records += topic_records
        return ControllerResult(records, dict(throttle_time_ms=0, topics=results))

    def create_topic(self, t, pending: set[str]) -> tuple[list[ApiMessageAndVersion], dict]:
        """One topic of a CreateTopics request: (records, the topic's result entry)."""
        validate_topic_name(t.name)
        if t.name in self.topic_ids_by_name or t.name in pending:
            raise ReplicationError(Errors.TOPIC_ALREADY_EXISTS, f"Topic '{t.name}' already exists.")
        configs = {c.name: c.value for c in t.configs or []}
        self.configs.validate_topic_configs(configs)
        usable = self.cluster.usable_brokers()
        if t.assignments:
            if t.num_partitions != -1 or t.replication_factor != -1:
                raise ReplicationError(Errors.INVALID_REQUEST,
                                       "give either assignments or partitions and replication factor")
            placements = self._manual_placements(t.assignments)
        else:
            default_partitions, default_replication = self.default_partitions, self.default_replication_factor
            partitions = default_partitions if t.num_partitions == -1 else t.num_partitions
            replication = default_replication if t.replication_factor == -1 else t.replication_factor
            if replication <= 0:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR,
                                       "Replication factor must be larger than 0, "
                                       "or -1 to use the default value.")
            if partitions <= 0:
                raise ReplicationError(Errors.INVALID_PARTITIONS,
                                       "Number of partitions was set to an invalid "
                                       "non-positive value.")
            # a caller that skipped validate_total_number_of_partitions
            if partitions > MAX_PARTITIONS_PER_BATCH:
                raise ReplicationError(Errors.POLICY_VIOLATION, EXCESSIVE_PARTITIONS_MESSAGE)
            try:
                placements = place(0, partitions, replication, usable, start_offset=len(self.topics_by_id))
            except InvalidReplicationFactorError as e:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR, str(e)) from None
        topic_id = self.new_topic_id()
        records = [record(T.TOPIC_RECORD, name=t.name, topic_id=topic_id)]
        records += [self._partition_record(topic_id, i, replicas) for i, replicas in enumerate(placements)]
        records += self.configs.topic_config_records(t.name, configs)
        result = dict(name=t.name, topic_id=topic_id, error_code=Errors.NONE, error_message=None,
                      num_partitions=len(placements), replication_factor=len(placements[0]),
                      configs=[dict(name=k, value=v, read_only=False, config_source=1, is_sensitive=False)
                               for k, v in sorted(configs.items())])
        return records, result

    def _manual_placements(self, assignments, replication_factor: int | None = None) -> list[list[int]]:
        """CreateTopics' assignments (partition_index given) as replica lists in partition order."""
        by_index: dict[int, list[int]] = {}
        for a in assignments:
            if a.partition_index in by_index:
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, f"Found multiple manual partition "
                                       f"assignments for partition {a.partition_index}")
            replicas = list(a.broker_ids)
            self._validate_manual_assignment(a.partition_index, replicas, replication_factor)
            replication_factor = len(replicas)
            by_index[a.partition_index] = replicas
        if any(i not in by_index for i in range(len(by_index))):
            raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT,
                                   "partitions should be a consecutive 0-based integer sequence")
        return [by_index[i] for i in range(len(by_index))]

    def _validate_manual_assignment(self, index: int, replicas: list[int],
                                    replication_factor: int | None) -> None:
        """Kafka's validateManualPartitionAssignment: not empty, each broker registered and named once,
        as many replicas as the topic's other partitions, at least one of them usable to lead. It
        stops at the first bad broker, so a list of 100,000 ids costs no more than it took to send."""
        if not replicas:
            raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT,
                                   "The manual partition assignment includes an empty replica list.")
        if replication_factor is not None and len(replicas) != replication_factor:
            raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                f"The manual partition assignment includes a partition with {len(replicas)} replica(s), but "
                "this "
                f"is not consistent with previous partitions, which have {replication_factor} replica(s)."))
        seen: set[int] = set()
        for broker_id in replicas:
            if broker_id not in self.cluster.brokers:
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                    f"The manual partition assignment includes broker {broker_id}, but no such broker is "
                    "registered."))
            if not self.cluster.brokers[broker_id].has_uncordoned_dirs():  # KIP-1066
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                    f"The manual partition assignment includes broker {broker_id}, but all its log "
                    "directories are cordoned."))
            if broker_id in seen:
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                    f"The manual partition assignment includes the broker {broker_id} more than once."))
            seen.add(broker_id)
        if not any(self.cluster.is_usable(b) for b in replicas):
            raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                f"All brokers specified in the manual partition assignment for partition {index} are fenced "
                "or "
                "in controlled shutdown."))

    def _partition_record(self, topic_id: uuid.UUID, partition_id: int,
                          replicas: list[int]) -> ApiMessageAndVersion:
        """A new partition: its usable replicas are the ISR, the first of them leads."""
        isr = [b for b in replicas if self.cluster.is_usable(b)] or replicas
        return record(T.PARTITION_RECORD, partition_id=partition_id, topic_id=topic_id, replicas=replicas,
                      isr=isr, leader=isr[0], leader_epoch=0, partition_epoch=0)

    # ------------------------------------------------------------------ DeleteTopics / CreatePartitions
    def delete_topics(self, names: list[str], deletion_enabled: bool) -> ControllerResult:
        records, responses = [], []
        counts = Counter(names)
        for name in names:
            if counts[name] > 1:  # as Kafka's ControllerApis: each copy refused, none deleted twice
                responses.append(dict(name=name, error_code=Errors.INVALID_REQUEST,
                                      error_message="Duplicate topic name."))
                continue
            if not deletion_enabled:
                responses.append(dict(name=name, error_code=Errors.TOPIC_DELETION_DISABLED))
                continue
            try:
                topic_records, topic_id = self.delete_topic(name)
            except ReplicationError as e:
                responses.append(dict(name=name, error_code=e.error, error_message=str(e)))
                continue
            records += topic_records
            responses.append(dict(name=name, topic_id=topic_id, error_code=Errors.NONE))
        return ControllerResult(records, dict(throttle_time_ms=0, responses=responses))

    def create_partitions(self, request) -> ControllerResult:
        """A CreatePartitions request: bounded as a whole, then topic by topic."""
        records, results = [], []
        try:
            validate_total_new_partitions(request.topics, self._partition_count)
        except ReplicationError as e:
            return ControllerResult([], dict(throttle_time_ms=0, results=[
                dict(name=t.name, error_code=e.error, error_message=str(e)) for t in request.topics]))
        for t in request.topics:
            try:
                topic_records = self.create_partitions_of(t)
            except ReplicationError as e:
                results.append(dict(name=t.name, error_code=e.error, error_message=str(e)))
                continue
            results.append(dict(name=t.name, error_code=Errors.NONE, error_message=None))
            if not request.validate_only:
                records += topic_records
        return ControllerResult(records, dict(throttle_time_ms=0, results=results))

    def _partition_count(self, name: str) -> int | None:
        topic = self.topic(name)
        return len(topic.partitions) if topic is not None else None

    def delete_topic(self, name: str) -> tuple[list[ApiMessageAndVersion], uuid.UUID]:
        topic = self.topic(name)
        if topic is None:
            raise ReplicationError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                   "This server does not host this topic-partition.")
        return [record(T.REMOVE_TOPIC_RECORD, topic_id=topic.topic_id)], topic.topic_id

    def create_partitions_of(self, t) -> list[ApiMessageAndVersion]:
        topic = self.topic(t.name)
        if topic is None:
            raise ReplicationError(Errors.UNKNOWN_TOPIC_OR_PARTITION, f"topic '{t.name}' does not exist")
        current = len(topic.partitions)
        if t.count < current:
            raise ReplicationError(Errors.INVALID_PARTITIONS, f"The topic {t.name} currently has {current} "
                                   f"partition(s); {t.count} would not be an increase.")
        if t.count == current:
            raise ReplicationError(Errors.INVALID_PARTITIONS, f"Topic already has {current} partition(s).")
        additional = t.count - current
        if additional > MAX_PARTITIONS_PER_BATCH:  # a caller that skipped validate_total_new_partitions
            raise ReplicationError(Errors.POLICY_VIOLATION, EXCESSIVE_PARTITIONS_MESSAGE)
        replication = len(next(iter(topic.partitions.values())).replicas)
        if t.assignments is not None:
            if len(t.assignments) != additional:
                raise ReplicationError(Errors.INVALID_REPLICA_ASSIGNMENT, (
                    f"Attempted to add {additional} additional partition(s), but only {len(t.assignments)} "
                    "assignment(s) were specified."))
            placements = [list(a.broker_ids) for a in t.assignments]
            for i, replicas in enumerate(placements):
                self._validate_manual_assignment(current + i, replicas, replication)
        else:
            try:
                placements = place(current, additional, replication, self.cluster.usable_brokers())
            except InvalidReplicationFactorError as e:
                raise ReplicationError(Errors.INVALID_REPLICATION_FACTOR, str(e)) from None
        return [self._partition_record(topic.topic_id, current + i, replicas)
                for i, replicas in enumerate(placements)]

    # ------------------------------------------------------------------ AlterPartition
    def alter_partition(self, request) -> ControllerResult:
        """AlterPartition from a partition leader (Kafka's alterPartition): refused as a whole from an
        incarnation that is not the registered one (STALE_BROKER_EPOCH), else partition by partition."""
        broker = self.cluster.brokers.get(request.broker_id)
        if broker is None or broker.epoch != request.broker_epoch:
            stale = dict(throttle_time_ms=0, error_code=Errors.STALE_BROKER_EPOCH, topics=[])
            return ControllerResult([], stale)
        records, topics = [], []
        for t in request.topics:
            partitions = []
            for p in t.partitions:
                changes, result = self._alter_partition_of(request.broker_id, t.topic_name, p)
                records += changes
                partitions.append(result)
            topics.append(dict(topic_name=t.topic_name, partitions=partitions))
        return ControllerResult(records, dict(throttle_time_ms=0, error_code=Errors.NONE, topics=topics))

    def _alter_partition_of(self, broker_id: int, topic_name: str,
                            p) -> tuple[list[ApiMessageAndVersion], dict]:
        """One partition's new ISR, checked against the leader and partition epochs it was based on."""
        topic = self.topic(topic_name)
        current = topic.partitions.get(p.partition_index) if topic else None
        if current is None:
            return [], dict(partition_index=p.partition_index, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION)
        if current.leader != broker_id:
            return [], dict(partition_index=p.partition_index, error_code=Errors.NOT_LEADER_OR_FOLLOWER)
        if p.leader_epoch != current.leader_epoch:
            return [], dict(partition_index=p.partition_index, error_code=Errors.FENCED_LEADER_EPOCH)
        if p.partition_epoch != current.partition_epoch:
            return [], dict(partition_index=p.partition_index, error_code=Errors.INVALID_UPDATE_VERSION)
        new_isr = tuple(p.new_isr)
        if any(r not in current.replicas or not self.cluster.is_usable(r) for r in new_isr):
            return [], dict(partition_index=p.partition_index, error_code=Errors.INELIGIBLE_REPLICA)
        records = []
        change = self._builder(topic, p.partition_index, current, self.cluster.is_usable) \
            .set_target_isr(new_isr).build()
        after = current.merge(change.data) if change else current
        records += [change] if change else []
        completion = complete_reassignment_if_needed(topic.topic_id, p.partition_index, after,
                                                     self.cluster.is_usable)
        if completion is not None:  # the last adding replica caught up: the reassignment is done
            records.append(completion)
            after = after.merge(completion.data)
        return records, dict(
            partition_index=p.partition_index, error_code=Errors.NONE, leader_id=after.leader,
            leader_epoch=after.leader_epoch, isr=list(after.isr), partition_epoch=after.partition_epoch)

    # ------------------------------------------------------------------ reassignments (KIP-455)
    def alter_partition_reassignment(self, topic_name: str, index: int, target,
                                     allow_replication_factor_change: bool = True,
                                     ) -> tuple[list, Errors, str | None]:
        """Start (target replicas) or cancel (None) one partition's reassignment: (records, error,
        message). v1 may forbid a target of another size than the partition's (KIP-860); during a
        reassignment the size that counts is the target's, as Kafka's
        validatePartitionReplicationFactorUnchanged counts it."""
        topic = self.topic(topic_name)
        p = topic.partitions.get(index) if topic is not None else None
        name = f"{topic_name}-{index}"
        if p is None:
            return [], Errors.UNKNOWN_TOPIC_OR_PARTITION, f"{name} does not exist"
        if target is None:
            if not p.is_reassigning:
                return [], Errors.NO_REASSIGNMENT_IN_PROGRESS, f"no reassignment of {name} to cancel"
            back = revert(p.replicas, p.isr, p.adding_replicas, p.leader, self.cluster.is_usable)
            cancel = partition_change(topic.topic_id, index, p, isr=back.isr, leader=back.leader,
                                      replicas=back.replicas, adding=(), removing=())
            return [cancel], Errors.NONE, None
        target = tuple(target)
        problem = self._invalid_target(target)
        if problem is not None:
            return [], Errors.INVALID_REPLICA_ASSIGNMENT, f"{name}: {problem}"
        # a new target replaces an ongoing one
        current = p.target_replicas if p.is_reassigning else p.replicas
        if not allow_replication_factor_change and len(target) != len(current):
            return [], Errors.INVALID_REPLICATION_FACTOR, (f"The replication factor is changed from "
                                                           f"{len(current)} to {len(target)}")
        if not p.is_reassigning and target == p.replicas:
            return [], Errors.NONE, None  # already there
        moving = PartitionReassignmentReplicas.start(current, target)
        change = partition_change(topic.topic_id, index, p, replicas=moving.replicas, adding=moving.adding,
                                  removing=moving.removing)
        records = [change] if change is not None else []
        after = p.merge(change.data) if change is not None else p
        completion = complete_reassignment_if_needed(topic.topic_id, index, after, self.cluster.is_usable)
        return records + ([completion] if completion is not None else []), Errors.NONE, None

    def _invalid_target(self, target: tuple[int, ...]) -> str | None:
        """Kafka's validateManualPartitionAssignment, answered in one line however long the list."""
        if not target:
            return "the target replica list is empty"
        seen: set[int] = set()
        for broker_id in target:
            if broker_id not in self.cluster.brokers:
                return f"the target replicas include broker {broker_id}, but no such broker is registered"
            if broker_id in seen:
                return f"the target replicas include the broker {broker_id} more than once"
            seen.add(broker_id)
        return None

    def ongoing_reassignments(self, wanted: dict[str, list[int]] | None) -> list[dict]:
        """ListPartitionReassignments: the partitions with a reassignment in progress."""
        topics = []
        for topic in sorted(self.topics_by_id.values(), key=lambda t: t.name):
            if wanted is not None and topic.name not in wanted:
                continue
            partitions = [dict(partition_index=i, replicas=list(p.replicas),
                               adding_replicas=list(p.adding_replicas),
                               removing_replicas=list(p.removing_replicas))
                          for i, p in sorted(topic.partitions.items())
                          if p.is_reassigning and (wanted is None or i in wanted[topic.name])]
            if partitions:
                topics.append(dict(name=topic.name, partitions=partitions))
        return topics

    # ------------------------------------------------------------------ leadership when brokers come and go
    def handle_broker_unavailable(self, broker_id: int) -> list[ApiMessageAndVersion]:
        """A broker is being fenced or is shutting down: elect new leaders from the ISR (or the ELR), drop
        it from ISRs. Its registration still says usable (the fencing record is written with these), so
        it is left out by name, as Kafka's generateLeaderAndIsrUpdates does with brokerToRemove."""
        return self._leader_and_isr_updates(
            lambda p: broker_id in p.isr or p.leader == broker_id,
            lambda replica: replica != broker_id and self.cluster.is_usable(replica), remove=broker_id)

    def handle_broker_available(self, broker_id: int) -> list[ApiMessageAndVersion]:
        """A broker was unfenced: an offline partition it is in the ISR (or, the ISR empty, the ELR) of
        gets it as leader (with unclean.leader.election.enable, one it is merely a replica of too)."""
        return self._leader_and_isr_updates(
            lambda p: p.leader == NO_LEADER and broker_id in p.replicas,
            lambda replica: replica == broker_id or self.cluster.is_usable(replica))

    def handle_broker_shutdown(self, broker_id: int, clean: bool) -> list[ApiMessageAndVersion]:
        """A new incarnation of a broker registers (Kafka's handleBrokerShutdown): it leaves every ISR.
        After an unclean shutdown (KIP-966: it did not send the epoch its last run ended with) it may
        have lost its unflushed tail, so it leaves every ELR too, and cannot be elected from one."""
        def acceptable(replica: int) -> bool:
            return replica != broker_id and self.cluster.is_usable(replica)
        if clean or not self.features.elr_enabled:
            return self._leader_and_isr_updates(lambda p: broker_id in p.isr, acceptable, remove=broker_id)
        return self._leader_and_isr_updates(lambda p: broker_id in p.isr or broker_id in p.elr, acceptable,
                                            unclean_shutdown=broker_id)

    def _leader_and_isr_updates(self, affected, acceptable, remove: int = NO_LEADER,
                                unclean_shutdown: int = NO_LEADER) -> list[ApiMessageAndVersion]:
        """Kafka's generateLeaderAndIsrUpdates: for each affected partition, the ISR without `remove`,
        and the leader that ISR (or the ELR) gives."""
        records = []
        for topic in self.topics_by_id.values():
            for index, p in sorted(topic.partitions.items()):
                if not affected(p):
                    continue
                builder = self._builder(topic, index, p, acceptable)
                builder.set_target_isr(r for r in p.isr if r not in (remove, unclean_shutdown))
                if unclean_shutdown != NO_LEADER:
                    builder.set_unclean_shutdown_replicas((unclean_shutdown,))
                change = builder.build()
                if change is not None:
                    records.append(change)
        return records

    def _builder(self, topic: TopicControlInfo, index: int, p: PartitionRegistration,
                 acceptable) -> PartitionChangeBuilder:
        min_isr = self.effective_min_isr(topic.name, len(p.replicas))
        builder = PartitionChangeBuilder(topic.topic_id, index, p, acceptable, min_isr,
                                         self.features.elr_enabled)
        if self.unclean_election_enabled(topic.name):
            builder.set_election(Election.UNCLEAN)
        return builder

    def effective_min_isr(self, topic_name: str, replication_factor: int) -> int:
        """Kafka's getTopicEffectiveMinIsr: the topic's min.insync.replicas, else the cluster's (a
        ConfigRecord on the default broker resource), else this controller's, at most the replicas."""
        value = (self.configs.config_props(TOPIC_RESOURCE, topic_name).get("min.insync.replicas")
                 or self.configs.config_props(BROKER_RESOURCE, "").get("min.insync.replicas"))
        min_isr = int(value) if value else self.default_min_insync_replicas
        return min(min_isr, replication_factor)

    def unclean_election_enabled(self, topic_name: str) -> bool:
        """The topic's unclean.leader.election.enable, else the controller's default."""
        value = self.configs.config_props(TOPIC_RESOURCE, topic_name).get("unclean.leader.election.enable")
        return value.strip().lower() == "true" if value is not None else self.unclean_leader_election_enable

    # ------------------------------------------------------------------ ElectLeaders
    def elect_leaders(self, election_type: int,
                      topic_partitions) -> tuple[list[ApiMessageAndVersion], list[dict]]:
        """ElectLeaders: (records, replica_election_results). With topic_partitions null every
        partition is tried and only those that needed an election are reported, as in Kafka."""
        every = topic_partitions is None
        # Each partition once: the same index named a million times would otherwise be a million
        # identical records, all decided against the same (not yet replayed) state.
        wanted = ([(t.name, sorted(t.partitions)) for t in self.topics_by_id.values()] if every
                  else [(t.topic, list(dict.fromkeys(t.partitions))) for t in topic_partitions])
        records, results = [], []
        for name, partitions in wanted:
            topic = self.topic(name)
            partition_results = []
            for index in partitions:
                current = topic.partitions.get(index) if topic is not None else None
                if current is None:
                    change, error = None, Errors.UNKNOWN_TOPIC_OR_PARTITION
                    message = f"{name}-{index} does not exist"
                else:
                    change, error, message = self._elect(topic, index, current, election_type)
                if change is not None:
                    records.append(change)
                if not (every and error == Errors.ELECTION_NOT_NEEDED):
                    partition_results.append(dict(partition_id=index, error_code=error,
                                                  error_message=message))
            if partition_results:
                results.append(dict(topic=name, partition_result=partition_results))
        return records, results

    def _elect(self, topic: TopicControlInfo, index: int, p: PartitionRegistration, election_type: int):
        """One partition's election: (record or None, error, message)."""
        name = f"{topic.name}-{index}"
        if election_type == PREFERRED:
            preferred = p.replicas[0]
            if p.leader == preferred:
                message = f"{name}: the preferred replica {preferred} already leads"
                return None, Errors.ELECTION_NOT_NEEDED, message
            if preferred not in p.isr or not self.cluster.is_usable(preferred):
                return None, Errors.PREFERRED_LEADER_NOT_AVAILABLE, (
                    f"{name}: the preferred replica {preferred} is not in the ISR {list(p.isr)} or not alive")
            return partition_change(topic.topic_id, index, p, leader=preferred), Errors.NONE, None
        if p.leader != NO_LEADER:
            return None, Errors.ELECTION_NOT_NEEDED, f"{name} has a leader ({p.leader})"
        # UNCLEAN: the ISR (or ELR) first, else any live replica, even outside them (records may be lost)
        builder = self._builder(topic, index, p, self.cluster.is_usable).set_election(Election.UNCLEAN)
        change = builder.build()
        if change is None or change.data.leader in (NO_LEADER, -2):
            message = f"{name}: no replica of {list(p.replicas)} is alive"
            return None, Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE, message
        return change, Errors.NONE, None

    def imbalanced_partitions(self, imbalance_percentage: int) -> list:
        """The auto leader rebalance (Kafka's checkAndTriggerAutoLeaderRebalance): for each broker,
        the share of the partitions it prefers (it is their first replica) that someone else leads;
        above leader.imbalance.per.broker.percentage, those partitions get a PREFERRED election."""
        by_preferred: dict[int, list[tuple[str, int, bool]]] = {}
        for topic in self.topics_by_id.values():
            for index, p in topic.partitions.items():
                by_preferred.setdefault(p.replicas[0],
                                        []).append((topic.name, index, p.leader != p.replicas[0]))
        wanted: dict[str, list[int]] = {}
        for broker_id, partitions in by_preferred.items():
            not_led = [(name, index) for name, index, moved in partitions if moved]
            imbalanced = len(not_led) * 100 > imbalance_percentage * len(partitions)
            if self.cluster.is_usable(broker_id) and imbalanced:
                for name, index in not_led:
                    wanted.setdefault(name, []).append(index)
        return [_TopicPartitions(name, sorted(indexes)) for name, indexes in sorted(wanted.items())]

    def partitions_led_by(self, broker_id: int) -> int:
        return sum(1 for t in self.topics_by_id.values() for p in t.partitions.values()
                   if p.leader == broker_id)

    def counts(self) -> tuple[int, int, int]:
        """(topics, partitions, offline partitions)."""
        partitions = [p for t in self.topics_by_id.values() for p in t.partitions.values()]
        return len(self.topics_by_id), len(partitions), sum(1 for p in partitions if p.leader == NO_LEADER)

    # ------------------------------------------------------------------ replay
    def replay_topic(self, r) -> None:
        self.topics_by_id[r.topic_id] = TopicControlInfo(r.name, r.topic_id)
        self.topic_ids_by_name[r.name] = r.topic_id

    def replay_partition(self, r) -> None:
        topic = self.topics_by_id.get(r.topic_id)
        if topic is not None:
            topic.partitions[r.partition_id] = PartitionRegistration.from_record(r)

    def replay_partition_change(self, r) -> None:
        topic = self.topics_by_id.get(r.topic_id)
        if topic is not None and r.partition_id in topic.partitions:
            topic.partitions[r.partition_id] = topic.partitions[r.partition_id].merge(r)

    def replay_remove_topic(self, r) -> str | None:
        topic = self.topics_by_id.pop(r.topic_id, None)
        if topic is None:
            return None
        self.topic_ids_by_name.pop(topic.name, None)
        return topic.name
