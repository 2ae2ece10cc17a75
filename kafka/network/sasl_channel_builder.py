"""SaslChannelBuilder: channels that authenticate with SASL first (Kafka's common.network.SaslChannelBuilder).

SASL_PLAINTEXT channels are plain TCP, SASL_SSL channels TLS (the listener's SslChannelBuilder
builds that transport); both carry a SaslServerAuthenticator. The builder holds what the mechanisms
need: the listener's enabled mechanisms, PLAIN's users from its JAAS options, and the broker's one
CredentialCache for SCRAM, which the metadata log keeps current.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping

from kafka.network.channel_builder import ChannelBuilder, PlaintextChannelBuilder
from kafka.network.kafka_channel import KafkaChannel
from kafka.network.memory_pool import MemoryPool
from kafka.network.ssl_channel_builder import SslChannelBuilder
from kafka.security.credential_cache import CredentialCache
from kafka.security.plain_sasl_server import PLAIN_MECHANISM, PlainSaslServer
from kafka.security.sasl_configs import SaslListenerConfig
from kafka.security.sasl_server_authenticator import SaslServerAuthenticator
from kafka.security.scram_mechanism import ScramMechanism
from kafka.security.scram_sasl_server import ScramSaslServer
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.transport_layer import TransportLayer


class SaslChannelBuilder(ChannelBuilder):
    def __init__(self, protocol: SecurityProtocol, ssl_configs: Mapping[str, str | None],
                 sasl_config: SaslListenerConfig, credential_cache: CredentialCache) -> None:
        self.security_protocol = protocol
        self.transport_builder = (SslChannelBuilder(ssl_configs) if protocol.uses_tls
                                  else PlaintextChannelBuilder())
        self.sasl_config = sasl_config
        self.credential_cache = credential_cache

    def build_transport(self, sock: socket.socket) -> TransportLayer:
        return self.transport_builder.build_transport(sock)

    def build_channel(self, connection_id: str, sock: socket.socket, remote_address: str,
                      max_receive_size: int,
                      memory_pool: MemoryPool) -> KafkaChannel:
        channel = KafkaChannel(connection_id, self.build_transport(sock), remote_address,
                               min(max_receive_size, self.sasl_config.max_receive_size), memory_pool)
        channel.authenticated_max_receive_size = max_receive_size
        channel.authenticator = SaslServerAuthenticator(self.sasl_config.enabled_mechanisms,
                                                        self.create_server)
        return channel

    def create_server(self, mechanism: str):
        """A SaslServer for one exchange (Kafka's SaslServerCallbackHandler per mechanism)."""
        if mechanism == PLAIN_MECHANISM:
            return PlainSaslServer(self.sasl_config.jaas_contexts[mechanism].options)
        return ScramSaslServer(ScramMechanism.for_name(mechanism), self.credential_cache)
