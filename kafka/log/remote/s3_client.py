"""S3Client: the five S3 calls tiered storage makes, over plain HTTP(S) (the AWS SDK's
software.amazon.awssdk.services.s3.S3Client, cut down to PutObject, GetObject, DeleteObject,
ListObjectsV2 and CreateBucket).

Each call is one HTTP request on a connection of its own, signed with Signature Version 4
(aws_v4_signer.py), addressed path-style: `PUT http://host:port/<bucket>/<key>`. S3 answers an error
with a status and an XML body naming it (`<Error><Code>NoSuchKey</Code>...`), raised here as S3Error.

Transient failures are retried, as the SDK's standard retry mode does: a connection refused, reset or
timed out, a 500, 502, 503 (SlowDown) or 504, up to `max_attempts` attempts in all, with exponential
backoff between them. Anything else (403 AccessDenied, 404 NoSuchKey, ...) is the answer and is raised
at once. A GetObject's body is a stream that reads from the socket as the caller reads, so a reader
that wants the first megabyte of a gigabyte segment transfers about a megabyte.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

import structlog

from kafka.log.remote.aws_v4_signer import EMPTY_PAYLOAD_SHA256, AwsCredentials, sign, uri_encode
from kafka.utils.exponential_backoff import ExponentialBackoff
from kafka.utils.time import Time

log = structlog.get_logger(__name__)

TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})
UPLOAD_BLOCK_SIZE = 1 << 20  # a segment file goes to the socket a megabyte at a time


class S3Error(Exception):
    """S3's answer to a request that failed (status 0: no answer, the connection failed)."""

    def __init__(self, status: int, code: str, message: str, key: str) -> None:
        super().__init__(f"{code} ({status}) for {key}: {message}")
        self.status = status
        self.code = code
        self.key = key

    @property
    def transient(self) -> bool:
        return self.status == 0 or self.status in TRANSIENT_STATUSES


@dataclass(frozen=True)
class S3ClientConfig:
    endpoint: str  # http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com
    region: str
    bucket: str
    credentials: AwsCredentials
    max_attempts: int = 3
    retry_backoff_ms: int = 100
    retry_backoff_max_ms: int = 1000
    request_timeout_ms: int = 30_000


class S3Client:
    def __init__(self, config: S3ClientConfig, time: Time) -> None:
        endpoint = urlsplit(config.endpoint)
        if endpoint.scheme not in ("http", "https") or not endpoint.hostname:
            raise ValueError(f"S3 endpoint {config.endpoint!r} is not an http:// or https:// URL")
        if config.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {config.max_attempts}")
        self.config = config
        self.time = time
        self._https = endpoint.scheme == "https"
        self._host = endpoint.netloc  # host[:port], as the Host header carries it and the signature signs it
        self._hostname = endpoint.hostname
        self._port = endpoint.port
        self._backoff = ExponentialBackoff(config.retry_backoff_ms, 2, config.retry_backoff_max_ms, 0.2)

    # --- the calls

    def put_object(self, key: str, body: bytes | Path) -> None:
        """PutObject: one request, up to S3's 5 GiB (a segment is at most 2 GiB, so no multipart)."""
        self._call("PUT", key, body=body).close()

    def get_object(self, key: str, first: int = 0, last: int | None = None) -> BinaryIO:
        """GetObject, bytes first..last (inclusive; None: to the end) as a stream; close it when done."""
        if first == 0 and last is None:
            return self._call("GET", key)
        return self._call("GET", key, headers={"Range": f"bytes={first}-{'' if last is None else last}"})

    def delete_object(self, key: str) -> None:
        """DeleteObject: S3 answers 204 whether or not the key was there."""
        self._call("DELETE", key).close()

    def list_objects(self, prefix: str) -> Iterator[str]:
        """ListObjectsV2: the keys under prefix, page by page (1000 a page)."""
        query = {"list-type": "2", "prefix": prefix}
        while True:
            with self._call("GET", "", query=query) as response:
                page = ET.fromstring(response.read())
            ns = page.tag[:page.tag.index("}") + 1] if page.tag.startswith("{") else ""
            yield from (element.text or "" for element in page.iter(f"{ns}Key"))
            token = page.findtext(f"{ns}NextContinuationToken")
            if page.findtext(f"{ns}IsTruncated") != "true" or not token:
                return
            query = {**query, "continuation-token": token}

    def create_bucket(self) -> None:
        """CreateBucket; a bucket this account already owns is no error."""
        try:
            self._call("PUT", "").close()
        except S3Error as e:
            if e.code != "BucketAlreadyOwnedByYou":
                raise

    # --- one request, retried

    def _call(self, method: str, key: str, query: dict[str, str] | None = None,
              headers: dict[str, str] | None = None, body: bytes | Path | None = None) -> BinaryIO:
        """The response body as a stream, once the status says success."""
        attempt = 0
        while True:
            try:
                return self._send(method, key, query or {}, headers or {}, body)
            except S3Error as e:
                attempt += 1
                if not e.transient or attempt >= self.config.max_attempts:
                    raise
                backoff_ms = self._backoff.backoff(attempt - 1)
                log.warning("S3 request failed, retrying", method=method, key=key, error=str(e),
                            attempt=attempt, backoff_ms=backoff_ms)
                self.time.sleep(backoff_ms)

    def _send(self, method: str, key: str, query: dict[str, str], headers: dict[str, str],
              body: bytes | Path | None) -> BinaryIO:
        path = f"/{self.config.bucket}/{key}" if key else f"/{self.config.bucket}"
        signed = sign(method, self._host, path, query, headers, _payload_sha256(body),
                      self.config.credentials, self.config.region, "s3", self.time.milliseconds())
        url = uri_encode(path, keep_slash=True)
        if query:
            url += "?" + "&".join(f"{uri_encode(k)}={uri_encode(v)}" for k, v in sorted(query.items()))
        upload = open(body, "rb") if isinstance(body, Path) else None  # a local file's error is not S3's
        if upload is not None:
            signed["content-length"] = str(os.fstat(upload.fileno()).st_size)
        connection = self._connect()
        try:
            connection.request(method, url, body=upload if upload is not None else body, headers=signed)
            response = connection.getresponse()
            if response.status >= 300:
                raise _error(response.status, response.read(), key)
        except (OSError, http.client.HTTPException) as e:
            connection.close()
            raise S3Error(0, type(e).__name__, str(e) or "connection failed", key) from e
        except S3Error:
            connection.close()
            raise
        finally:
            if upload is not None:
                upload.close()
        return io.BufferedReader(_ResponseStream(connection, response))

    def _connect(self) -> http.client.HTTPConnection:
        timeout = self.config.request_timeout_ms / 1000
        if self._https:
            return http.client.HTTPSConnection(self._hostname, self._port, timeout=timeout,
                                               blocksize=UPLOAD_BLOCK_SIZE)
        return http.client.HTTPConnection(self._hostname, self._port, timeout=timeout,
                                          blocksize=UPLOAD_BLOCK_SIZE)


class _ResponseStream(io.RawIOBase):
    """A response body that closes its connection when closed."""

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self._connection = connection
        self._response = response

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        return self._response.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._connection.close()  # closes the response too
        super().close()


def _payload_sha256(body: bytes | Path | None) -> str:
    """The body's SHA-256 (x-amz-content-sha256): S3 refuses a body that does not match it, so a
    segment corrupted on the way is refused rather than stored."""
    if body is None:
        return EMPTY_PAYLOAD_SHA256
    if isinstance(body, Path):
        with open(body, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    return hashlib.sha256(body).hexdigest()


def _error(status: int, body: bytes, key: str) -> S3Error:
    """S3's error document, `<Error><Code>NoSuchKey</Code><Message>...</Message></Error>` (a HEAD's
    answer, or a proxy's, may have no body: then the status alone)."""
    try:
        document = ET.fromstring(body)
        code = document.findtext("Code") or f"HTTP{status}"
        message = document.findtext("Message") or ""
    except ET.ParseError:
        code, message = f"HTTP{status}", body[:200].decode(errors="replace")
    return S3Error(status, code, message, key)
