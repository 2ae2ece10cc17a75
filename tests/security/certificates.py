"""Test certificates, made fresh by each test session with the `cryptography` library (never committed).

One CA signs the broker's certificate (SAN localhost and 127.0.0.1) and the clients' certificates;
a second CA nobody trusts signs an "untrusted" one, and an expired client certificate is signed by
the real CA. Every file is PEM in one directory; the broker's keystore also comes as PKCS12.

    certs = Certificates.create(tmp_path)
    certs.broker_keystore        # PEM: the chain and the key
    certs.client("alice")        # (certificate, key) files of CN=alice,OU=eng,O=Example
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

PASSWORD = "test-secret"
_DAY = datetime.timedelta(days=1)


def _name(cn: str, ou: str | None = None) -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.COUNTRY_NAME, "US"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example")]
    if ou:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attributes)


@dataclass
class _Issued:
    certificate: x509.Certificate
    key: ec.EllipticCurvePrivateKey


def _issue(subject: x509.Name, issuer: _Issued | None, ca: bool = False, sans: list | None = None,
           not_after: datetime.datetime | None = None) -> _Issued:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer.certificate.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - 2 * _DAY).not_valid_after(not_after or now + 30 * _DAY)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                      content_commitment=False, key_encipherment=False,
                                                      data_encipherment=False, key_agreement=False,
                                                      encipher_only=False, decipher_only=False), critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if issuer is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return _Issued(builder.sign((issuer or _Issued(None, key)).key, hashes.SHA256()), key)


def _pem(issued: _Issued, password: str | None = None) -> bytes:
    encryption = (serialization.BestAvailableEncryption(password.encode()) if password
                  else serialization.NoEncryption())
    return (issued.certificate.public_bytes(serialization.Encoding.PEM)
            + issued.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption))


class Certificates:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.ca = _issue(_name("Test CA"), None, ca=True)
        self.other_ca = _issue(_name("Untrusted CA"), None, ca=True)
        self.ca_file = self._write("ca.pem", self.ca.certificate.public_bytes(serialization.Encoding.PEM))
        self.other_ca_file = self._write("other-ca.pem", self.other_ca.certificate.public_bytes(serialization.Encoding.PEM))
        broker = _issue(_name("broker", "kafka"), self.ca,
                        sans=[x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
        self.broker = broker
        self.broker_keystore = self._write("broker.pem", _pem(broker))  # chain and key, unencrypted
        self.broker_keystore_encrypted = self._write("broker-encrypted.pem", _pem(broker, PASSWORD))
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
        not_after = datetime.datetime.now(datetime.UTC) - _DAY if expired else None
        issued = _issue(_name(cn, "eng"), self.other_ca if untrusted else self.ca, not_after=not_after)
        tag = f"{cn}{'-expired' if expired else ''}{'-untrusted' if untrusted else ''}"
        cert = self._write(f"{tag}.crt", issued.certificate.public_bytes(serialization.Encoding.PEM))
        key = self._write(f"{tag}.key", issued.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        return cert, key

    def broker_ssl_configs(self, client_auth: str = "none", prefix: str = "") -> dict[str, str]:
        """The broker's ssl.* keys for a PEM keystore and truststore (optionally listener-prefixed)."""
        return {f"{prefix}ssl.keystore.type": "PEM", f"{prefix}ssl.keystore.location": self.broker_keystore,
                f"{prefix}ssl.truststore.type": "PEM", f"{prefix}ssl.truststore.location": self.ca_file,
                f"{prefix}ssl.client.auth": client_auth}
