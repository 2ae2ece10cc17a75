"""AwsV4Signer: AWS Signature Version 4, how an S3 request proves who sent it (the AWS SDK's
software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner, which Kafka's S3 storage plugins use).

A signed request carries the headers

    x-amz-date: 20260101T120000Z
    x-amz-content-sha256: <SHA-256 of the body, hex>
    Authorization: AWS4-HMAC-SHA256 Credential=<access key>/20260101/<region>/s3/aws4_request,
                   SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=<hex>

The signature is an HMAC-SHA256 of a canonical form of the request (method, path, query, the signed
headers and the body's hash) under a key derived from the secret key, the day, the region and the
service. The secret never travels; the server recomputes the same HMAC from its copy of the secret and
refuses the request when they differ, when the body's hash does not match the body, or when x-amz-date is
more than fifteen minutes from its own clock.
"""

from __future__ import annotations

import hashlib
import hmac
import time as _time
from dataclasses import dataclass
from urllib.parse import quote

ALGORITHM = "AWS4-HMAC-SHA256"
EMPTY_PAYLOAD_SHA256 = hashlib.sha256(b"").hexdigest()


@dataclass(frozen=True)
class AwsCredentials:
    access_key_id: str
    secret_access_key: str
    session_token: str | None = None  # temporary credentials (STS) carry one; it is signed too

    def __repr__(self) -> str:  # never print the secret in a log line or a test failure
        return f"AwsCredentials(access_key_id={self.access_key_id!r}, secret_access_key='***')"


def sign(method: str, host: str, path: str, query: dict[str, str], headers: dict[str, str],
         payload_sha256: str, credentials: AwsCredentials, region: str, service: str,
         now_ms: int) -> dict[str, str]:
    """The request's headers with x-amz-date, x-amz-content-sha256 (and the session token) added, and
    the Authorization header that signs them all. `path` is not yet URI-encoded; `now_ms` is wall-clock
    milliseconds (the server compares it with its own clock)."""
    amz_date = _time.strftime("%Y%m%dT%H%M%SZ", _time.gmtime(now_ms / 1000))
    signed = {name.lower(): " ".join(value.split()) for name, value in headers.items()}
    signed.update({"host": host, "x-amz-date": amz_date, "x-amz-content-sha256": payload_sha256})
    if credentials.session_token:
        signed["x-amz-security-token"] = credentials.session_token
    names = sorted(signed)
    canonical_request = "\n".join((
        method,
        uri_encode(path, keep_slash=True),
        "&".join(f"{uri_encode(k)}={uri_encode(v)}" for k, v in sorted(query.items())),
        "".join(f"{name}:{signed[name]}\n" for name in names),
        ";".join(names),
        payload_sha256,
    ))
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    string_to_sign = "\n".join((ALGORITHM, amz_date, scope, _sha256_hex(canonical_request.encode())))
    signature = hmac.new(signing_key(credentials.secret_access_key, amz_date[:8], region, service),
                         string_to_sign.encode(), hashlib.sha256).hexdigest()
    signed["authorization"] = (f"{ALGORITHM} Credential={credentials.access_key_id}/{scope}, "
                               f"SignedHeaders={';'.join(names)}, Signature={signature}")
    return signed


def signing_key(secret: str, day: str, region: str, service: str) -> bytes:
    """The key of one day, region and service: four HMACs chained from the secret."""
    key = ("AWS4" + secret).encode()
    for part in (day, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def uri_encode(text: str, keep_slash: bool = False) -> str:
    """AWS's UriEncode: every byte but A-Z a-z 0-9 - _ . ~ percent-encoded, '/' kept in a path."""
    return quote(text, safe="-_.~/" if keep_slash else "-_.~")


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
