"""ChannelBuilders: the ChannelBuilder of a listener, chosen by its security protocol (Kafka's
common.network.ChannelBuilders.serverChannelBuilder).
"""

from __future__ import annotations

from collections.abc import Mapping

from kafka.network.channel_builder import ChannelBuilder, PlaintextChannelBuilder
from kafka.network.sasl_channel_builder import SaslChannelBuilder
from kafka.network.ssl_channel_builder import SslChannelBuilder
from kafka.security.credential_cache import CredentialCache
from kafka.security.sasl_configs import SaslListenerConfig
from kafka.security.security_protocol import SecurityProtocol


def server_channel_builder(protocol: SecurityProtocol, ssl_configs: Mapping[str, str | None],
                           sasl_config: SaslListenerConfig | None = None,
                           credential_cache: CredentialCache | None = None) -> ChannelBuilder:
    """Raises SslConfigError for an SSL listener whose ssl.* keys do not make a context."""
    if protocol == SecurityProtocol.PLAINTEXT:
        return PlaintextChannelBuilder()
    if protocol == SecurityProtocol.SSL:
        return SslChannelBuilder(ssl_configs)
    if sasl_config is None:
        raise ValueError(f"listener of protocol {protocol.name} has no SASL configuration")
    return SaslChannelBuilder(protocol, ssl_configs, sasl_config, credential_cache or CredentialCache())
