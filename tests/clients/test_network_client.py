"""NetworkClient: version negotiation, the metadata-first rule, reconnect backoff and request timeouts."""

from __future__ import annotations

import socket

from kafka.clients.client_config import PRODUCER, ClientConfig
from kafka.clients.client_request import ClientRequest, ClientResponse
from kafka.clients.metadata import Metadata
from kafka.clients.network_client import NetworkClient
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_response
from kafka.protocol.messages.metadata import METADATA
from kafka.utils.time import SYSTEM
from tests.helpers import free_port, wait_until


def _client(bootstrap: str, **overrides) -> NetworkClient:
    config = ClientConfig(PRODUCER, {"bootstrap.servers": bootstrap, **overrides})
    return NetworkClient(Metadata(10, 300000), config, SYSTEM)


def test_versions_are_the_highest_both_sides_speak_and_metadata_comes_first(broker):
    client = _client(broker.bootstrap)
    try:
        client.await_metadata(10000)
        node_id = next(iter(client.metadata.cluster.nodes))
        wait_until(lambda: client.poll(10) is not None
                   and client.ready(node_id, client.time.hi_res_clock_ms()),
                   message="the broker's node to be ready")
        versions = client.api_versions[node_id]
        assert versions[ApiKey.PRODUCE][1] == APIS[ApiKey.PRODUCE].max_version
        response = client.send_and_wait(node_id, ApiKey.METADATA, {"topics": []}, 10000)
        assert response.version == min(APIS[ApiKey.METADATA].max_version, versions[ApiKey.METADATA][1])
        # Seed 003: once a refresh is due, no node is ready for anything else until it is done.
        version = client.metadata.request_update()
        assert not client.is_ready(node_id, client.time.hi_res_clock_ms())
        client.poll_until(lambda: client.metadata.update_version > version, 10000)
        assert client.is_ready(node_id, client.time.hi_res_clock_ms())
    finally:
        client.close()


def test_connection_refused_backs_off_and_fails_waiting_requests():
    client = _client(f"127.0.0.1:{free_port()}",
                     **{"reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 400})
    try:
        future = client.send(ClientRequest(-1, ApiKey.METADATA, {"topics": []}))
        client.poll_until(future.done, 5000)
        assert future.result().disconnected
        first = client.connection_states._get(-1).backoff_ms
        client.send(ClientRequest(-1, ApiKey.METADATA, {"topics": []}))
        wait_until(lambda: client.poll(50) is not None and client.connection_states._get(-1).failures >= 3,
                   message="three failed connects")
        assert client.connection_states._get(-1).backoff_ms > first  # exponential, capped at the max
        assert client.connection_states._get(-1).backoff_ms <= 400 * 1.2
    finally:
        client.close()


def test_a_broker_that_never_answers_times_the_request_out():
    with socket.socket() as silent:  # accepts connections, never replies: not even to ApiVersions
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        client = _client(f"127.0.0.1:{silent.getsockname()[1]}", **{"request.timeout.ms": 300})
        try:
            future = client.send(ClientRequest(-1, ApiKey.METADATA, {"topics": []}, timeout_ms=300))
            client.poll_until(future.done, 5000)
            assert future.done() and future.result().error is not None
        finally:
            client.close()


def test_a_request_to_a_node_metadata_does_not_know_asks_for_new_metadata(broker):
    """A broker that registered after the last metadata (a cluster still starting) is not a node we can
    connect to yet: the request waits and a metadata refresh is asked for, as Kafka's clients do,
    instead of the request waiting for a node that never appears."""
    client = _client(broker.bootstrap)
    try:
        client.await_metadata(10000)
        version = client.metadata.update_version
        client.send(ClientRequest(99, ApiKey.METADATA, {"topics": []}))
        client.poll(0)
        assert client.metadata.need_update  # asked at once, not after the request times out
        client.poll_until(lambda: client.metadata.update_version > version, 10000)
    finally:
        client.close()


def _metadata_answer(version: int, **body) -> ClientResponse:
    """A Metadata response as the client reads it: encoded by the broker's schema, decoded by the client's."""
    body = {"brokers": [], "topics": [], "cluster_id": "c", "controller_id": 1, **body}
    _, decoded = decode_response(METADATA, version, bytes(encode_response(METADATA, version, 7, body))[4:])
    return ClientResponse(ClientRequest(-1, ApiKey.METADATA, {}, max_version=version), body=decoded)


def test_metadata_v13s_rebootstrap_required_starts_again_from_the_bootstrap_servers():
    """KIP-1102: a top-level REBOOTSTRAP_REQUIRED makes the client forget the brokers it learnt and ask
    the bootstrap servers again (Java's DefaultMetadataUpdater); an answer without brokers, which is what
    a broker sends for a Metadata it failed whole, is ignored, the cluster kept as it was."""
    bootstrap = f"127.0.0.1:{free_port()}"
    client = _client(bootstrap)
    try:
        broker = {"node_id": 3, "host": "127.0.0.1", "port": 9093, "rack": None}
        client._handle_metadata_response(_metadata_answer(13, brokers=[broker]))
        assert set(client.metadata.cluster.nodes) == {3}

        version = client.metadata.update_version
        client._handle_metadata_response(_metadata_answer(13, error_code=Errors.UNKNOWN_SERVER_ERROR))
        assert set(client.metadata.cluster.nodes) == {3} and client.metadata.update_version == version

        client.metadata.need_update = False
        client._handle_metadata_response(_metadata_answer(13, error_code=Errors.REBOOTSTRAP_REQUIRED))
        assert [f"{n.host}:{n.port}" for n in client.metadata.cluster.nodes.values()] == [bootstrap]
        assert client.metadata.need_update
    finally:
        client.close()
