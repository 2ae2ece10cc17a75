"""RepeatedErrorLog: one log line per interval for an error that keeps happening, with a count of
the repeats it stood for.

A broker that cannot open files fails the same way thousands of times: every partition it cannot
host, every high-watermark checkpoint (each 5 s), every read of a closed segment. Logged each time,
that is megabytes of identical lines that bury the first one, the one that explains. Kafka leaves
this to log4j's configuration; here the code that knows an error repeats asks for it:

    errors = RepeatedErrorLog(log, time, interval_ms=60_000)
    errors.error("cannot host a partition", key="host", topic_partition=str(tp), error=str(e))

The first occurrence of a key is logged at once. Later ones within `interval_ms` of the last line
are counted, not logged; the first one after the interval is logged with `suppressed=N`, the
repeats since the previous line. So a failure every 5 s logs one line a minute, and the line says
how many it stands for. Keys are few (one per kind of failure, not per partition); at most
`max_keys` are remembered, the oldest forgotten first.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Any

from kafka.utils.time import Time


class RepeatedErrorLog:
    def __init__(self, logger: Any, time: Time, interval_ms: int = 60_000, max_keys: int = 1000) -> None:
        self._logger = logger
        self._time = time
        self.interval_ms = interval_ms
        self._max_keys = max_keys
        self._lock = threading.Lock()
        self._last_logged_ms: dict[Hashable, int] = {}
        self._suppressed: dict[Hashable, int] = {}

    def error(self, event: str, key: Hashable | None = None, **fields: Any) -> bool:
        return self.log("error", event, key, **fields)

    def warning(self, event: str, key: Hashable | None = None, **fields: Any) -> bool:
        return self.log("warning", event, key, **fields)

    def log(self, level: str, event: str, key: Hashable | None = None, **fields: Any) -> bool:
        """Log `event` unless the same key was logged less than `interval_ms` ago; True if logged.
        `key` defaults to the event itself."""
        key = event if key is None else key
        now = self._time.hi_res_clock_ms()
        with self._lock:
            last = self._last_logged_ms.get(key)
            if last is not None and now - last < self.interval_ms:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return False
            suppressed = self._suppressed.pop(key, 0)
            self._last_logged_ms.pop(key, None)  # re-inserted last: the dict's order is by last line
            self._last_logged_ms[key] = now
            while len(self._last_logged_ms) > self._max_keys:
                oldest = next(iter(self._last_logged_ms))
                del self._last_logged_ms[oldest]
                self._suppressed.pop(oldest, None)
        if suppressed:
            fields["suppressed"] = suppressed
        getattr(self._logger, level)(event, **fields)
        return True

    def suppressed(self, key: Hashable) -> int:
        """Repeats of `key` counted since its last line (tests, and a last word at shutdown)."""
        with self._lock:
            return self._suppressed.get(key, 0)
