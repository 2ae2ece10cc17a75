"""LogDirFailureChannel: where an I/O error on a log directory is reported (Kafka's
kafka.server.LogDirFailureChannel).

In Kafka, an IOException while appending, rolling or flushing marks the whole log directory
offline: its partitions answer KAFKA_STORAGE_ERROR, `kafka.log:type=LogManager,name=OfflineLogDirectoryCount`
goes up, and the directory stays offline until the broker restarts (the controller moves leadership
to other replicas meanwhile).

Here there are no other replicas to move to, and the common cause is a full disk, which an operator
fixes by freeing space. So a directory is marked offline by the failed write (the log line and the
metric say so at once), but appends keep being tried: the first one that succeeds marks it online
again. A failed append never leaves bytes behind (LogSegment.append cuts the file back), so the log
stays consistent whichever way the next append goes. See docs/storage.md, "A full disk".

Running out of file descriptors (EMFILE, ENFILE) is reported the same way: a log that cannot be
created or loaded, a checkpoint that cannot be written. A directory that goes offline and online
again many times (appends succeeding between failures) is logged once a minute per directory,
with the count of changes in between (RepeatedErrorLog).
"""

from __future__ import annotations

import threading

import structlog

from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

log = structlog.get_logger("kafka.log.LogDirFailureChannel")


class LogDirFailureChannel:
    def __init__(self, time: Time) -> None:
        self._offline: dict[str, str] = {}  # log dir -> the error that took it offline
        self._lock = threading.Lock()
        self._changes = RepeatedErrorLog(log, time)

    def maybe_add_offline_log_dir(self, log_dir: str, message: str) -> None:
        """Report an I/O error on ``log_dir``; logged once, when the directory goes offline."""
        with self._lock:
            newly = log_dir not in self._offline
            self._offline[log_dir] = message
        if newly:
            self._changes.error("log directory is offline: appends to its partitions "
                                "answer KAFKA_STORAGE_ERROR until a write succeeds "
                                "again (free some space or descriptors)",
                                key=f"offline {log_dir}", log_dir=log_dir, error=message)

    def mark_online(self, log_dir: str) -> None:
        """A write to ``log_dir`` succeeded: it is usable again."""
        if log_dir not in self._offline:  # the common case, without the lock
            return
        with self._lock:
            was = self._offline.pop(log_dir, None)
        if was is not None:
            self._changes.warning("log directory is writable again", key=f"online {log_dir}", log_dir=log_dir,
                                  was=was)

    def is_offline(self, log_dir: str) -> bool:
        return log_dir in self._offline

    def offline_log_dirs(self) -> list[str]:
        with self._lock:
            return sorted(self._offline)
