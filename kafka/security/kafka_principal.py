"""KafkaPrincipal: who sent a request (Kafka's org.apache.kafka.common.security.auth.KafkaPrincipal).

A principal is a type and a name, written `User:alice`. The transport and the authenticator decide it
once per connection (a TLS certificate's subject, a SASL user name); every request on that connection
carries it to KafkaApis, where the authoriser checks it against the ACLs. A connection that neither TLS
nor SASL identified is `User:ANONYMOUS`.
"""

from __future__ import annotations

from dataclasses import dataclass

USER_TYPE = "User"


@dataclass(frozen=True)
class KafkaPrincipal:
    principal_type: str
    name: str

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    @classmethod
    def from_string(cls, text: str) -> KafkaPrincipal:
        """`User:alice` -> KafkaPrincipal('User', 'alice'); the name may itself contain colons."""
        principal_type, sep, name = text.partition(":")
        if not sep or not principal_type or not name:
            raise ValueError(f"expected a principal as Type:name, got {text!r}")
        return cls(principal_type, name)


ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")
