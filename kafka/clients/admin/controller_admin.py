"""ControllerAdmin: an admin client that talks to the controllers themselves (Kafka's KafkaAdminClient with
`bootstrap.controllers`, KIP-919, and its addRaftVoter / removeRaftVoter of KIP-853).

`kafka-metadata-quorum --bootstrap-controller host:port` reaches the quorum on its own listener, so
it works while no broker runs. Only the leader of the quorum describes it or changes its voters, so
every request goes to the leader: a DescribeQuorum to any bootstrap controller names the leader
(and, since version 2, where every voter listens), and the request follows there. A controller that
stopped leading in between answers NOT_LEADER_OR_FOLLOWER and the leader is looked up again.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from kafka.clients.admin.descriptions import QuorumInfo, ReplicaState
from kafka.clients.admin.feature_admin import FeatureAdmin
from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.errors import KafkaError
from kafka.clients.manual_metadata_updater import ManualMetadataUpdater
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.time import Time
from kafka.utils.uuid import uuid_to_string

DESCRIBE_QUORUM_BODY = {"topics": [{"topic_name": "__cluster_metadata",
                                    "partitions": [{"partition_index": 0}]}]}
ZERO = uuid.UUID(int=0)


def quorum_info(response) -> QuorumInfo:
    """A DescribeQuorum response (any version) as Kafka's QuorumInfo."""
    partition = response.topics[0].partitions[0]
    if partition.error_code != Errors.NONE:
        raise KafkaError(partition.error_code, partition.get("error_message"))

    def states(replicas) -> list[ReplicaState]:
        def directory(r) -> str | None:
            found = r.get("replica_directory_id")
            return None if found in (None, ZERO) else uuid_to_string(found)
        return [ReplicaState(r.replica_id, r.log_end_offset, r.get("last_fetch_timestamp", -1),
                             r.get("last_caught_up_timestamp", -1), directory(r)) for r in replicas]

    nodes = {n.node_id: [f"{e.name}://{e.host}:{e.port}" for e in n.listeners] for n in response.get("nodes")
             or []}
    return QuorumInfo(partition.leader_id, partition.leader_epoch, partition.high_watermark,
                      states(partition.current_voters), states(partition.observers), nodes)


class ControllerAdmin(FeatureAdmin):  # describe_features, update_features (KIP-584)
    def __init__(self, bootstrap_controllers: str, config: Mapping[str, Any] | None, time: Time) -> None:
        self.config = ClientConfig(ADMIN, {**(config or {}), "bootstrap.servers": bootstrap_controllers})
        self.time = time
        self.timeout_ms = self.config["default.api.timeout.ms"]
        self.bootstrap = []
        for i, item in enumerate(a.strip() for a in bootstrap_controllers.split(",") if a.strip()):
            host, _, port = item.rpartition(":")
            self.bootstrap.append(Node(-1 - i, host.strip("[]"), int(port)))
        self.metadata = ManualMetadataUpdater(self.bootstrap)
        self.client = NetworkClient(self.metadata, self.config, time)

    # ------------------------------------------------------------------ finding the leader
    def _leader(self, remaining_ms: float) -> int:
        """Ask the bootstrap controllers, one after another, who leads; returns a node id we can
        reach it by."""
        last: Exception | None = None
        for node in self.bootstrap:
            try:
                response = self.client.send_and_wait(node.node_id, ApiKey.DESCRIBE_QUORUM,
                                                     DESCRIBE_QUORUM_BODY,
                                                     max(1, int(remaining_ms))).body
            except Exception as e:  # that one is down: ask the next
                last = e
                continue
            partition = response.topics[0].partitions[0]
            if partition.error_code == Errors.NONE:
                return node.node_id  # it leads
            endpoints = {n.node_id: n.listeners for n in response.get("nodes") or []}
            leader = partition.get("leader_id", -1)
            if leader >= 0 and endpoints.get(leader):
                listener = endpoints[leader][0]
                self.metadata.add_nodes([Node(leader, listener.host, listener.port)])
                return leader
            last = KafkaError(partition.error_code, "no leader of the metadata quorum is known yet")
        raise last if isinstance(last, KafkaError) else KafkaError(Errors.BROKER_NOT_AVAILABLE, str(last))

    def _call_leader(self, api_key: int, body: dict, max_version: int | None = None) -> Any:
        deadline = self.time.hi_res_clock_ms() + self.timeout_ms
        while True:
            remaining = deadline - self.time.hi_res_clock_ms()
            try:
                response = self.client.send_and_wait(self._leader(remaining), api_key, body,
                                                     max(1, int(deadline - self.time.hi_res_clock_ms())),
                                                     max_version).body
                error = response.get("error_code", 0)
                if error != Errors.NOT_LEADER_OR_FOLLOWER:
                    return response
            except KafkaError as e:
                if not e.retriable or self.time.hi_res_clock_ms() >= deadline:
                    raise
            if self.time.hi_res_clock_ms() + self.config["retry.backoff.ms"] >= deadline:
                raise KafkaError(Errors.REQUEST_TIMED_OUT,
                                 "the leader of the metadata quorum did not answer in time")
            self.time.sleep(self.config["retry.backoff.ms"])

    # ------------------------------------------------------------------ what the tool asks
    def describe_metadata_quorum(self) -> QuorumInfo:
        return quorum_info(self._call_leader(ApiKey.DESCRIBE_QUORUM, DESCRIBE_QUORUM_BODY))

    def describe_cluster(self) -> tuple[str | None, int, list[Node]]:
        response = self._call_leader(ApiKey.DESCRIBE_CLUSTER, {"include_cluster_authorized_operations": False,
                                                               "endpoint_type": 2})
        if response.error_code != Errors.NONE:
            raise KafkaError(response.error_code, response.error_message)
        return response.cluster_id, response.controller_id, [Node(b.broker_id, b.host, b.port)
                                                             for b in response.brokers]

    def add_raft_voter(self, voter_id: int, directory_id: uuid.UUID, endpoints: list[tuple[str, str, int]],
                       cluster_id: str | None = None) -> None:
        body = dict(cluster_id=cluster_id, timeout_ms=self.timeout_ms, voter_id=voter_id,
                    voter_directory_id=directory_id,
                    listeners=[dict(name=name, host=host, port=port) for name, host, port in endpoints])
        self.raise_for(self._call_leader(ApiKey.ADD_RAFT_VOTER, body))

    def remove_raft_voter(self, voter_id: int, directory_id: uuid.UUID,
                          cluster_id: str | None = None) -> None:
        body = dict(cluster_id=cluster_id, voter_id=voter_id, voter_directory_id=directory_id)
        self.raise_for(self._call_leader(ApiKey.REMOVE_RAFT_VOTER, body))

    # FeatureAdmin's plumbing (describe_features, update_features): every request goes to the quorum's leader
    def _call_any(self, api_key: int, body: dict, max_version: int | None = None) -> Any:
        return self._call_leader(api_key, body, max_version)

    _call_controller = _call_any

    def _call(self, node_id: int, api_key: int, body: dict, max_version: int | None = None) -> Any:
        raise ValueError("--node-id with --bootstrap-controller is not built here: the leader answers")

    @staticmethod
    def raise_for(response) -> None:
        if response.error_code != Errors.NONE:
            raise KafkaError(response.error_code, response.get("error_message"))

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> ControllerAdmin:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
