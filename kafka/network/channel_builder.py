"""ChannelBuilder: how a listener turns an accepted socket into a KafkaChannel (Kafka's
common.network.ChannelBuilder and PlaintextChannelBuilder).

The builder decides the channel's transport: PlaintextChannelBuilder gives plain TCP;
SslChannelBuilder (ssl_channel_builder.py) gives TLS. ChannelBuilders picks one per listener.
"""

from __future__ import annotations

import socket

from kafka.network.kafka_channel import KafkaChannel
from kafka.network.memory_pool import MemoryPool
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.transport_layer import PlaintextTransportLayer, TransportLayer


class ChannelBuilder:
    security_protocol = SecurityProtocol.PLAINTEXT

    def build_transport(self, sock: socket.socket) -> TransportLayer:
        raise NotImplementedError

    def build_channel(self, connection_id: str, sock: socket.socket, remote_address: str,
                      max_receive_size: int,
                      memory_pool: MemoryPool) -> KafkaChannel:
        return KafkaChannel(connection_id, self.build_transport(sock), remote_address, max_receive_size,
                            memory_pool)


class PlaintextChannelBuilder(ChannelBuilder):
    def build_transport(self, sock: socket.socket) -> TransportLayer:
        return PlaintextTransportLayer(sock)
