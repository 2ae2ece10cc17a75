"""SslChannelBuilder: channels whose bytes are TLS (Kafka's common.network.SslChannelBuilder).

One SslFactory (one SSLContext) per listener, built at start-up from the listener's ssl.* keys, so a
bad keystore stops the broker before it binds rather than failing each client; a dynamic config change
of the listener's keystore builds a new one in its place (`reconfigure`). Each accepted socket
is wrapped server-side; the principal comes from the client certificate through
ssl.principal.mapping.rules.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping

from kafka.network.channel_builder import ChannelBuilder
from kafka.security.security_protocol import SecurityProtocol
from kafka.security.ssl_factory import SslConfigError, SslFactory
from kafka.security.ssl_principal_mapper import SslPrincipalMapper
from kafka.security.ssl_transport_layer import SslTransportLayer
from kafka.security.transport_layer import TransportLayer


class SslChannelBuilder(ChannelBuilder):
    security_protocol = SecurityProtocol.SSL

    def __init__(self, ssl_configs: Mapping[str, str | None]) -> None:
        self.ssl_factory = SslFactory(ssl_configs, server_mode=True)
        rules = self.ssl_factory.configs.get("ssl.principal.mapping.rules") or "DEFAULT"
        try:
            self.principal_mapper = SslPrincipalMapper.from_rules(rules)
        except ValueError as e:
            raise SslConfigError(f"invalid value {rules!r} for configuration key "
                                 f"'ssl.principal.mapping.rules': {e}") from None

    def reconfigure(self, ssl_configs: Mapping[str, str | None]) -> None:
        """A new keystore (or other ssl.* keys) at run time (Kafka's ListenerReconfigurable): the new
        context is built first, so one that does not load raises SslConfigError and the old one stays;
        connections accepted from now on get the new one, those open keep theirs."""
        self.ssl_factory = SslFactory(ssl_configs, server_mode=True)

    def build_transport(self, sock: socket.socket) -> TransportLayer:
        return SslTransportLayer(sock, self.ssl_factory.context, server_side=True,
                                 principal_mapper=self.principal_mapper)
