"""A small certificate authority for demo and test clusters: a CA and the certificates it signs, as PEM.

Kafka's security guide makes these with `openssl` and `keytool`, and its own tests with TestSslUtils
(CertificateBuilder); here the `cryptography` library does it, so `make cluster-secure`
(kafka/tools/secure_cluster_setup.py) and the tests (tests/security/certificates.py) make theirs fresh
and none is ever committed. Keys are EC P-256; a leaf certificate is valid for 30 days by default.

    ca = issue(name("Demo CA"), None, ca=True)
    node = issue(name("node-1", "kafka"), ca, sans=loopback_names())
    Path("node-1.pem").write_bytes(chain_and_key_pem(node))   # ssl.keystore.type=PEM, ssl.keystore.location
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

DAY = datetime.timedelta(days=1)


def name(cn: str, ou: str | None = None, organization: str = "Example") -> x509.Name:
    """CN=<cn>,OU=<ou>,O=<organization>,C=US, as Java writes it (RFC 2253, last attribute first)."""
    attributes = [x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
                  x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization)]
    if ou:
        attributes.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou))
    attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, cn))
    return x509.Name(attributes)


def loopback_names() -> list[x509.GeneralName]:
    """Subject alternative names for a broker on this machine: clients check them
    (ssl.endpoint.identification.algorithm=https) against the host they dialled."""
    return [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]


@dataclass
class Issued:
    certificate: x509.Certificate
    key: ec.EllipticCurvePrivateKey


def issue(subject: x509.Name, issuer: Issued | None, ca: bool = False, sans: list | None = None,
          not_after: datetime.datetime | None = None, days: int = 30) -> Issued:
    """A new key and its certificate, signed by `issuer` (self-signed when None)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer.certificate.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - 2 * DAY).not_valid_after(not_after or now + days * DAY)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                                      crl_sign=True,
                                                      content_commitment=False, key_encipherment=False,
                                                      data_encipherment=False, key_agreement=False,
                                                      encipher_only=False, decipher_only=False),
                                                      critical=True)
        builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                                        critical=False)
    if issuer is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False)
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return Issued(builder.sign((issuer or Issued(None, key)).key, hashes.SHA256()), key)


def certificate_pem(issued: Issued) -> bytes:
    return issued.certificate.public_bytes(serialization.Encoding.PEM)


def key_pem(issued: Issued, password: str | None = None) -> bytes:
    """The private key as PKCS#8 PEM, encrypted with `password` if one is given (ssl.key.password)."""
    encryption = (serialization.BestAvailableEncryption(password.encode()) if password
                  else serialization.NoEncryption())
    return issued.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def chain_and_key_pem(issued: Issued, password: str | None = None) -> bytes:
    """A PEM keystore as Kafka reads one (KIP-651): the certificate, then its private key."""
    return certificate_pem(issued) + key_pem(issued, password)


def load(pem: bytes) -> Issued:
    """A certificate and its key back from chain_and_key_pem's unencrypted form (a CA kept on disk)."""
    return Issued(x509.load_pem_x509_certificate(pem), serialization.load_pem_private_key(pem, password=None))
