"""Test certificates, made fresh by each test session (kafka/tools/certificate_authority.py, never committed).

One CA signs the broker's certificate (SAN localhost and 127.0.0.1) and the clients' certificates;
a second CA nobody trusts signs an "untrusted" one, and an expired client certificate is signed by
the real CA. Every file is PEM in one directory; the broker's keystore also comes as PKCS12.

    certs = Certificates.create(tmp_path)
    certs.broker_keystore        # PEM: the chain and the key
    certs.client("alice")        # (certificate, key) files of CN=alice,OU=eng,O=Example
"""

from __future__ import annotations

import datetime
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from kafka.tools.certificate_authority import (
    DAY,
    certificate_pem,
    chain_and_key_pem,
    issue,
    key_pem,
    loopback_names,
    name,
)

PASSWORD = "test-secret"


class Certificates:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.ca = issue(name("Test CA"), None, ca=True)
        self.other_ca = issue(name("Untrusted CA"), None, ca=True)
        self.ca_file = self._write("ca.pem", certificate_pem(self.ca))
        self.other_ca_file = self._write("other-ca.pem", certificate_pem(self.other_ca))
        broker = issue(name("broker", "kafka"), self.ca, sans=loopback_names())
        self.broker = broker
        # chain and key, unencrypted
        self.broker_keystore = self._write("broker.pem", chain_and_key_pem(broker))
        self.broker_keystore_encrypted = self._write("broker-encrypted.pem",
                                                     chain_and_key_pem(broker, PASSWORD))
        self.broker_pkcs12 = self._write("broker.p12", pkcs12.serialize_key_and_certificates(
            b"broker", broker.key, broker.certificate, [self.ca.certificate],
            serialization.BestAvailableEncryption(PASSWORD.encode())))

    @classmethod
    def create(cls, directory: Path) -> Certificates:
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory)

    def _write(self, name: str, data: bytes) -> str:
        path = self.directory / name
        path.write_bytes(data)
        return str(path)

    def client(self, cn: str, expired: bool = False, untrusted: bool = False) -> tuple[str, str]:
        """(certificate file, key file) of CN=<cn>,OU=eng,O=Example,C=US."""
        not_after = datetime.datetime.now(datetime.UTC) - DAY if expired else None
        issued = issue(name(cn, "eng"), self.other_ca if untrusted else self.ca, not_after=not_after)
        tag = f"{cn}{'-expired' if expired else ''}{'-untrusted' if untrusted else ''}"
        return self._write(f"{tag}.crt", certificate_pem(issued)), self._write(f"{tag}.key", key_pem(issued))

    def broker_ssl_configs(self, client_auth: str = "none", prefix: str = "") -> dict[str, str]:
        """The broker's ssl.* keys for a PEM keystore and truststore (optionally listener-prefixed)."""
        return {f"{prefix}ssl.keystore.type": "PEM", f"{prefix}ssl.keystore.location": self.broker_keystore,
                f"{prefix}ssl.truststore.type": "PEM", f"{prefix}ssl.truststore.location": self.ca_file,
                f"{prefix}ssl.client.auth": client_auth}
