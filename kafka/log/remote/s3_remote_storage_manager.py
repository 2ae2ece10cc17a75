"""S3RemoteStorageManager: a RemoteStorageManager over any S3-compatible object store (Kafka ships none
in Apache Kafka itself; this is the role of the S3 plugins, such as Aiven's tiered-storage-for-apache-kafka,
that a KIP-405 broker loads by `remote.log.storage.manager.class.name`).

Each segment is six objects, or five when it had no aborted transactions, named as LocalTieredStorage
names its files, under `rsm.config.key.prefix`:

    <key.prefix><topic>-<partition>-<topic id>/00000000000000000042-<remote segment id>.log
                                               ...-<remote segment id>.index / .timeindex / .txnindex
                                               ...-<remote segment id>.snapshot / .leader_epoch_checkpoint

The segment object is written last, so a fileset whose .log is there is whole; a copy that fails deletes
what it wrote. A reader gets a ranged GET (`Range: bytes=start-end`) streamed from the socket. A missing
object is RemoteResourceNotFoundException; any other failure RemoteStorageException, after S3Client has
retried what is transient (s3.max.attempts in all).

Configs (`rsm.config.` prefix in the broker's properties, removed before configure):

    s3.bucket.name          the bucket (required; it must exist)
    s3.endpoint.url         http://127.0.0.1:9000 for S3Proxy (`make s3`); AWS's https://s3.<region>.amazonaws.com
    s3.region               us-east-1
    aws.access.key.id       else the environment's AWS_ACCESS_KEY_ID, as the AWS SDK looks there too
    aws.secret.access.key   else AWS_SECRET_ACCESS_KEY
    aws.session.token       else AWS_SESSION_TOKEN (temporary credentials only)
    key.prefix              prepended to every key: "" (several clusters share a bucket with "cluster-a/")
    s3.max.attempts, s3.retry.backoff.ms, s3.retry.backoff.max.ms, s3.request.timeout.ms
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, TypeVar

import structlog

from kafka.log.remote.aws_v4_signer import AwsCredentials
from kafka.log.remote.local_tiered_storage import (
    INDEX_SUFFIXES,
    SEGMENT_SUFFIX,
    fileset_prefix,
    partition_directory_name,
)
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import (
    IndexType,
    LogSegmentData,
    RemoteResourceNotFoundException,
    RemoteStorageException,
    RemoteStorageManager,
    fetch_end_position,
)
from kafka.log.remote.s3_client import S3Client, S3ClientConfig, S3Error
from kafka.utils.time import SYSTEM, Time

log = structlog.get_logger(__name__)

BUCKET_NAME_CONFIG = "s3.bucket.name"
ENDPOINT_URL_CONFIG = "s3.endpoint.url"
REGION_CONFIG = "s3.region"
ACCESS_KEY_ID_CONFIG = "aws.access.key.id"
SECRET_ACCESS_KEY_CONFIG = "aws.secret.access.key"
SESSION_TOKEN_CONFIG = "aws.session.token"
KEY_PREFIX_CONFIG = "key.prefix"
MAX_ATTEMPTS_CONFIG = "s3.max.attempts"
RETRY_BACKOFF_MS_CONFIG = "s3.retry.backoff.ms"
RETRY_BACKOFF_MAX_MS_CONFIG = "s3.retry.backoff.max.ms"
REQUEST_TIMEOUT_MS_CONFIG = "s3.request.timeout.ms"

DEFAULT_REGION = "us-east-1"

T = TypeVar("T")


class S3RemoteStorageManager(RemoteStorageManager):
    """Remote storage in an S3 bucket."""

    def __init__(self, time: Time = SYSTEM) -> None:
        # Built by class name (remote.log.storage.manager.class.name) with no arguments, as Kafka builds
        # its plugins; a test passes its own clock, which signs requests and times the retries.
        self.time = time
        self.client: S3Client | None = None
        self.key_prefix = ""

    def configure(self, configs: dict[str, str]) -> None:
        if self.client is not None:
            raise RemoteStorageException("this S3RemoteStorageManager is already configured; "
                                         "configure() is called once")
        bucket = configs.get(BUCKET_NAME_CONFIG)
        if not bucket:
            raise ValueError(f"S3RemoteStorageManager needs `{BUCKET_NAME_CONFIG}`, the bucket it stores in")
        region = configs.get(REGION_CONFIG) or DEFAULT_REGION
        access_key = configs.get(ACCESS_KEY_ID_CONFIG) or os.environ.get("AWS_ACCESS_KEY_ID")
        secret_key = configs.get(SECRET_ACCESS_KEY_CONFIG) or os.environ.get("AWS_SECRET_ACCESS_KEY")
        if not access_key or not secret_key:
            raise ValueError(f"S3RemoteStorageManager needs `{ACCESS_KEY_ID_CONFIG}` and "
                             f"`{SECRET_ACCESS_KEY_CONFIG}` (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
        credentials = AwsCredentials(access_key, secret_key,
                                     configs.get(SESSION_TOKEN_CONFIG) or os.environ.get("AWS_SESSION_TOKEN"))
        config = S3ClientConfig(
            endpoint=configs.get(ENDPOINT_URL_CONFIG) or f"https://s3.{region}.amazonaws.com",
            region=region, bucket=bucket, credentials=credentials,
            max_attempts=int(configs.get(MAX_ATTEMPTS_CONFIG, 3)),
            retry_backoff_ms=int(configs.get(RETRY_BACKOFF_MS_CONFIG, 100)),
            retry_backoff_max_ms=int(configs.get(RETRY_BACKOFF_MAX_MS_CONFIG, 1000)),
            request_timeout_ms=int(configs.get(REQUEST_TIMEOUT_MS_CONFIG, 30_000)))
        self.key_prefix = configs.get(KEY_PREFIX_CONFIG, "")
        self.client = S3Client(config, self.time)
        log.info("S3 remote storage configured", endpoint=config.endpoint, bucket=bucket,
                 key_prefix=self.key_prefix)

    # --- the RemoteStorageManager interface

    def copy_log_segment_data(self, metadata: RemoteLogSegmentMetadata, data: LogSegmentData) -> bytes | None:
        client = self._client()
        uploads: list[tuple[str, bytes | Path]] = [
            (self.index_key(metadata, IndexType.OFFSET), data.offset_index),
            (self.index_key(metadata, IndexType.TIMESTAMP), data.time_index),
            (self.index_key(metadata, IndexType.PRODUCER_SNAPSHOT), data.producer_snapshot_index),
            (self.index_key(metadata, IndexType.LEADER_EPOCH), data.leader_epoch_index),
        ]
        if data.transaction_index is not None:
            uploads.append((self.index_key(metadata, IndexType.TRANSACTION), data.transaction_index))
        uploads.append((self.segment_key(metadata), data.log_segment))  # last: its presence means whole

        def copy() -> None:
            try:
                for key, body in uploads:
                    client.put_object(key, body)
            except BaseException:
                self._delete_quietly(metadata)  # a segment is stored with all its indexes or not at all
                raise
            log.info("copied segment to S3", segment=str(data.log_segment),
                     remote_id=str(metadata.remote_log_segment_id), key=self.segment_key(metadata))
        self._wrap(copy)
        return None

    def fetch_log_segment(self, metadata: RemoteLogSegmentMetadata, start_position: int,
                          end_position: int | None = None) -> BinaryIO:
        end = fetch_end_position(metadata, start_position, end_position)
        client = self._client()
        return self._wrap(lambda: client.get_object(self.segment_key(metadata), start_position, end))

    def fetch_index(self, metadata: RemoteLogSegmentMetadata, index_type: IndexType) -> BinaryIO:
        client = self._client()
        # A TRANSACTION index that was never written answers NoSuchKey: RemoteResourceNotFoundException.
        return self._wrap(lambda: client.get_object(self.index_key(metadata, index_type)))

    def delete_log_segment_data(self, metadata: RemoteLogSegmentMetadata) -> None:
        client = self._client()

        def delete() -> None:
            for key in self.fileset_keys(metadata):
                client.delete_object(key)  # S3 answers 204 for a key that is not there
        self._wrap(delete)

    # --- the keys

    def fileset_prefix(self, metadata: RemoteLogSegmentMetadata) -> str:
        """`<key.prefix><topic>-<partition>-<topic id>/<start offset>-<remote segment id>`: the path of
        LocalTieredStorage's files under its root, so a bucket and a local store read alike."""
        return (f"{self.key_prefix}{partition_directory_name(metadata.topic_id_partition)}/"
                f"{fileset_prefix(metadata)}")

    def segment_key(self, metadata: RemoteLogSegmentMetadata) -> str:
        return self.fileset_prefix(metadata) + SEGMENT_SUFFIX

    def index_key(self, metadata: RemoteLogSegmentMetadata, index_type: IndexType) -> str:
        return self.fileset_prefix(metadata) + INDEX_SUFFIXES[index_type]

    def fileset_keys(self, metadata: RemoteLogSegmentMetadata) -> list[str]:
        return [self.segment_key(metadata), *(self.index_key(metadata, t) for t in INDEX_SUFFIXES)]

    # --- errors

    def _client(self) -> S3Client:
        if self.client is None:
            raise RemoteStorageException("S3RemoteStorageManager is not configured: call configure() first")
        return self.client

    def _delete_quietly(self, metadata: RemoteLogSegmentMetadata) -> None:
        try:
            self.delete_log_segment_data(metadata)
        except RemoteStorageException as e:
            log.warning("could not delete a failed copy's objects; the next delete by this id will",
                        remote_id=str(metadata.remote_log_segment_id), error=str(e))

    @staticmethod
    def _wrap(action: Callable[[], T]) -> T:
        """A missing object is RemoteResourceNotFoundException, any other failure RemoteStorageException,
        so the copier and the readers handle one kind of error whichever store is configured."""
        try:
            return action()
        except S3Error as e:
            if e.status == 404 and e.code == "NoSuchKey":
                raise RemoteResourceNotFoundException(str(e)) from e
            raise RemoteStorageException(f"S3 request failed: {e}") from e
        except OSError as e:  # reading the local segment or index file to upload it
            raise RemoteStorageException(f"S3 copy failed reading a local file: {e}") from e
