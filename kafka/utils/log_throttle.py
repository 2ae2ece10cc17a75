"""LogThrottle: at most one log line per interval for an error that repeats (in the spirit of
log4j's BurstFilter, which Kafka's operators put in front of noisy loggers).

A broker that hits the same error in a loop (accept() failing with EMFILE, one client refused
again and again) must not write a line each time: 1.6 million identical lines bury everything
else and fill the disk. Each kind of event, named by a key, is written at most once per interval;
the next line that is written says how many were held back in between.

    throttle = LogThrottle(time, interval_ms=1000)
    throttle.log(log.error, "accept failed", key="EMFILE", error=str(e))

Keys are bounded (the oldest is forgotten first), so a key per client address cannot grow without end.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from kafka.utils.time import Time

DEFAULT_MAX_KEYS = 1024


class LogThrottle:
    def __init__(self, time: Time, interval_ms: int, max_keys: int = DEFAULT_MAX_KEYS) -> None:
        self.time = time
        self.interval_ms = interval_ms
        self.max_keys = max_keys
        # key -> (when its last line was written, in monotonic ms; lines held back since)
        self._keys: OrderedDict[Hashable, tuple[int, int]] = OrderedDict()

    def log(self, log_method: Callable[..., Any], event: str, key: Hashable = None, **fields: Any) -> bool:
        """Write `event` with `log_method` unless a line for `key` was written less than an interval
        ago. Returns True if it was written."""
        now = self.time.hi_res_clock_ms()
        last = self._keys.get(key)
        if last is not None and now - last[0] < self.interval_ms:
            self._keys[key] = (last[0], last[1] + 1)
            return False
        suppressed = last[1] if last is not None else 0
        self._keys[key] = (now, 0)
        self._keys.move_to_end(key)
        while len(self._keys) > self.max_keys:
            self._keys.popitem(last=False)
        if suppressed:
            fields["suppressed"] = suppressed  # how many identical events the log did not show
        log_method(event, **fields)
        return True
