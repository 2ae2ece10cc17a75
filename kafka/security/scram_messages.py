"""ScramMessages: the four SCRAM messages as text (Kafka's common.security.scram.internals.ScramMessages;
RFC 5802 s7).

    client-first   n,[a=authzid],n=user,r=client-nonce[,extensions]
    server-first   r=client-nonce+server-nonce,s=base64(salt),i=iterations
    client-final   c=base64(gs2 header),r=nonce[,extensions],p=base64(proof)
    server-final   v=base64(ServerSignature)   or   e=error

A user name escapes `,` as `=2C` and `=` as `=3D`. Channel binding (`p=`) is refused, as in Kafka.
Every parse error is a ScramFormatError with a message for the log, never the raw token.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

_PRINTABLE = r"[\x21-\x2b\x2d-\x7e]+"  # RFC 5802 printable: %x21-2B / %x2D-7E (no comma)
_SASLNAME = r"(?:[\x01-\x2b\x2d-\x3c\x3e-\x7f]|=2C|=3D)+"
_VALUE = r"[\x01-\x2b\x2d-\x7f]*"
_CLIENT_FIRST = re.compile(rf"(?P<gs2>(?P<flag>[ny]),(?:a=(?P<authzid>{_SASLNAME}))?,)"
                           rf"n=(?P<name>{_SASLNAME}),"
                           rf"r=(?P<nonce>{_PRINTABLE})(?P<extensions>(?:,[A-Za-z]+={_VALUE})*)")
_SERVER_FIRST = re.compile(rf"r=(?P<nonce>{_PRINTABLE}),s=(?P<salt>[A-Za-z0-9+/=]+),"
                           r"i=(?P<iterations>[0-9]+)(?:,.*)?")
_CLIENT_FINAL = re.compile(rf"(?P<bare>c=(?P<channel>[A-Za-z0-9+/=]*),r=(?P<nonce>{_PRINTABLE})"
                           rf"(?:,[A-Za-z]={_VALUE})*),p=(?P<proof>[A-Za-z0-9+/=]+)")
_SERVER_FINAL = re.compile(r"(?:e=(?P<error>[^,]*)|v=(?P<signature>[A-Za-z0-9+/=]+))(?:,.*)?")


class ScramFormatError(ValueError):
    """A SCRAM message that does not parse."""


def _text(token: bytes, what: str) -> str:
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        raise ScramFormatError(f"invalid SCRAM {what}: not UTF-8") from None


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ScramFormatError(f"invalid SCRAM {what}: bad base64") from None


def username_from_saslname(name: str) -> str:
    return name.replace("=2C", ",").replace("=3D", "=")


def saslname(username: str) -> str:
    return username.replace("=", "=3D").replace(",", "=2C")


@dataclass(frozen=True)
class ClientFirstMessage:
    gs2_header: str
    username: str
    nonce: str
    authzid: str
    extensions: str
    bare: str  # without the gs2 header: the first part of AuthMessage

    @classmethod
    def parse(cls, token: bytes) -> ClientFirstMessage:
        text = _text(token, "client-first message")
        if text.startswith("p="):
            raise ScramFormatError("SCRAM channel binding is not supported")
        m = _CLIENT_FIRST.fullmatch(text)
        if m is None:
            raise ScramFormatError("invalid SCRAM client-first message")
        gs2 = m.group("gs2")
        return cls(gs2, username_from_saslname(m.group("name")), m.group("nonce"),
                   username_from_saslname(m.group("authzid") or ""), m.group("extensions"), text[len(gs2):])

    @staticmethod
    def format(username: str, nonce: str) -> str:
        return f"n,,n={saslname(username)},r={nonce}"


@dataclass(frozen=True)
class ServerFirstMessage:
    nonce: str
    salt: bytes
    iterations: int
    text: str

    @classmethod
    def create(cls, nonce: str, salt: bytes, iterations: int) -> ServerFirstMessage:
        return cls(nonce, salt, iterations, f"r={nonce},s={base64.b64encode(salt).decode()},i={iterations}")

    @classmethod
    def parse(cls, token: bytes) -> ServerFirstMessage:
        text = _text(token, "server-first message")
        m = _SERVER_FIRST.fullmatch(text)
        if m is None:
            raise ScramFormatError("invalid SCRAM server-first message")
        return cls(m.group("nonce"), _b64(m.group("salt"), "salt"), int(m.group("iterations")), text)


@dataclass(frozen=True)
class ClientFinalMessage:
    channel_binding: bytes
    nonce: str
    proof: bytes
    without_proof: str

    @classmethod
    def parse(cls, token: bytes) -> ClientFinalMessage:
        text = _text(token, "client-final message")
        m = _CLIENT_FINAL.fullmatch(text)
        if m is None:
            raise ScramFormatError("invalid SCRAM client-final message")
        return cls(_b64(m.group("channel"), "channel binding"), m.group("nonce"),
                   _b64(m.group("proof"), "proof"),
                   m.group("bare"))

    @staticmethod
    def format_without_proof(gs2_header: str, nonce: str) -> str:
        return f"c={base64.b64encode(gs2_header.encode()).decode()},r={nonce}"


@dataclass(frozen=True)
class ServerFinalMessage:
    error: str | None
    signature: bytes

    @classmethod
    def parse(cls, token: bytes) -> ServerFinalMessage:
        text = _text(token, "server-final message")
        m = _SERVER_FINAL.fullmatch(text)
        if m is None:
            raise ScramFormatError("invalid SCRAM server-final message")
        if m.group("error") is not None:
            return cls(m.group("error"), b"")
        return cls(None, _b64(m.group("signature"), "server signature"))

    @staticmethod
    def format(signature: bytes) -> str:
        return f"v={base64.b64encode(signature).decode()}"
