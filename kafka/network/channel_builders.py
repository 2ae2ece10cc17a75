"""ChannelBuilders: the ChannelBuilder of a listener, chosen by its security protocol (Kafka's
common.network.ChannelBuilders.serverChannelBuilder).

SASL_PLAINTEXT and SASL_SSL have no builder yet: KafkaConfig stops start-up before one is asked for.
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.network.channel_builder import ChannelBuilder, PlaintextChannelBuilder
from kafka.network.ssl_channel_builder import SslChannelBuilder
from kafka.security.security_protocol import SecurityProtocol


def server_channel_builder(protocol: SecurityProtocol, ssl_configs: Mapping[str, str | None]) -> ChannelBuilder:
    """Raises SslConfigError for an SSL listener whose ssl.* keys do not make a context."""
    if protocol == SecurityProtocol.PLAINTEXT:
        return PlaintextChannelBuilder()
    if protocol == SecurityProtocol.SSL:
        return SslChannelBuilder(ssl_configs)
    raise ValueError(f"security protocol {protocol.name} is not built yet (SASL)")
