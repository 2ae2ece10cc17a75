"""AdminClient: topics, partitions, configs, offsets and groups (Kafka's clients.admin.KafkaAdminClient).

Each call is one or a few requests sent to the broker that can answer them: topic changes to the
controller, ListOffsets to each partition's leader, group requests to the group's coordinator,
ListGroups to every broker. Calls block until answered and return a result per item -- ``None``
for success or the ``KafkaError`` the broker gave -- rather than Java's map of futures.

    admin = AdminClient({"bootstrap.servers": "127.0.0.1:9092"})
    admin.create_topics([NewTopic("orders", 3, 1, {"retention.ms": "60000"})])
    admin.close()
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kafka.clients.admin.admin_call import call_retrying_disconnects
from kafka.clients.admin.controller_admin import ControllerAdmin, quorum_info
from kafka.clients.admin.describe_consumer_groups_handler import DescribeConsumerGroupsHandler
from kafka.clients.admin.describe_topic_partitions_handler import DescribeTopicPartitionsHandler
from kafka.clients.admin.descriptions import (
    ConfigEntry,
    ConsumerGroupDescription,
    NewTopic,
    PartitionReassignment,
    ProducerState,
    QuorumInfo,
    TopicDescription,
    TransactionDescription,
    TransactionListing,
)
from kafka.clients.admin.feature_admin import FeatureAdmin
from kafka.clients.admin.list_offsets_handler import ListOffsetsHandler
from kafka.clients.admin.share_group_admin import ShareGroupAdmin
from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.client_request import ClientResponse
from kafka.clients.consumer.subscription_state import OffsetAndMetadata
from kafka.clients.errors import KafkaError
from kafka.clients.metadata import Metadata, Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.acl import AclBinding, AclBindingFilter
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import SYSTEM, Time
from kafka.utils.topic_partition import TopicPartition

TOPIC_RESOURCE, BROKER_RESOURCE, GROUP_RESOURCE = 2, 4, 32  # ConfigResource.Type
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3  # AlterConfigOp.OpType
# An entity ({"client-id": "app"}, None for the default) and its quotas (None removes one).
QuotaAlteration = tuple[Mapping[str, str | None], Mapping[str, float | None]]

# What a ListOffsets meets while a partition's leader is being replaced: asked again, not fatal.
LEADER_GONE = frozenset({Errors.NETWORK_EXCEPTION, Errors.NOT_LEADER_OR_FOLLOWER, Errors.LEADER_NOT_AVAILABLE,
                         Errors.REQUEST_TIMED_OUT})


class AdminClient(ShareGroupAdmin, FeatureAdmin):  # share groups (KIP-932), features (KIP-584)
    def __init__(self, config: Mapping[str, Any] | None = None, time: Time = SYSTEM, **kwargs: Any) -> None:
        self.config = ClientConfig(ADMIN, config, **kwargs)
        self.config.values["client.id"] = self.config["client.id"] or "adminclient-1"
        self.time = time
        self.timeout_ms = self.config["default.api.timeout.ms"]
        self.metadata = Metadata(self.config["retry.backoff.ms"], self.config["metadata.max.age.ms"])
        self.client = NetworkClient(self.metadata, self.config, time, allow_auto_topic_creation=False)

    # ------------------------------------------------------------------ plumbing
    def _call(self, node_id: int, api_key: int, body: dict, max_version: int | None = None) -> Any:
        return call_retrying_disconnects(self, node_id, api_key, body, max_version).body  # admin_call.py

    def _any_node(self) -> int:
        self._ensure_cluster()
        node = self.client.least_loaded_node(self.time.hi_res_clock_ms())
        if node is None:
            raise KafkaError(Errors.BROKER_NOT_AVAILABLE, "no broker is reachable")
        return node.node_id

    def _controller(self) -> int:
        cluster = self._ensure_cluster()
        return cluster.controller_id if cluster.controller_id in cluster.nodes else self._any_node()

    def _call_controller(self, api_key: int, body: dict, max_version: int | None = None) -> Any:
        """A request meant for the controller (Java's ControllerNodeProvider): it goes to the broker
        Metadata names as controller, a random live one that forwards it (KIP-590)."""
        return self._call_with_retries(self._controller, api_key, body, max_version)

    def _call_any(self, api_key: int, body: dict, max_version: int | None = None) -> Any:
        """A request any broker answers (Java's LeastLoadedNodeProvider)."""
        return self._call_with_retries(self._any_node, api_key, body, max_version)

    def _call_with_retries(self, pick_node: Callable[[], int], api_key: int, body: dict,
                           max_version: int | None) -> Any:
        """Send to the node `pick_node` chooses, chosen again after each retriable error."""
        return self._retrying(lambda remaining_ms: self.client.send_and_wait(
            pick_node(), api_key, body, remaining_ms, max_version).body)

    def _retrying(self, attempt: Callable[[float], Any], only: frozenset[Errors] | None = None) -> Any:
        """``attempt(remaining_ms)``; on a retriable error (a refused connection, a timeout, a leader
        gone) refresh the metadata, wait retry.backoff.ms and attempt again, until
        default.api.timeout.ms has passed, as Java's AdminClient does. Right after a kill -9,
        Metadata still lists the dead broker until its session expires (broker.session.timeout.ms);
        the failed node is then in reconnect backoff, so the next choice is another. ``only`` narrows
        the retriable errors to those."""
        deadline = self.time.hi_res_clock_ms() + self.timeout_ms
        while True:
            try:
                return attempt(max(deadline - self.time.hi_res_clock_ms(), 0))
            except KafkaError as e:
                retry = e.retriable and (only is None or e.error in only)
                if not retry or self.time.hi_res_clock_ms() + self.config["retry.backoff.ms"] >= deadline:
                    raise
            self.time.sleep(self.config["retry.backoff.ms"])
            self.client.await_metadata(max(deadline - self.time.hi_res_clock_ms(), 0))

    def _ensure_cluster(self):
        if not self.metadata.cluster.nodes or min(self.metadata.cluster.nodes) < 0:
            self.client.await_metadata(self.timeout_ms)
        return self.metadata.cluster

    def _metadata(self, topics: list[str] | None) -> Any:
        body = {"topics": None if topics is None else [{"name": t} for t in topics],
                "allow_auto_topic_creation": False}
        return self._checked(self._call_any(ApiKey.METADATA, body))  # v13's top-level error too

    @staticmethod
    def _checked(response) -> Any:
        """The response, unless its top-level error_code is set: then that error, with its message, raised."""
        if response.get("error_code", Errors.NONE) != Errors.NONE:
            raise KafkaError(response.error_code, response.get("error_message"))
        return response

    @staticmethod
    def _result(error_code: int, message: str | None = None) -> KafkaError | None:
        return None if error_code == Errors.NONE else KafkaError(error_code, message)

    # ------------------------------------------------------------------ topics
    def create_topics(self, topics: Iterable[NewTopic],
                      validate_only: bool = False) -> dict[str, KafkaError | None]:
        creatable = [{"name": t.name, "num_partitions": t.num_partitions,
                      "replication_factor": t.replication_factor, "assignments": [],
                      "configs": [{"name": k, "value": v} for k, v in t.configs.items()]} for t in topics]
        body = {"topics": creatable, "timeout_ms": self.timeout_ms, "validate_only": validate_only}
        response = self._call_controller(ApiKey.CREATE_TOPICS, body)
        return {t.name: self._result(t.error_code, t.get("error_message")) for t in response.topics}

    def delete_topics(self, names: Iterable[str]) -> dict[str, KafkaError | None]:
        names = list(names)
        body = {"topic_names": names, "topics": [{"name": n} for n in names], "timeout_ms": self.timeout_ms}
        response = self._call_controller(ApiKey.DELETE_TOPICS, body)
        return {r.name: self._result(r.error_code, r.get("error_message")) for r in response.responses}

    def create_partitions(self, new_counts: Mapping[str, int],
                          validate_only: bool = False) -> dict[str, KafkaError | None]:
        body = {"topics": [{"name": t, "count": n, "assignments": None} for t, n in new_counts.items()],
                "timeout_ms": self.timeout_ms, "validate_only": validate_only}
        response = self._call_controller(ApiKey.CREATE_PARTITIONS, body)
        return {r.name: self._result(r.error_code, r.error_message) for r in response.results}

    def elect_leaders(self, election_type: int, partitions: Iterable[TopicPartition] | None
                      ) -> dict[TopicPartition, KafkaError | None]:
        """ElectLeaders (0 PREFERRED, 1 UNCLEAN) for `partitions`, or every partition (None): each
        partition's error, None when a leader was elected (ELECTION_NOT_NEEDED is an error here, as
        in Kafka's Admin.electLeaders)."""
        by_topic: dict[str, list[int]] = {}
        for tp in partitions or []:
            by_topic.setdefault(tp.topic, []).append(tp.partition)
        body = {"election_type": election_type, "timeout_ms": self.timeout_ms,
                "topic_partitions": None if partitions is None else [
                    {"topic": t, "partitions": ps} for t, ps in by_topic.items()]}
        response = self._call_controller(ApiKey.ELECT_LEADERS, body)
        if response.get("error_code", Errors.NONE) != Errors.NONE:
            raise KafkaError(response.error_code, "ElectLeaders")
        return {TopicPartition(r.topic, p.partition_id): self._result(p.error_code, p.error_message)
                for r in response.replica_election_results for p in r.partition_result}

    def alter_partition_reassignments(self, targets: Mapping[TopicPartition, list[int] | None],
                                      allow_replication_factor_change: bool = True,
                                      ) -> dict[TopicPartition, KafkaError | None]:
        """Start moving each partition to its target replicas (None cancels a reassignment in
        progress); each partition's error, None when it started (KIP-455). Not allowing a change of
        replication factor needs AlterPartitionReassignments v1 (KIP-860)."""
        by_topic: dict[str, list[dict]] = {}
        for tp, replicas in targets.items():
            by_topic.setdefault(tp.topic, []).append({"partition_index": tp.partition, "replicas": replicas})
        topics = [{"name": t, "partitions": ps} for t, ps in by_topic.items()]
        response = self._checked(self._call_controller(ApiKey.ALTER_PARTITION_REASSIGNMENTS, {
            "timeout_ms": self.timeout_ms, "topics": topics,
            "allow_replication_factor_change": allow_replication_factor_change}))
        return {TopicPartition(t.name, p.partition_index): self._result(p.error_code, p.error_message)
                for t in response.responses for p in t.partitions}

    def list_partition_reassignments(self, partitions: Iterable[TopicPartition] | None = None
                                     ) -> dict[TopicPartition, PartitionReassignment]:
        """The reassignments in progress (of `partitions`, or all)."""
        topics = None
        if partitions is not None:
            by_topic: dict[str, list[int]] = {}
            for tp in partitions:
                by_topic.setdefault(tp.topic, []).append(tp.partition)
            topics = [{"name": t, "partition_indexes": ps} for t, ps in by_topic.items()]
        response = self._checked(self._call_controller(ApiKey.LIST_PARTITION_REASSIGNMENTS,
                                                       {"timeout_ms": self.timeout_ms, "topics": topics}))
        return {TopicPartition(t.name, p.partition_index): PartitionReassignment(
                    list(p.replicas), list(p.adding_replicas), list(p.removing_replicas))
                for t in response.topics for p in t.partitions}

    def list_topics(self, include_internal: bool = False) -> set[str]:
        response = self._metadata(None)
        return {t.name for t in response.topics if include_internal or not t.get("is_internal", False)}

    def describe_topics(self, names: Iterable[str], partition_size_limit_per_response: int = 2000,
                        ) -> dict[str, TopicDescription]:
        """DescribeTopicPartitions (KIP-966: each partition's ELR), page by page; Metadata if unsupported."""
        handler = DescribeTopicPartitionsHandler(names, partition_size_limit_per_response)
        try:
            while not handler.done:
                handler.handle_response(self._call_any(ApiKey.DESCRIBE_TOPIC_PARTITIONS, handler.request()))
        except KafkaError as e:
            if e.error != Errors.UNSUPPORTED_VERSION:
                raise
            handler.handle_metadata_response(self._metadata(handler.pending))
        return handler.result()

    def describe_cluster(self) -> tuple[str | None, int, list[Node]]:
        """(cluster id, controller id, brokers), from DescribeCluster."""
        response = self._checked(self._call_any(ApiKey.DESCRIBE_CLUSTER,
                                                {"include_cluster_authorized_operations": False}))
        return response.cluster_id, response.controller_id, [
            Node(b.broker_id, b.host, b.port, b.rack) for b in response.brokers]

    def describe_metadata_quorum(self) -> QuorumInfo:
        """DescribeQuorum (KIP-595) for __cluster_metadata-0: any broker forwards it to the active
        controller."""
        body = {"topics": [{"topic_name": "__cluster_metadata", "partitions": [{"partition_index": 0}]}]}
        return quorum_info(self._checked(self._call_any(ApiKey.DESCRIBE_QUORUM, body)))

    # ------------------------------------------------------------------ configs
    def add_raft_voter(self, voter_id: int, directory_id, endpoints: list[tuple[str, str, int]]) -> None:
        """AddRaftVoter (KIP-853): a broker forwards it to the active controller, the quorum's leader."""
        listeners = [dict(name=name, host=host, port=port) for name, host, port in endpoints]
        body = dict(cluster_id=None, timeout_ms=self.timeout_ms, voter_id=voter_id,
                    voter_directory_id=directory_id, listeners=listeners)
        ControllerAdmin.raise_for(self._call_controller(ApiKey.ADD_RAFT_VOTER, body))

    def remove_raft_voter(self, voter_id: int, directory_id) -> None:
        body = dict(cluster_id=None, voter_id=voter_id, voter_directory_id=directory_id)
        ControllerAdmin.raise_for(self._call_controller(ApiKey.REMOVE_RAFT_VOTER, body))

    def describe_configs(self, resource_type: int, name: str, keys: list[str] | None = None,
                         include_synonyms: bool = False) -> dict[str, ConfigEntry]:
        """The resource's configs by name, in the broker's order; each synonym (name, value, source)."""
        resource = {"resource_type": resource_type, "resource_name": name, "configuration_keys": keys}
        body = {"resources": [resource], "include_synonyms": include_synonyms, "include_documentation": False}
        node = int(name) if resource_type == BROKER_RESOURCE and name else self._any_node()
        response = self._call(node, ApiKey.DESCRIBE_CONFIGS, body)
        result = response.results[0]
        if result.error_code != Errors.NONE:
            raise KafkaError(result.error_code, result.error_message)
        return {c.name: ConfigEntry(c.name, c.value, c.get("config_source", -1), c.read_only, c.is_sensitive,
                                    tuple((y.name, y.value, y.source) for y in c.get("synonyms") or ()))
                for c in result.configs}

    def incremental_alter_configs(self, resource_type: int, name: str, ops: list[tuple[str, int, str | None]],
                                  validate_only: bool = False) -> None:
        """``ops`` are (config name, SET/DELETE/APPEND/SUBTRACT, value)."""
        configs = [{"name": k, "config_operation": op, "value": v} for k, op, v in ops]
        resource = {"resource_type": resource_type, "resource_name": name, "configs": configs}
        body = {"resources": [resource], "validate_only": validate_only}
        node = int(name) if resource_type == BROKER_RESOURCE and name else self._any_node()
        response = self._call(node, ApiKey.INCREMENTAL_ALTER_CONFIGS, body)
        for r in response.responses:
            if r.error_code != Errors.NONE:
                raise KafkaError(r.error_code, r.error_message)

    # ------------------------------------------------------------------ client quotas (KIP-546)
    def describe_client_quotas(self, components: Iterable[tuple[str, int, str | None]], strict: bool = False
                               ) -> dict[tuple[tuple[str, str | None], ...], dict[str, float]]:
        """The quotas of the entities a filter matches (Java's describeClientQuotas). ``components``
        are (entity type, match type, match): 0 EXACT a name, 1 the DEFAULT entity, 2 any name.
        Each entity comes back as its (entity type, name or None for the default) pairs."""
        filters = [{"entity_type": t, "match_type": m, "match": name} for t, m, name in components]
        response = self._checked(self._call_any(ApiKey.DESCRIBE_CLIENT_QUOTAS,
                                                {"components": filters, "strict": strict}))
        quotas = {}
        for entry in response.entries or []:
            entity = tuple((e.entity_type, e.entity_name) for e in entry.entity)
            quotas[entity] = {v.key: v.value for v in entry.values}
        return quotas

    def alter_client_quotas(self, alterations: Iterable[QuotaAlteration],
                            validate_only: bool = False) -> list[KafkaError | None]:
        """Set or remove quotas (Java's alterClientQuotas): each alteration is an entity
        ({"client-id": "app"}, None for the default) and its keys, a value of None removing one."""
        entries = [{"entity": [{"entity_type": t, "entity_name": n} for t, n in entity.items()],
                    "ops": [{"key": k, "value": 0.0 if v is None else float(v), "remove": v is None}
                            for k, v in ops.items()]}
                   for entity, ops in alterations]
        body = {"entries": entries, "validate_only": validate_only}
        response = self._call_controller(ApiKey.ALTER_CLIENT_QUOTAS, body)
        return [self._result(e.error_code, e.error_message) for e in response.entries]

    # ------------------------------------------------------------------ ACLs (KIP-140)
    def create_acls(self, bindings: Iterable[AclBinding]) -> list[KafkaError | None]:
        response = self._call_any(ApiKey.CREATE_ACLS, {"creations": [b.to_creation() for b in bindings]})
        return [self._result(r.error_code, r.error_message) for r in response.results]

    def describe_acls(self, f: AclBindingFilter) -> list[AclBinding]:
        response = self._checked(self._call_any(ApiKey.DESCRIBE_ACLS, f.to_filter()))
        return [AclBinding.of(r.resource_type, r.resource_name, r.pattern_type, a.principal, a.host,
                              a.operation, a.permission_type) for r in response.resources for a in r.acls]

    def delete_acls(self, filters: Iterable[AclBindingFilter]) -> list[list[AclBinding] | KafkaError]:
        """Each filter's matching bindings, now deleted, or the error it met."""
        response = self._call_any(ApiKey.DELETE_ACLS, {"filters": [f.to_filter() for f in filters]})

        def deleted(r) -> list[AclBinding] | KafkaError:
            if r.error_code != Errors.NONE:
                return KafkaError(r.error_code, r.error_message)
            return [AclBinding.of(a.resource_type, a.resource_name, a.pattern_type, a.principal, a.host,
                                  a.operation, a.permission_type) for a in r.matching_acls]
        return [deleted(r) for r in response.filter_results]

    # ------------------------------------------------------------------ SCRAM credentials (KIP-554)
    def describe_user_scram_credentials(self, users: Iterable[str] | None = None,
                                        ) -> dict[str, dict[str, int]]:
        """user -> {mechanism id: iterations} (Java's describeUserScramCredentials); raises for a
        missing user."""
        body = {"users": None if users is None else [{"name": u} for u in users]}
        results = self._call_any(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, body).results
        for r in results:
            if r.error_code != Errors.NONE:
                raise KafkaError(r.error_code, r.error_message)
        return {r.user: {c.mechanism: c.iterations for c in r.credential_infos} for r in results}

    def alter_user_scram_credentials(self, upsertions: Iterable[tuple[str, int, int, bytes, bytes]] = (),
                                     deletions: Iterable[tuple[str, int]] = (),
                                     ) -> dict[str, KafkaError | None]:
        """Upsertions (user, mechanism id, iterations, salt, salted password) and deletions (user,
        mechanism id): the caller salts, as Java's UserScramCredentialUpsertion does; the password
        never leaves it."""
        body = {"upsertions": [dict(name=n, mechanism=m, iterations=i, salt=s, salted_password=p)
                               for n, m, i, s, p in upsertions],
                "deletions": [dict(name=n, mechanism=m) for n, m in deletions]}
        response = self._call_controller(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, body)
        return {r.user: self._result(r.error_code, r.error_message) for r in response.results}

    # ------------------------------------------------------------------ offsets
    def list_offsets(self, specs: Mapping[TopicPartition, str | int],
                     isolation_level: int = 0) -> dict[TopicPartition, tuple[int, int]]:
        """{tp: (offset, timestamp)}; a spec is "earliest", "latest", "max-timestamp" or a timestamp
        in ms (ListOffsetsHandler).

        ``isolation_level`` 1 (read_committed, Java's ListOffsetsOptions) makes "latest" the last
        stable offset instead of the high watermark. A leader just killed or moved is looked up
        again and asked again until default.api.timeout.ms (a failover under Spark's reader)."""
        handler = ListOffsetsHandler(specs, isolation_level)
        return self._retrying(lambda remaining_ms: self._list_offsets_from_leaders(handler),
                              only=LEADER_GONE)

    def _list_offsets_from_leaders(self, handler: ListOffsetsHandler,
                                   ) -> dict[TopicPartition, tuple[int, int]]:
        """One try: the leaders as Metadata names them now, each asked for its partitions."""
        described = self.describe_topics({tp.topic for tp in handler.specs})
        result = {}
        for leader, body in handler.build_requests(described).items():
            result.update(handler.handle_response(self._call(leader, ApiKey.LIST_OFFSETS, body)))
        return result

    # ------------------------------------------------------------------ groups
    def _group_coordinator(self, group_id: str) -> int:
        """The group's coordinator, asked for again while none is available yet (the broker answers
        COORDINATOR_NOT_AVAILABLE while it creates __consumer_offsets), as Java's CoordinatorStrategy does."""
        def attempt(remaining_ms: float):
            response = self.client.send_and_wait(self._any_node(), ApiKey.FIND_COORDINATOR,
                                                 {"key": group_id, "key_type": 0}, remaining_ms, 3).body
            if response.error_code != Errors.NONE:
                raise KafkaError(response.error_code, f"finding the coordinator of group {group_id!r}")
            return response

        response = self._retrying(attempt)
        node = Node(response.node_id, response.host, response.port)
        self.client.register_node(node)
        return node.node_id

    def _at_group_coordinator(self, group_id: str, api_key: int, body: dict,
                              busy: Callable[[Any], Errors | None], max_version: int | None = None) -> Any:
        """The coordinator's response, asked again (of the coordinator looked up again) while ``busy``
        finds in it the error of a coordinator that is loading or moving, as Java's CoordinatorStrategy
        retries COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE and NOT_COORDINATOR."""
        def attempt(remaining_ms: float) -> Any:
            response = self._call(self._group_coordinator(group_id), api_key, body, max_version)
            if (error := busy(response)) is not None:
                raise KafkaError(error, f"the coordinator of group {group_id!r} is not ready")
            return response
        return self._retrying(attempt, only=COORDINATOR_BUSY)

    def list_consumer_groups(self) -> list[tuple[str, str]]:
        """(group id, state) for every group on every broker."""
        return [(group_id, state) for group_id, state, _ in self.list_groups()]

    def list_groups(self, types: Iterable[str] = (),
                    states: Iterable[str] = ()) -> list[tuple[str, str, str]]:
        """(group id, state, type) for every group on every broker; the type as Kafka's GroupType
        prints it, Classic, Consumer or Share (ListGroups v5), "" from a broker that does not say; in the
        order the brokers answer, as Java's listGroups (kafka-consumer-groups --list prints that order).
        ``types`` and ``states`` keep only those (Java's ListGroupsOptions.withTypes, inGroupStates)."""
        self._ensure_cluster()
        groups = []
        body = {"types_filter": [t.capitalize() for t in types], "states_filter": list(states)}
        for node_id in list(self.metadata.cluster.nodes):
            response: ClientResponse = self.client.send_and_wait(node_id, ApiKey.LIST_GROUPS, body,
                                                                 self.timeout_ms)
            if response.body.error_code != Errors.NONE:
                raise KafkaError(response.body.error_code, "listing groups")
            groups += [(g.group_id, g.get("group_state", ""), (g.get("group_type") or "").capitalize())
                       for g in response.body.groups]
        return groups

    def describe_consumer_groups(self, group_ids: Iterable[str]) -> dict[str, ConsumerGroupDescription]:
        """As Kafka 4's Admin: ConsumerGroupDescribe first (KIP-848 groups), and DescribeGroups for a
        group it does not know (GROUP_ID_NOT_FOUND: a classic group) or a broker without it."""
        result = {}
        for group_id in group_ids:
            coordinator = self._group_coordinator(group_id)
            handler = DescribeConsumerGroupsHandler(group_id)
            described = self._consumer_group_describe(coordinator, handler)
            if described is None:  # a classic group, or a coordinator without ConsumerGroupDescribe
                response = self._call(coordinator, ApiKey.DESCRIBE_GROUPS, handler.describe_groups_request())
                described = handler.handle_describe_groups_response(response)
            result[group_id] = dataclasses.replace(described, coordinator=self.client.node(coordinator))
        return result

    def _consumer_group_describe(self, coordinator: int, handler: DescribeConsumerGroupsHandler,
                                 ) -> ConsumerGroupDescription | None:
        try:
            response = self._call(coordinator, ApiKey.CONSUMER_GROUP_DESCRIBE,
                                  handler.consumer_group_describe_request())
        except KafkaError as e:
            if e.error == Errors.UNSUPPORTED_VERSION:
                return None
            raise
        return handler.handle_consumer_group_describe_response(response)

    def delete_consumer_groups(self, group_ids: Iterable[str]) -> dict[str, KafkaError | None]:
        result = {}
        for group_id in group_ids:
            coordinator = self._group_coordinator(group_id)
            response = self._call(coordinator, ApiKey.DELETE_GROUPS, {"groups_names": [group_id]})
            result.update({r.group_id: self._result(r.error_code) for r in response.results})
        return result

    def list_consumer_group_offsets(self, group_id: str, with_metadata: bool = False,
                                    ) -> dict[TopicPartition, int] | dict[TopicPartition, OffsetAndMetadata]:
        """The group's committed offsets; with_metadata: each as Java's OffsetAndMetadata (with its
        metadata and the leader epoch the committing consumer saw, -1 if none)."""
        response = self._at_group_coordinator(
            group_id, ApiKey.OFFSET_FETCH, {"group_id": group_id, "topics": None, "require_stable": False},
            lambda r: _busy(r.get("error_code", 0)), max_version=7)
        if response.get("error_code", 0) != Errors.NONE:
            raise KafkaError(response.error_code, f"fetching offsets of group {group_id!r}")
        return {TopicPartition(t.name, p.partition_index):
                OffsetAndMetadata(p.committed_offset, p.metadata or "", p.get("committed_leader_epoch", -1))
                if with_metadata else p.committed_offset
                for t in response.topics for p in t.partitions if p.committed_offset >= 0}

    def alter_consumer_group_offsets(self, group_id: str, offsets: Mapping[TopicPartition, OffsetAndMetadata],
                                     ) -> dict[TopicPartition, KafkaError | None]:
        """Commit these offsets for the group from outside it: generation -1 and no member id, the "simple"
        commit the coordinator accepts only while the group has no members. By name (v9), as Kafka's."""
        by_topic: dict[str, list[dict]] = {}
        for tp, om in sorted(offsets.items()):
            by_topic.setdefault(tp.topic, []).append({"partition_index": tp.partition,
                                                      "committed_offset": om.offset,
                                                      "committed_leader_epoch": om.leader_epoch,
                                                      "committed_metadata": om.metadata})
        topics = [{"name": t, "partitions": ps} for t, ps in by_topic.items()]
        body = {"group_id": group_id, "generation_id_or_member_epoch": -1, "member_id": "",
                "group_instance_id": None, "topics": topics}
        response = self._at_group_coordinator(group_id, ApiKey.OFFSET_COMMIT, body, lambda r: next(
            (p.error_code for t in r.topics for p in t.partitions if _busy(p.error_code)), None), 9)
        return {TopicPartition(t.name, p.partition_index): self._result(p.error_code)
                for t in response.topics for p in t.partitions}

    def delete_consumer_group_offsets(self, group_id: str, partitions: Iterable[TopicPartition],
                                      ) -> dict[TopicPartition, KafkaError | None]:
        """Forget the group's committed offsets of these partitions (OffsetDelete, KIP-496). A
        group-level refusal (unknown group, members still active) raises."""
        by_topic: dict[str, list[dict]] = {}
        for tp in sorted(partitions):
            by_topic.setdefault(tp.topic, []).append({"partition_index": tp.partition})
        body = {"group_id": group_id, "topics": [{"name": t, "partitions": ps} for t, ps in by_topic.items()]}
        response = self._at_group_coordinator(group_id, ApiKey.OFFSET_DELETE, body,
                                              lambda r: _busy(r.error_code))
        if response.error_code != Errors.NONE:
            raise KafkaError(response.error_code, f"deleting offsets of group {group_id!r}")
        return {TopicPartition(t.name, p.partition_index): self._result(p.error_code)
                for t in response.topics for p in t.partitions}

    # ------------------------------------------------------------------ transactions
    def _transaction_coordinator(self, transactional_id: str) -> int:
        response = self._call_any(ApiKey.FIND_COORDINATOR, {"key": transactional_id, "key_type": 1},
                                  max_version=3)
        if response.error_code != Errors.NONE:
            raise KafkaError(response.error_code,
                             f"finding the coordinator of transactional id {transactional_id!r}")
        node = Node(response.node_id, response.host, response.port)
        self.client.register_node(node)
        return node.node_id

    def describe_transactions(self, transactional_ids: Iterable[str]) -> dict[str, TransactionDescription]:
        """Each id's state, from its coordinator (Java's Admin.describeTransactions)."""
        result = {}
        for transactional_id in transactional_ids:
            coordinator = self._transaction_coordinator(transactional_id)
            body = {"transactional_ids": [transactional_id]}
            response = self._call(coordinator, ApiKey.DESCRIBE_TRANSACTIONS, body)
            t = response.transaction_states[0]
            if t.error_code != Errors.NONE:
                raise KafkaError(t.error_code, f"describing transactional id {transactional_id!r}")
            result[transactional_id] = TransactionDescription(
                coordinator, t.transaction_state, t.producer_id, t.producer_epoch, t.transaction_timeout_ms,
                None if t.transaction_start_time_ms < 0 else t.transaction_start_time_ms,
                [TopicPartition(d.topic, p) for d in t.topics for p in d.partitions])
        return result

    def list_transactions(self, duration_filter_ms: int = -1, state_filters: Iterable[str] = (),
                          producer_id_filters: Iterable[int] = (),
                          transactional_id_pattern: str | None = None) -> dict[int, list[TransactionListing]]:
        """{broker id: its transactions}: every broker coordinates some (Java's
        listTransactions().allByBrokerId()); the pattern must match a whole transactional id (KIP-1152)."""
        self._ensure_cluster()
        body = {"state_filters": list(state_filters), "producer_id_filters": list(producer_id_filters),
                "duration_filter": duration_filter_ms, "transactional_id_pattern": transactional_id_pattern}
        result = {}
        for node_id in sorted(self.metadata.cluster.nodes):
            response = self._call(node_id, ApiKey.LIST_TRANSACTIONS, body)
            if response.error_code != Errors.NONE:
                raise KafkaError(response.error_code, f"listing transactions on broker {node_id}")
            result[node_id] = [TransactionListing(t.transactional_id, t.producer_id, t.transaction_state)
                               for t in response.transaction_states]
        return result

    def describe_producers(self, partitions: Iterable[TopicPartition],
                           ) -> dict[TopicPartition, list[ProducerState]]:
        """The producers each partition's leader keeps state for (Java's describeProducers)."""
        partitions = list(partitions)
        described = self.describe_topics({tp.topic for tp in partitions})
        result = {}
        for tp in partitions:
            parts = described[tp.topic].partitions
            if tp.partition >= len(parts):
                raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION, str(tp))
            response = self._call(parts[tp.partition].leader, ApiKey.DESCRIBE_PRODUCERS,
                                  {"topics": [{"name": tp.topic, "partition_indexes": [tp.partition]}]})
            p = response.topics[0].partitions[0]
            if p.error_code != Errors.NONE:
                raise KafkaError(p.error_code, p.error_message or f"describing producers of {tp}")
            result[tp] = [ProducerState(s.producer_id, s.producer_epoch, s.last_sequence, s.last_timestamp,
                                        _unless_negative(s.coordinator_epoch),
                                        _unless_negative(s.current_txn_start_offset))
                          for s in p.active_producers]
        return result

    def abort_transaction(self, tp: TopicPartition, producer_id: int, producer_epoch: int,
                          coordinator_epoch: int) -> None:
        """Write an ABORT marker for a hanging transaction straight to the partition's leader (Java's
        abortTransaction, KIP-664): the coordinator is not involved, so use it only for a transaction
        its coordinator has forgotten."""
        leader = self.describe_topics([tp.topic])[tp.topic].partitions[tp.partition].leader
        marker = {"producer_id": producer_id, "producer_epoch": producer_epoch, "transaction_result": False,
                  "coordinator_epoch": coordinator_epoch,
                  "topics": [{"name": tp.topic, "partition_indexes": [tp.partition]}]}
        response = self._call(leader, ApiKey.WRITE_TXN_MARKERS, {"markers": [marker]})
        errors = [p.error_code for m in response.markers for t in m.topics for p in t.partitions
                  if p.error_code != Errors.NONE]
        if errors:
            raise KafkaError(errors[0], f"aborting the transaction of producer {producer_id} on {tp}")

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> AdminClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


COORDINATOR_BUSY = frozenset({Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE,
                              Errors.NOT_COORDINATOR})


def _busy(error_code: int) -> Errors | None:
    return Errors(error_code) if error_code in COORDINATOR_BUSY else None


def _unless_negative(value: int) -> int | None:
    """None for a field Kafka sets to -1 when it has no value."""
    return None if value < 0 else value
