"""SslFactory: the TLS context of a listener or of a client, from Kafka's `ssl.*` keys (Kafka's
org.apache.kafka.common.security.ssl.SslFactory with its DefaultSslEngineFactory).

A server context presents the keystore's certificate and, with ssl.client.auth=required or
requested, asks the client for one, checked against the truststore. A client context checks the
server's certificate against the truststore and, with ssl.endpoint.identification.algorithm=https
(the default), that it was issued for the host it dialled; it presents a keystore if it has one.

Keystores: PEM (a file, or inline in ssl.keystore.certificate.chain and ssl.keystore.key, KIP-651)
or PKCS12. Kafka's default type, JKS, cannot be read outside the JVM: a PKCS12 file under that type
is read as PKCS12 (as Java's keystore.type.compat does), a true JKS file is an error naming the key.
Every error names the key to fix.
"""

from __future__ import annotations

import os
import ssl
import tempfile
from collections.abc import Mapping

PEM, PKCS12, JKS = "PEM", "PKCS12", "JKS"
_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_TLS_VERSIONS = {"TLSv1": ssl.TLSVersion.TLSv1, "TLSv1.1": ssl.TLSVersion.TLSv1_1,
                 "TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}
CLIENT_AUTH = {"required": ssl.CERT_REQUIRED, "requested": ssl.CERT_OPTIONAL, "none": ssl.CERT_NONE}

# Kafka's SslConfigs and BrokerSecurityConfigs: the keys and their defaults (None: unset).
SSL_DEFAULTS: dict[str, str | None] = {
    "ssl.protocol": "TLSv1.3",
    "ssl.enabled.protocols": "TLSv1.2,TLSv1.3",
    "ssl.cipher.suites": "",
    "ssl.keystore.type": JKS,
    "ssl.keystore.location": None,
    "ssl.keystore.password": None,
    "ssl.key.password": None,
    "ssl.keystore.certificate.chain": None,
    "ssl.keystore.key": None,
    "ssl.truststore.type": JKS,
    "ssl.truststore.location": None,
    "ssl.truststore.password": None,
    "ssl.truststore.certificates": None,
    "ssl.endpoint.identification.algorithm": "https",
    "ssl.client.auth": "none",
    "ssl.principal.mapping.rules": "DEFAULT",
}


class SslConfigError(ValueError):
    """A bad or missing ssl.* value; the message names the key."""


class SslFactory:
    def __init__(self, configs: Mapping[str, str | None], server_mode: bool) -> None:
        self.configs = {**SSL_DEFAULTS, **{k: v for k, v in configs.items() if v is not None}}
        self.server_mode = server_mode
        self.context = self._create_context()

    def keystore_identity(self) -> tuple[str, tuple[str, ...]] | None:
        """The keystore's certificate as Kafka compares a renewed one with it (SslFactory.CertificateEntries):
        its subject (RFC 2253, as Java writes a DN) and its subject alternative names; None without one."""
        keystore = self._keystore_pem()
        if keystore is None:
            return None
        from cryptography import x509
        certificate = x509.load_pem_x509_certificate(keystore[0].encode("ascii"))
        try:
            names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            sans = tuple(sorted(str(getattr(n, "value", n)) for n in names))
        except x509.ExtensionNotFound:
            sans = ()
        return certificate.subject.rfc4514_string(), sans

    def _get(self, key: str) -> str | None:
        value = self.configs.get(key)
        return None if value is None or str(value).strip() == "" else str(value).strip()

    # ------------------------------------------------------------------ the context
    def _create_context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if self.server_mode else ssl.PROTOCOL_TLS_CLIENT)
        self._set_protocols(ctx)
        self._set_ciphers(ctx)
        keystore = self._keystore_pem()
        if keystore is not None:
            _load_cert_chain(ctx, *keystore)
        elif self.server_mode:
            raise SslConfigError("an SSL listener needs a keystore: set 'ssl.keystore.location' or "
                                 "'ssl.keystore.certificate.chain' and 'ssl.keystore.key'")
        self._load_truststore(ctx)
        if self.server_mode:
            auth = (self._get("ssl.client.auth") or "none").lower()
            if auth not in CLIENT_AUTH:
                raise SslConfigError(f"invalid value {auth!r} for configuration key 'ssl.client.auth': "
                                     "expected required, requested or none")
            ctx.verify_mode = CLIENT_AUTH[auth]
        else:
            algorithm = (self._get("ssl.endpoint.identification.algorithm") or "").lower()
            if algorithm not in ("", "https"):
                raise SslConfigError(f"invalid value {algorithm!r} for configuration key "
                                     "'ssl.endpoint.identification.algorithm': expected https or empty")
            ctx.check_hostname = algorithm == "https"
            ctx.verify_mode = ssl.CERT_REQUIRED
        return ctx

    def _set_protocols(self, ctx: ssl.SSLContext) -> None:
        protocol = self._get("ssl.protocol") or "TLSv1.3"
        if protocol not in (*_TLS_VERSIONS, "TLS"):
            raise SslConfigError(f"invalid value {protocol!r} for configuration key 'ssl.protocol': expected "
                                 f"TLS or one of {', '.join(_TLS_VERSIONS)}")
        enabled = [p.strip() for p in (self._get("ssl.enabled.protocols") or protocol).split(",")
                   if p.strip()]
        unknown = [p for p in enabled if p not in _TLS_VERSIONS]
        if unknown or not enabled:
            raise SslConfigError(f"invalid value {','.join(enabled)!r} for configuration key "
                                 f"'ssl.enabled.protocols': expected some of {', '.join(_TLS_VERSIONS)}")
        versions = sorted(_TLS_VERSIONS[p] for p in enabled)
        ctx.minimum_version, ctx.maximum_version = versions[0], versions[-1]

    def _set_ciphers(self, ctx: ssl.SSLContext) -> None:
        suites = [s.strip() for s in (self._get("ssl.cipher.suites") or "").split(",") if s.strip()]
        # TLS 1.3's suites (TLS_AES_*, TLS_CHACHA20_*) are always on in OpenSSL; the rest are OpenSSL names
        tls12 = [s for s in suites if not s.startswith(("TLS_AES_", "TLS_CHACHA20_"))]
        if tls12:
            try:
                ctx.set_ciphers(":".join(tls12))
            except ssl.SSLError as e:
                raise SslConfigError(f"invalid value {','.join(suites)!r} for configuration key "
                                     f"'ssl.cipher.suites': {getattr(e, 'reason', None) or e}") from None

    # ------------------------------------------------------------------ keystore
    def _keystore_pem(self) -> tuple[str, str | None] | None:
        """(PEM text of the chain and key, key password), or None when no keystore is configured."""
        chain, key = self._get("ssl.keystore.certificate.chain"), self._get("ssl.keystore.key")
        location = self._get("ssl.keystore.location")
        store_type = (self._get("ssl.keystore.type") or JKS).upper()
        if chain or key:
            if store_type != PEM:
                raise SslConfigError("configuration key 'ssl.keystore.certificate.chain' needs "
                                     f"ssl.keystore.type=PEM (it is {store_type})")
            if not (chain and key):
                missing = "ssl.keystore.key" if chain else "ssl.keystore.certificate.chain"
                raise SslConfigError(f"configuration key '{missing}' must be set with its pair (KIP-651)")
            return chain + "\n" + key, self._get("ssl.key.password")
        if location is None:
            return None
        data = _read(location, "ssl.keystore.location")
        if store_type == PEM:
            return data.decode("ascii", "replace"), self._get("ssl.key.password")
        return _pkcs12_to_pem(data, self._get("ssl.keystore.password"), "ssl.keystore", store_type), None

    # ------------------------------------------------------------------ truststore
    def _load_truststore(self, ctx: ssl.SSLContext) -> None:
        inline, location = self._get("ssl.truststore.certificates"), self._get("ssl.truststore.location")
        store_type = (self._get("ssl.truststore.type") or JKS).upper()
        if inline:
            if store_type != PEM:
                raise SslConfigError("configuration key 'ssl.truststore.certificates' needs "
                                     f"ssl.truststore.type=PEM (it is {store_type})")
            cadata = inline
        elif location:
            data = _read(location, "ssl.truststore.location")
            cadata = (data.decode("ascii", "replace") if store_type == PEM else
                      _pkcs12_to_pem(data, self._get("ssl.truststore.password"), "ssl.truststore", store_type,
                                     certificates_only=True))
        else:
            ctx.load_default_certs(ssl.Purpose.CLIENT_AUTH if self.server_mode else ssl.Purpose.SERVER_AUTH)
            return
        try:
            ctx.load_verify_locations(cadata=cadata)
        except (ssl.SSLError, ValueError) as e:
            key = "ssl.truststore.certificates" if inline else "ssl.truststore.location"
            raise SslConfigError(f"configuration key '{key}' holds no usable certificate: {e}") from None


def _read(path: str, key: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise SslConfigError(f"cannot read configuration key '{key}' ({path}): {e.strerror}") from None


def _pkcs12_to_pem(data: bytes, password: str | None, prefix: str, store_type: str,
                   certificates_only: bool = False) -> str:
    if data.startswith(_JKS_MAGIC) or store_type not in (PKCS12, JKS):
        raise SslConfigError(f"configuration key '{prefix}.type' is {store_type}: a Python broker reads PEM "
                             "and PKCS12 stores only (convert a JKS store with keytool -importkeystore)")
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, pkcs12

    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, password.encode() if password else None)
    except ValueError as e:
        raise SslConfigError(f"cannot open the {store_type} store of '{prefix}.location' with "
                             f"'{prefix}.password': {e}") from None
    certs = ([cert] if cert is not None else []) + list(extra)
    pem = "".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in certs)
    if certificates_only:
        return pem
    if key is None or cert is None:
        raise SslConfigError(f"the store of '{prefix}.location' holds no private key and certificate")
    return pem + key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()).decode("ascii")


def _load_cert_chain(ctx: ssl.SSLContext, pem: str, password: str | None) -> None:
    """ssl loads a chain only from a file: a private temporary one, gone as soon as it is read."""
    fd, path = tempfile.mkstemp(prefix="kafka-keystore-", suffix=".pem")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(pem)
        ctx.load_cert_chain(path, password=password if password is not None else "")  # never a tty prompt
    except ssl.SSLError as e:
        raise SslConfigError(f"the keystore (ssl.keystore.location or ssl.keystore.certificate.chain/"
                             "ssl.keystore.key, with ssl.key.password) cannot be used: "
                             f"{getattr(e, 'reason', None) or e}") from None
    finally:
        os.unlink(path)
