"""LocalTieredStorage: a RemoteStorageManager over a local directory (Kafka's test-jar
org.apache.kafka.server.log.remote.storage.LocalTieredStorage, with its RemoteLogSegmentFileset and
RemoteTopicPartitionDirectory).

Kafka's own tiered-storage tests, and a laptop trying tiered storage out, use it in place of a cloud
store. Configured with `rsm.config.dir=/some/dir`, it keeps everything under
`/some/dir/kafka-tiered-storage/`: one directory per partition, `<topic>-<partition>-<topic id>`, and in
it one file per segment and index, named by the segment's start offset and its remote id so that a
segment copied twice is two filesets:

    00000000000000000042-<remote segment uuid>.log / .index / .timeindex / .txnindex / .snapshot
    00000000000000000042-<remote segment uuid>.leader_epoch_checkpoint

A failed copy deletes what it had written, so a fileset is whole or absent. Ids are Kafka's Uuid
strings (22 characters of URL-safe base64), the names Kafka's LocalTieredStorage gives the same data.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO, TypeVar

import structlog

from kafka.log.log_file_utils import (
    INDEX_FILE_SUFFIX,
    LOG_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX,
    TXN_INDEX_FILE_SUFFIX,
    filename_prefix_from_offset,
)
from kafka.log.producer_state_manager import PRODUCER_SNAPSHOT_FILE_SUFFIX
from kafka.log.remote.remote_log_segment_metadata import RemoteLogSegmentMetadata
from kafka.log.remote.remote_storage_manager import (
    IndexType,
    LogSegmentData,
    RemoteResourceNotFoundException,
    RemoteStorageException,
    RemoteStorageManager,
    fetch_end_position,
)
from kafka.utils.topic_id_partition import TopicIdPartition
from kafka.utils.uuid import uuid_to_string

log = structlog.get_logger(__name__)

STORAGE_DIR_CONFIG = "dir"
DELETE_ON_CLOSE_CONFIG = "delete.on.close"
ENABLE_DELETE_API_CONFIG = "delete.enable"
BROKER_ID_CONFIG = "broker.id"
ROOT_STORAGE_DIR_NAME = "kafka-tiered-storage"
LEADER_EPOCH_CHECKPOINT_SUFFIX = ".leader_epoch_checkpoint"

# Kafka's RemoteLogSegmentFileType: the suffix of each file of a fileset, and whether it may be absent.
SEGMENT_SUFFIX = LOG_FILE_SUFFIX
INDEX_SUFFIXES = {
    IndexType.OFFSET: INDEX_FILE_SUFFIX,
    IndexType.TIMESTAMP: TIME_INDEX_FILE_SUFFIX,
    IndexType.TRANSACTION: TXN_INDEX_FILE_SUFFIX,
    IndexType.LEADER_EPOCH: LEADER_EPOCH_CHECKPOINT_SUFFIX,
    IndexType.PRODUCER_SNAPSHOT: PRODUCER_SNAPSHOT_FILE_SUFFIX,
}
OPTIONAL_INDEXES = frozenset({IndexType.TRANSACTION})

T = TypeVar("T")


def partition_directory_name(topic_id_partition: TopicIdPartition) -> str:
    """Kafka's RemoteTopicPartitionDirectory name: `<topic>-<partition>-<topic id>`."""
    return (f"{topic_id_partition.topic}-{topic_id_partition.partition}-"
            f"{uuid_to_string(topic_id_partition.topic_id)}")


def fileset_prefix(metadata: RemoteLogSegmentMetadata) -> str:
    """`<start offset, 20 digits>-<remote segment id>`: every file of one copied segment starts so."""
    segment_uuid = uuid_to_string(metadata.remote_log_segment_id.id)
    return f"{filename_prefix_from_offset(metadata.start_offset)}-{segment_uuid}"


class LocalTieredStorage(RemoteStorageManager):
    """Remote storage that is a directory on this machine."""

    def __init__(self) -> None:
        self.storage_directory: Path | None = None
        self.broker_id = -1
        self._delete_on_close = False
        self._delete_enabled = True

    def configure(self, configs: dict[str, str]) -> None:
        if self.storage_directory is not None:
            raise RemoteStorageException(f"this LocalTieredStorage is already configured at "
                                         f"{self.storage_directory}; configure() is called once")
        if configs.get(BROKER_ID_CONFIG) is None:
            raise ValueError("Broker ID is required to configure the LocalTieredStorage manager.")
        if not configs.get(STORAGE_DIR_CONFIG):
            raise ValueError(f"LocalTieredStorage needs `{STORAGE_DIR_CONFIG}`, the directory it stores in")
        self.broker_id = int(configs[BROKER_ID_CONFIG])
        self._delete_on_close = str(configs.get(DELETE_ON_CLOSE_CONFIG, "false")).lower() == "true"
        self._delete_enabled = str(configs.get(ENABLE_DELETE_API_CONFIG, "true")).lower() == "true"
        directory = Path(configs[STORAGE_DIR_CONFIG]) / ROOT_STORAGE_DIR_NAME
        if directory.exists():
            # Kafka warns too: a second broker (or a restart) sharing the directory sees what is there.
            log.info("local tiered storage directory exists", directory=str(directory), broker=self.broker_id)
        directory.mkdir(parents=True, exist_ok=True)
        self.storage_directory = directory

    # --- the RemoteStorageManager interface

    def copy_log_segment_data(self, metadata: RemoteLogSegmentMetadata, data: LogSegmentData) -> bytes | None:
        def copy() -> None:
            files = self._fileset(metadata, create=True)
            try:
                shutil.copyfile(data.log_segment, files[None])
                shutil.copyfile(data.offset_index, files[IndexType.OFFSET])
                shutil.copyfile(data.time_index, files[IndexType.TIMESTAMP])
                if data.transaction_index is not None:
                    shutil.copyfile(data.transaction_index, files[IndexType.TRANSACTION])
                files[IndexType.LEADER_EPOCH].write_bytes(data.leader_epoch_index)
                shutil.copyfile(data.producer_snapshot_index, files[IndexType.PRODUCER_SNAPSHOT])
            except BaseException:
                # Keep the store consistent: a segment is stored with all its indexes or not at all.
                _delete_files(files.values())
                raise
            log.info("copied segment to local tiered storage", segment=str(data.log_segment),
                     remote_id=str(metadata.remote_log_segment_id))
        self._wrap(copy)
        return None

    def fetch_log_segment(self, metadata: RemoteLogSegmentMetadata, start_position: int,
                          end_position: int | None = None) -> BinaryIO:
        end = fetch_end_position(metadata, start_position, end_position)

        def fetch() -> BinaryIO:
            with open(self._fileset(metadata)[None], "rb") as f:
                f.seek(start_position)
                return io.BytesIO(f.read(end - start_position + 1))
        return self._wrap(fetch)

    def fetch_index(self, metadata: RemoteLogSegmentMetadata, index_type: IndexType) -> BinaryIO:
        def fetch() -> BinaryIO:
            path = self._fileset(metadata)[index_type]
            if index_type in OPTIONAL_INDEXES and not path.exists():
                raise RemoteResourceNotFoundException(
                    f"Index file for type: {index_type.name} not found for segment "
                    f"{metadata.remote_log_segment_id}")
            return open(path, "rb")
        return self._wrap(fetch)

    def delete_log_segment_data(self, metadata: RemoteLogSegmentMetadata) -> None:
        if not self._delete_enabled:
            return  # Kafka's delete.enable=false: a store whose deletes are not (yet) visible
        self._wrap(lambda: _delete_files(self._fileset(metadata).values()))

    def delete_partition(self, topic_id_partition: TopicIdPartition) -> None:
        """Remove a partition's directory (Kafka's deletePartition, KAFKA-15166)."""
        if not self._delete_enabled:
            return
        self._wrap(lambda: shutil.rmtree(self._partition_directory(topic_id_partition), ignore_errors=True))

    def close(self) -> None:
        if self._delete_on_close and self.storage_directory is not None:
            shutil.rmtree(self.storage_directory, ignore_errors=True)

    # --- the files

    def _partition_directory(self, topic_id_partition: TopicIdPartition) -> Path:
        assert self.storage_directory is not None
        return self.storage_directory / partition_directory_name(topic_id_partition)

    def _fileset(self, metadata: RemoteLogSegmentMetadata,
                 create: bool = False) -> dict[IndexType | None, Path]:
        """Kafka's RemoteLogSegmentFileset: the segment (key None) and each index's path."""
        directory = self._partition_directory(metadata.topic_id_partition)
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        prefix = fileset_prefix(metadata)
        files: dict[IndexType | None, Path] = {None: directory / (prefix + SEGMENT_SUFFIX)}
        files.update({index: directory / (prefix + suffix) for index, suffix in INDEX_SUFFIXES.items()})
        return files

    def _wrap(self, action: Callable[[], T]) -> T:
        """Kafka's wrap: a missing file is RemoteResourceNotFoundException, any other failure
        RemoteStorageException, so the copier and readers handle one kind of error."""
        if self.storage_directory is None:
            raise RemoteStorageException("No storage directory was defined for the local remote storage. "
                                         "Make sure the instance was configured via configure().")
        try:
            return action()
        except RemoteStorageException:
            raise
        except FileNotFoundError as e:
            raise RemoteResourceNotFoundException(str(e)) from e
        except OSError as e:
            raise RemoteStorageException(f"Internal error in local remote storage: {e}") from e


def _delete_files(paths: Iterable[Path]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
