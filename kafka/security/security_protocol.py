"""SecurityProtocol: how a listener's bytes travel (Kafka's
org.apache.kafka.common.security.auth.SecurityProtocol).

Four protocols, with the ids Kafka writes into BrokerRegistration and Metadata responses:
PLAINTEXT (0) and SSL (1) carry no authentication of their own beyond a TLS client certificate;
SASL_PLAINTEXT (2) and SASL_SSL (3) authenticate with SASL, over TCP or over TLS. A listener's
protocol is named in listener.security.protocol.map (or the listener is named after its protocol).
"""

from __future__ import annotations

from enum import IntEnum


class SecurityProtocol(IntEnum):
    PLAINTEXT = 0
    SSL = 1
    SASL_PLAINTEXT = 2
    SASL_SSL = 3

    @property
    def uses_tls(self) -> bool:
        return self in (SecurityProtocol.SSL, SecurityProtocol.SASL_SSL)

    @property
    def uses_sasl(self) -> bool:
        return self in (SecurityProtocol.SASL_PLAINTEXT, SecurityProtocol.SASL_SSL)

    @classmethod
    def for_name(cls, name: str) -> SecurityProtocol:
        """`SSL` -> SecurityProtocol.SSL; a ValueError naming the known protocols otherwise."""
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown security protocol {name!r}; expected one of "
                             f"{', '.join(p.name for p in cls)}") from None
