"""LogManager: every partition log of the broker, across its log.dirs (Kafka's LogManager).

Seed 002, "Kafka Physical Storage": each partition's commit log is a directory named
`<topic>-<partition>` inside one of the broker's log directories, holding its segments. The
LogManager finds those directories on startup, opens each log, creates new ones when the broker
becomes a replica of a new partition, and flushes and closes them all on shutdown.

Each log directory also holds `meta.properties` (which node and cluster the directory belongs to, so a
disk moved to the wrong broker is noticed), `.lock`, an exclusive file lock so that two brokers
never write to one directory, the checkpoint files (recovery point, log start offset, high
watermark) and, between a clean shutdown and the next start, the `.kafka_cleanshutdown` marker that
lets start-up skip crash recovery. The scheduler runs its housekeeping: retention
("kafka-log-retention"), flush.ms ("kafka-log-flusher"), the checkpoints, and the expiry of idempotent
producers silent for producer.id.expiration.ms ("PeriodicProducerExpirationCheck", KIP-98).

An I/O error while creating, loading or checkpointing a log (a full disk, EMFILE: too many open
files) goes to the LogDirFailureChannel like one while appending: the directory is reported offline
and the partition cannot be hosted; the broker goes on serving everything else. A partition at rest
holds one descriptor (its active segment's .log); the LogManager hosts a new one only while a
quarter of the process's descriptor limit stays free for connections, readers and checkpoints
(`descriptor_headroom`), and a log that could not be loaded is never replaced by an empty one.
The last of those descriptors are kept for the internal topics the coordinators live on
(`reserved_partitions`: __consumer_offsets, __transaction_state at their configured partition
counts): a user partition is refused while it would leave them too few, so no CreateTopics can
stop the first consumer group from starting. See docs/storage.md, "File descriptors".
"""

from __future__ import annotations

import errno
import fcntl
import os
import resource
import shutil
import threading
import uuid
from collections.abc import Callable, Mapping

import structlog

from kafka.log.errors import KafkaStorageError, LogDirError
from kafka.log.log_config import LONG_MAX, LogConfig
from kafka.log.log_dir_failure_channel import LogDirFailureChannel
from kafka.log.offset_checkpoint_file import (
    LOG_START_OFFSET_CHECKPOINT_FILE,
    RECOVERY_POINT_CHECKPOINT_FILE,
    REPLICATION_OFFSET_CHECKPOINT_FILE,
    CleanShutdownFile,
    CorruptCheckpointError,
    OffsetCheckpointFile,
)
from kafka.log.producer_state_manager import ProducerStateManagerConfig
from kafka.log.unified_log import UnifiedLog
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time
from kafka.utils.uuid import random_uuid

log = structlog.get_logger("kafka.log.LogManager")

META_PROPERTIES_FILE = "meta.properties"
LOCK_FILE = ".lock"
DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
STRAY_DIR_SUFFIX = "-stray"
# The KRaft metadata log lives in a log dir too, but the Raft layer owns it, not the LogManager.
METADATA_TOPIC = "__cluster_metadata"


def parse_topic_partition_name(name: str) -> tuple[str, int] | None:
    """(topic, partition) of a `<topic>-<partition>` directory name, or None if it is not one.

    Split at the LAST '-': topic names may contain '-' themselves ("my-topic-3" is my-topic, 3)."""
    if name.endswith((DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX, STRAY_DIR_SUFFIX)):
        return None
    topic, dash, partition = name.rpartition("-")
    if not dash or not topic or not partition.isdigit() or not partition.isascii():
        return None
    return topic, int(partition)


def soft_open_files_limit() -> int | None:
    """The process's soft RLIMIT_NOFILE (`ulimit -n`); None when unlimited."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def _check_topic_name(topic: str) -> None:
    # The server validates names fully; here only what could escape the log directory.
    if not topic or topic in (".", "..") or os.sep in topic or (os.altsep and os.altsep in topic):
        raise ValueError(f"illegal topic name {topic!r}")


class LogManager:
    """The broker's partition logs, keyed by (topic, partition)."""

    def __init__(self, log_dirs: list[str], default_config: LogConfig, time: Time,
                 node_id: int | None = None, cluster_id: str | None = None,
                 producer_state_manager_config: ProducerStateManagerConfig | None = None,
                 producer_id_expiration_check_interval_ms: int = 600_000,
                 reserved_partitions: Mapping[str, int] | None = None,
                 open_files_limit: Callable[[], int | None] = soft_open_files_limit,
                 remote_storage_system_enable: bool = False) -> None:
        if not log_dirs:
            raise ValueError("log.dirs is empty")
        self.log_dirs = [os.path.abspath(log_dir) for log_dir in log_dirs]
        if len(set(self.log_dirs)) != len(self.log_dirs):
            raise ValueError(f"duplicate entries in log.dirs: {log_dirs}")
        self.default_config = default_config
        self.time = time
        self.node_id = node_id
        self.cluster_id = cluster_id
        # producer.id.expiration.ms, and how often producer.id.expiration.check.interval.ms looks
        self.producer_state_manager_config = producer_state_manager_config or ProducerStateManagerConfig()
        self.producer_id_expiration_check_interval_ms = producer_id_expiration_check_interval_ms
        self._logs: dict[tuple[str, int], UnifiedLog] = {}
        self._lock = threading.Lock()
        self._checkpoint_lock = threading.Lock()  # the scheduler and shutdown both write checkpoints
        self._dir_lock_fds: list[int] = []
        self.scheduler: KafkaScheduler | None = None
        # Where failed writes are reported (OfflineLogDirectoryCount); see log_dir_failure_channel.py.
        self.log_dir_failure_channel = LogDirFailureChannel(time)
        # Logs found on disk that could not be opened (EMFILE, EIO): (topic, partition) -> the error.
        # Never created anew: an empty log in their place would hide the data still on disk.
        self._unloadable: dict[tuple[str, int], str] = {}
        self._errors = RepeatedErrorLog(log, time)
        # Internal topic -> its configured partition count (offsets.topic.num.partitions, ...): the
        # descriptors those partitions need are kept from user partitions until they are hosted.
        self.reserved_partitions = dict(reserved_partitions or {})
        self.open_files_limit = open_files_limit  # injected, as time is: the unit tests pick the limit
        self._clean_shutdown_epochs: list[int] = []  # what each dir's clean-shutdown marker said
        # remote.log.storage.system.enable: the logs of topics with remote.storage.enable are tiered
        self.remote_storage_system_enable = remote_storage_system_enable

    # ------------------------------------------------------------------------------ lifecycle

    def startup(self, topic_configs: Mapping[str, LogConfig] | None = None) -> None:
        """Lock each log dir, write its meta.properties if new, and open every partition log in it.

        `topic_configs` holds the configs of topics that override the defaults (the server knows them)."""
        topic_configs = topic_configs or {}
        try:
            for log_dir in self.log_dirs:
                os.makedirs(log_dir, exist_ok=True)
                self._lock_dir(log_dir)
                self._check_or_write_meta_properties(log_dir)
                self._load_logs(log_dir, topic_configs)
        except BaseException:
            self._close_all()
            raise

    def startup_tasks(self, scheduler: KafkaScheduler, retention_check_interval_ms: int,
                      recovery_point_checkpoint_ms: int, log_start_offset_checkpoint_ms: int,
                      high_watermark_checkpoint_ms: int, flush_scheduler_interval_ms: int = LONG_MAX) -> None:
        """Schedule the housekeeping tasks, under Kafka's task names (LogManager.startup)."""
        self.scheduler = scheduler
        for unified_log in self.all_logs():
            unified_log.scheduler = scheduler
        tasks: list[tuple[str, Callable[[], object], int]] = [
            ("kafka-log-retention", self.cleanup_logs, retention_check_interval_ms),
            ("kafka-recovery-point-checkpoint", self.checkpoint_recovery_offsets,
             recovery_point_checkpoint_ms),
            ("kafka-log-start-offset-checkpoint", self.checkpoint_log_start_offsets,
             log_start_offset_checkpoint_ms),
            ("highwatermark-checkpoint", self.checkpoint_high_watermarks, high_watermark_checkpoint_ms),
            # Kafka schedules this per log; one task walking every log does the same with one timer.
            ("PeriodicProducerExpirationCheck", self.remove_expired_producers,
             self.producer_id_expiration_check_interval_ms),
        ]
        if flush_scheduler_interval_ms < LONG_MAX:
            tasks.append(("kafka-log-flusher", self.flush_dirty_logs, flush_scheduler_interval_ms))
        for name, task, period_ms in tasks:
            scheduler.schedule(name, task, period_ms, period_ms)

    @property
    def previous_broker_epoch(self) -> int:
        """Kafka's readBrokerEpochFromCleanShutdownFiles (KIP-966): the broker epoch the last clean
        shutdown recorded in every log dir, -1 if one was not shut down cleanly. The next registration
        carries it, so that the controller knows whether this broker may have lost unflushed records."""
        epochs = set(self._clean_shutdown_epochs)
        return epochs.pop() if len(epochs) == 1 else -1

    def shutdown(self, broker_epoch: int = -1) -> None:
        """Flush every log, write the checkpoints, close the logs, then mark each dir cleanly shut down
        with the broker epoch it ends (the controller then keeps this broker in the ELRs it is in).

        The marker is written last: if anything before it fails, the next start-up recovers."""
        with self._lock:
            logs = list(self._logs.values())
        for unified_log in logs:
            unified_log.flush()
        self.checkpoint_all()
        self._close_all(clean=True, broker_epoch=broker_epoch)

    def checkpoint_all(self) -> None:
        self.checkpoint_recovery_offsets()
        self.checkpoint_log_start_offsets()
        self.checkpoint_high_watermarks()

    def _close_all(self, clean: bool = False, broker_epoch: int = -1) -> None:
        with self._lock:
            logs = list(self._logs.values())
            self._logs.clear()
        for unified_log in logs:
            unified_log.close()
        if clean:
            for log_dir in self.log_dirs:
                CleanShutdownFile(log_dir).write(broker_epoch)
        for fd in self._dir_lock_fds:
            os.close(fd)  # closing the descriptor releases the flock
        self._dir_lock_fds.clear()

    def _lock_dir(self, log_dir: str) -> None:
        fd = os.open(os.path.join(log_dir, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            raise LogDirError(f"failed to acquire lock on {log_dir}: another "
                              "broker (or LogManager) is using it") from error
        self._dir_lock_fds.append(fd)

    def _check_or_write_meta_properties(self, log_dir: str) -> None:
        path = os.path.join(log_dir, META_PROPERTIES_FILE)
        if os.path.exists(path):
            stored = read_properties(path)
            stored_node = stored.get("node.id")
            if self.node_id is not None and stored_node is not None and int(stored_node) != self.node_id:
                raise LogDirError(f"{path} belongs to node.id {stored_node}, this broker is {self.node_id}")
            stored_cluster = stored.get("cluster.id")
            both_known = self.cluster_id is not None and stored_cluster is not None
            if both_known and stored_cluster != self.cluster_id:
                raise LogDirError(f"{path} belongs to cluster.id {stored_cluster}, not {self.cluster_id}")
            return
        props = {"version": "1"}
        if self.node_id is not None:
            props["node.id"] = str(self.node_id)
        if self.cluster_id is not None:
            props["cluster.id"] = self.cluster_id
        props["directory.id"] = random_uuid()
        write_properties(path, props)

    def _load_logs(self, log_dir: str, topic_configs: Mapping[str, LogConfig]) -> None:
        """Open every partition directory (Kafka's loadLogs), recovering them if the dir was not shut
        down cleanly. The marker is deleted once loading is done: from now on this run owns the dir."""
        marker = CleanShutdownFile(log_dir)
        clean = marker.exists()
        self._clean_shutdown_epochs.append(marker.read_broker_epoch() if clean else -1)
        recovery_points = self._read_checkpoint(log_dir, RECOVERY_POINT_CHECKPOINT_FILE)
        log_start_offsets = self._read_checkpoint(log_dir, LOG_START_OFFSET_CHECKPOINT_FILE)
        high_watermarks = self._read_checkpoint(log_dir, REPLICATION_OFFSET_CHECKPOINT_FILE)
        loaded = 0
        for name in sorted(os.listdir(log_dir)):
            path = os.path.join(log_dir, name)
            if not os.path.isdir(path):
                continue
            if name.endswith(DELETE_DIR_SUFFIX):
                shutil.rmtree(path, ignore_errors=True)  # a deletion interrupted by a shutdown: finish it
                continue
            parsed = parse_topic_partition_name(name)
            if parsed is None or parsed[0] == METADATA_TOPIC:
                continue
            topic, partition = parsed
            if parsed in self._logs:
                duplicate = self._logs[parsed].dir
                raise LogDirError(f"duplicate log directories for {name}: {duplicate} and {path}")
            config = topic_configs.get(topic, self.default_config)
            try:
                self._check_descriptor_headroom(log_dir, topic, partition)
                self._logs[parsed] = UnifiedLog(
                    path, topic, partition, config, self.time,
                    log_start_offset=log_start_offsets.get(parsed, 0),
                    recovery_point=recovery_points.get(parsed, 0),
                    had_clean_shutdown=clean,
                    high_watermark=high_watermarks.get(parsed, 0),
                    producer_state_manager_config=self.producer_state_manager_config,
                    remote_storage_system_enable=self.remote_storage_system_enable)
            except (OSError, KafkaStorageError) as e:  # EMFILE, EIO: this log stays on disk, offline
                self._unloadable[parsed] = str(e)
                self.log_dir_failure_channel.maybe_add_offline_log_dir(log_dir, str(e))
                self._errors.error("cannot load a log: its partition stays offline until a restart",
                                   key="load", log_dir=log_dir, log=name, error=str(e))
                continue
            loaded += 1
        marker.delete()
        log.info("loaded logs", log_dir=log_dir, logs=loaded, clean_shutdown=clean,
                 **({"offline": len(self._unloadable)} if self._unloadable else {}))

    @staticmethod
    def _read_checkpoint(log_dir: str, name: str) -> dict[tuple[str, int], int]:
        try:
            return OffsetCheckpointFile(os.path.join(log_dir, name)).read()
        except CorruptCheckpointError as error:
            # Kafka's answer too: without a trustworthy recovery point, recover everything from 0.
            log.warning("ignoring a corrupt checkpoint file", error=str(error))
            return {}

    # ------------------------------------------------------------------------------ housekeeping

    def cleanup_logs(self) -> int:
        """The retention task: delete old segments of every log; returns how many were deleted."""
        total = 0
        for unified_log in self.all_logs():
            total += unified_log.delete_old_segments()
        return total

    def flush_dirty_logs(self) -> None:
        """flush.ms: fsync the logs whose last flush is older than their topic's flush.ms."""
        now = self.time.milliseconds()
        for unified_log in self.all_logs():
            if now - unified_log.last_flush_time_ms >= unified_log.config.flush_ms:
                unified_log.flush()

    def remove_expired_producers(self) -> None:
        """Forget the idempotent producers that have written nothing for producer.id.expiration.ms."""
        now = self.time.milliseconds()
        for unified_log in self.all_logs():
            unified_log.remove_expired_producers(now)

    def checkpoint_recovery_offsets(self) -> None:
        self._checkpoint(RECOVERY_POINT_CHECKPOINT_FILE, lambda unified_log: unified_log.recovery_point)
        # Recovery now starts no earlier than these points: older producer snapshots are not needed.
        for unified_log in self.all_logs():
            unified_log.delete_snapshots_after_recovery_point_checkpoint()

    def checkpoint_log_start_offsets(self) -> None:
        self._checkpoint(LOG_START_OFFSET_CHECKPOINT_FILE, lambda unified_log: unified_log.log_start_offset)

    def checkpoint_high_watermarks(self) -> None:
        """Kafka's ReplicaManager.checkpointHighWatermarks; here the log holds the HW, so it lives here."""
        self._checkpoint(REPLICATION_OFFSET_CHECKPOINT_FILE, lambda unified_log: unified_log.high_watermark)

    def _checkpoint(self, file_name: str, offset_of: Callable[[UnifiedLog], int]) -> None:
        """Write one checkpoint file per log dir. A dir whose file cannot be written (ENOSPC, EMFILE)
        is reported offline; the others are still written, and the error is logged once a minute."""
        with self._checkpoint_lock:
            logs = self.all_logs()
            for log_dir in self.log_dirs:
                offsets = {(lg.topic, lg.partition): offset_of(lg) for lg in logs
                           if os.path.dirname(lg.dir) == log_dir}
                try:
                    OffsetCheckpointFile(os.path.join(log_dir, file_name)).write(offsets)
                except OSError as e:
                    self.log_dir_failure_channel.maybe_add_offline_log_dir(log_dir, str(e))
                    self._errors.error("cannot write a checkpoint file",
                                       key=f"checkpoint {file_name} {log_dir}",
                                       log_dir=log_dir, file=file_name, error=str(e))

    # ------------------------------------------------------------------------------ logs

    def get_log(self, topic: str, partition: int) -> UnifiedLog | None:
        return self._logs.get((topic, partition))

    def get_or_create_log(self, topic: str, partition: int, config: LogConfig | None = None) -> UnifiedLog:
        """The existing log (its config untouched), or a new empty one in the least-loaded log dir."""
        key = (topic, partition)
        log = self._logs.get(key)
        if log is not None:
            return log
        _check_topic_name(topic)
        if partition < 0:
            raise ValueError(f"illegal partition {partition}")
        with self._lock:
            log = self._logs.get(key)
            if log is None:
                log_dir = self._next_log_dir()
                if key in self._unloadable:  # its data is on disk: never an empty log in its place
                    raise KafkaStorageError(log_dir,
                                            f"the log of {topic}-{partition} could not be loaded at start-up "
                                            f"({self._unloadable[key]}); restart the broker to retry")
                path = os.path.join(log_dir, f"{topic}-{partition}")
                existed = os.path.exists(path)
                try:
                    self._check_descriptor_headroom(log_dir, topic, partition)
                    log = UnifiedLog(path, topic, partition, config or self.default_config, self.time,
                                     scheduler=self.scheduler,
                                     producer_state_manager_config=self.producer_state_manager_config,
                                     remote_storage_system_enable=self.remote_storage_system_enable)
                except (OSError, KafkaStorageError) as e:  # a full disk, EMFILE: the partition is not hosted
                    if not existed:  # no half-made partition directory for the next start
                        shutil.rmtree(path, ignore_errors=True)
                    self.log_dir_failure_channel.maybe_add_offline_log_dir(log_dir, str(e))
                    if isinstance(e, KafkaStorageError):
                        raise
                    raise KafkaStorageError(log_dir,
                                            f"cannot create the log of {topic}-{partition}: {e}") from e
                self.log_dir_failure_channel.mark_online(log_dir)
                self._logs[key] = log
            return log

    def descriptor_headroom(self) -> int | None:
        """How many more partition logs the descriptor limit leaves room for (None: no limit): the
        room a reserved (internal) partition may take.

        Each log at rest holds one descriptor (kafka/log/log_segment.py); a quarter of the soft
        RLIMIT_NOFILE is kept for everything else a broker opens: client connections, readers of
        inactive segments, fetch responses in flight, checkpoints, the metadata log."""
        limit = self.open_files_limit()
        if limit is None:
            return None
        return limit - limit // 4 - len(self._logs)

    def unhosted_reserved_partitions(self) -> int:
        """How many of the internal topics' configured partitions have no log here yet. The whole
        count is kept, even though another broker may end up hosting some of them: the reserve
        cannot wait for an assignment that a CreateTopics of the whole budget would get in before."""
        return sum(1 for topic, count in self.reserved_partitions.items()
                   for partition in range(count) if (topic, partition) not in self._logs)

    def is_reserved(self, topic: str, partition: int) -> bool:
        """An internal topic's partition within its configured count. Beyond it (a client creating
        __transaction_state itself with 7,000 partitions) it is a user partition like any other."""
        return partition < self.reserved_partitions.get(topic, 0)

    def _check_descriptor_headroom(self, log_dir: str, topic: str, partition: int) -> None:
        """Refuse a new log the descriptor budget has no room for. A reserved partition may take the
        budget to its last descriptor; a user partition stops where the reserve begins."""
        headroom = self.descriptor_headroom()
        if headroom is None:
            return
        name = f"{topic}-{partition}"
        if headroom <= 0:
            raise KafkaStorageError(log_dir,
                                    f"cannot open the log of {name}: {len(self._logs)} partition logs "
                                    f"already hold three quarters of the open-file limit "
                                    f"({os.strerror(errno.EMFILE)}; raise ulimit -n)")
        if self.is_reserved(topic, partition):
            return
        reserve = self.unhosted_reserved_partitions()
        if headroom <= reserve:
            # One line a minute, not one per partition: a CreateTopics of 7,000 meets this 4,000 times.
            self._errors.warning("refusing user partitions: the rest of the open-file budget is kept for "
                                 "the internal topics", key="descriptor reserve", first=name,
                                 logs=len(self._logs), headroom=headroom, reserved=reserve,
                                 topics=sorted(self.reserved_partitions))
            raise KafkaStorageError(log_dir,
                                    f"cannot open the log of {name}: the last {reserve} logs the open-file "
                                    f"limit allows are kept for the partitions of "
                                    f"{', '.join(sorted(self.reserved_partitions))} "
                                    f"({os.strerror(errno.EMFILE)}; raise ulimit -n)")

    def _next_log_dir(self) -> str:
        """Kafka's nextLogDirs: the directory holding the fewest partitions, first listed on ties."""
        counts = dict.fromkeys(self.log_dirs, 0)
        for log in self._logs.values():
            parent = os.path.dirname(log.dir)
            if parent in counts:
                counts[parent] += 1
        return min(self.log_dirs, key=lambda log_dir: counts[log_dir])

    def all_logs(self) -> list[UnifiedLog]:
        with self._lock:
            return list(self._logs.values())

    def reconfigure_default_log_config(self, config: LogConfig) -> None:
        """The broker-wide defaults changed at run time (Kafka's reconfigureDefaultLogConfig): the logs
        created from now on start from them; DynamicLogConfig hands the live ones theirs."""
        self.default_config = config

    def update_topic_config(self, topic: str, config: LogConfig) -> None:
        """A topic's configs changed (Kafka's updateTopicConfig): every log of it takes the new
        LogConfig, so retention, rolling and the cleaner act on it from their next run."""
        for log in self.all_logs():
            if log.topic == topic:
                log.update_config(config)

    def delete_log(self, topic: str, partition: int) -> UnifiedLog | None:
        """Close the log, rename its directory `<name>.<uuid>-delete`, then remove it.

        The rename is what makes deletion safe: a crash before rmtree finishes leaves a `-delete`
        directory that the next startup removes, never a half-deleted log that looks live."""
        with self._lock:
            log = self._logs.pop((topic, partition), None)
        if log is None:
            return None
        log.close_handlers()  # no producer snapshot for a log about to go
        doomed = f"{log.dir}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}"
        os.rename(log.dir, doomed)
        shutil.rmtree(doomed, ignore_errors=True)
        return log

    def __len__(self) -> int:
        return len(self._logs)


# ---------------------------------------------------------------------------------- files

def read_properties(path: str) -> dict[str, str]:
    """A Java .properties file, the simple subset Kafka writes (key=value, # comments)."""
    props = {}
    with open(path, encoding="utf-8") as file:
        for line in file:
            line = line.strip()
            if not line or line.startswith(("#", "!")):
                continue
            key, _, value = line.partition("=")
            props[key.strip()] = value.strip()
    return props


def write_properties(path: str, props: Mapping[str, str]) -> None:
    """Write atomically: a temporary file, fsync, rename; a crash leaves the old file or the new one."""
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write("#\n")
        for key, value in props.items():
            file.write(f"{key}={value}\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)

