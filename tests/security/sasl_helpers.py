"""What the SASL tests share: JAAS texts, the client configs of each client library, and a raw-socket
SASL exchange for the bad-input tests."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.wire import WireClient

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
              'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
SCRAM_JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" '
              'password="admin-secret";')


def librdkafka_sasl(port: int, protocol: str, mechanism: str, user: str, password: str,
                    ca_file: str | None = None) -> dict:
    conf = {"bootstrap.servers": f"127.0.0.1:{port}", "security.protocol": protocol,
            "sasl.mechanism": mechanism,
            "sasl.username": user, "sasl.password": password}
    if ca_file:
        conf["ssl.ca.location"] = ca_file
    return conf


def handshake(client: WireClient, mechanism: str, version: int = 1):
    return client.request(ApiKey.SASL_HANDSHAKE, version, {"mechanism": mechanism})


def authenticate(client: WireClient, token: bytes, version: int = 2):
    return client.request(ApiKey.SASL_AUTHENTICATE, version, {"auth_bytes": token})
