"""KafkaNetworkChannel: how raft requests reach other nodes (Kafka's
org.apache.kafka.raft.KafkaNetworkChannel).

Seed 002 keeps the control plane apart from the data plane: voters talk to each other, and brokers
to voters, only on the controllers' own listener (controller.listener.names), so a queue of client
produce requests never delays an election. The channel is a NetworkClient whose nodes are the
voters of controller.quorum.voters (a ManualMetadataUpdater: no Metadata requests), one connection
per voter, requests in order. A request that cannot be delivered (the voter is down, or it timed
out) comes back to the core as a RaftTransportFailure, which is how the core learns to retry: it
never sees a socket.

KIP-853: the voters can change, so the driver hands the channel the endpoints of the latest voter
set (update_endpoints). A node that knows no voter yet (a controller formatted with
--no-initial-controllers) fetches from controller.quorum.bootstrap.servers, which have the ids
-2, -3, ... (Kafka's); when one of them answers a Fetch as the leader, the channel learns that the
leader's id is at that address.

Kafka keeps this class in its raft module, which depends on the clients module. Here it sits with
SharedServer, which builds it as Kafka's KafkaRaftManager does, so that kafka/raft stays the quorum
alone, one floor below the client library (the layers in docs/architecture.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from kafka.clients.client_config import ADMIN, ClientConfig
from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.manual_metadata_updater import ManualMetadataUpdater
from kafka.clients.metadata import Node
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.messages.fetch import fetch_request_for_version
from kafka.raft.raft_message import RaftRequest, RaftResponse, RaftTransportFailure
from kafka.utils.time import Time


class KafkaNetworkChannel:
    def __init__(self, node_id: int, voters: dict[int, tuple[str, int]], request_timeout_ms: int,
                 retry_backoff_ms: int, time: Time, client_configs: dict | None = None) -> None:
        self.node_id = node_id
        self.time = time
        self.request_timeout_ms = request_timeout_ms
        nodes = [Node(voter_id, host, port) for voter_id, (host, port) in sorted(voters.items())]
        config = ClientConfig(ADMIN, {
            "bootstrap.servers": ",".join(f"{n.host}:{n.port}" for n in nodes) or "127.0.0.1:0",
            "client.id": f"raft-client-{node_id}",
            "request.timeout.ms": request_timeout_ms,
            "reconnect.backoff.ms": max(retry_backoff_ms, 50),
            "reconnect.backoff.max.ms": 1000,
            **(client_configs or {}),  # security.protocol and ssl.* of the controller listener
        })
        self.client = NetworkClient(ManualMetadataUpdater(nodes), config, time)
        self.on_response: Callable[[RaftResponse | RaftTransportFailure], None] = lambda response: None

    def send(self, request: RaftRequest) -> None:
        def complete(response: ClientResponse) -> None:
            now = self.time.milliseconds()
            if response.body is None or response.error is not None:
                error = Errors.REQUEST_TIMED_OUT if response.timed_out else Errors.BROKER_NOT_AVAILABLE
                self.on_response(RaftTransportFailure(correlation_id=request.correlation_id,
                                                      source_id=request.destination_id,
                                                      destination_id=self.node_id,
                                                      api_key=request.api_key, error=error, received_ms=now))
                return
            if request.destination_id < 0 and request.api_key == ApiKey.FETCH:
                self._learn_leader_address(request.destination_id, response.body)
            self.on_response(RaftResponse(correlation_id=request.correlation_id,
                                          source_id=request.destination_id,
                                          destination_id=self.node_id, api_key=request.api_key,
                                          body=response.body,
                                          received_ms=now))

        body = request.body
        if request.api_key == ApiKey.FETCH:  # ReplicaId or ReplicaState, as the version agreed has it
            body = functools.partial(fetch_request_for_version, request.body)
        self.client.send(ClientRequest(request.destination_id, request.api_key, body,
                                       callback=complete,
                                       timeout_ms=self.request_timeout_ms))

    def update_endpoints(self, endpoints: dict[int, tuple[str, int]]) -> None:
        self.client.metadata.add_nodes([Node(i, host, port) for i, (host, port) in sorted(endpoints.items())])

    def _learn_leader_address(self, bootstrap_id: int, body) -> None:
        partition = body["responses"][0]["partitions"][0] if body.get("responses") else None
        leader = partition.get("current_leader") if partition is not None else None
        bootstrap = self.client.metadata.cluster.nodes.get(bootstrap_id)
        leader_known = leader is not None and leader.leader_id >= 0 and partition["error_code"] == Errors.NONE
        if leader_known and bootstrap:
            self.update_endpoints({leader.leader_id: (bootstrap.host, bootstrap.port)})

    def poll(self, timeout_ms: float) -> None:
        self.client.poll(timeout_ms)

    def wakeup(self) -> None:
        self.client.wakeup()

    def close(self) -> None:
        self.client.close()
