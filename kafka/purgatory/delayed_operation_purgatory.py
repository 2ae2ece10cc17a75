"""DelayedOperationPurgatory: where delayed operations wait (Kafka's kafka.server.DelayedOperationPurgatory).

Seed 000 "Purgatories and Delayed Operations": "the base purgatory ... its expiry reaper will purge the
watch list and for each expired operation trigger operation.expire(). This purgatory is generic".
Seed 002 "Purgatory holds requests until replicated": the I/O thread parks the request here and is
free; an append (check_and_complete) or the timeout takes it out again.

Two structures hold every waiting operation:
  * watcher lists, one per key (a partition, a group): the operations some event on that key might
    complete. check_and_complete(key) walks one list.
  * the timer (SystemTimer): the same operations by deadline. The reaper thread ticks it.
Completing an operation cancels its timer task at once, but leaves it on its watcher lists; a
periodic purge sweeps those leftovers, so a busy partition's list does not grow without bound.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

import structlog

from kafka.purgatory.delayed_operation import DelayedOperation
from kafka.utils.time import Time
from kafka.utils.timer.atomic import AtomicInteger
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.timer import Timer

log = structlog.get_logger(__name__)

T = TypeVar("T", bound=DelayedOperation)

# Kafka shards the key -> watchers map 512 ways so request threads rarely contend on one lock. Under
# the GIL contention is cheaper and rarer; a few stripes keep the same shape at a readable size.
SHARDS = 16

# How long the reaper blocks in each timer.advance_clock call. Kafka's 200 ms is kept for a MockTime,
# which nothing announces moving. With the system clock the timer's DelayQueue wakes the reaper the
# moment its first bucket is due (offering an earlier bucket re-plans the wait), so the poll only
# paces the purge check: a longer one spares an idle broker five wake-ups a second per purgatory.
REAPER_POLL_MS = 200
REAPER_IDLE_POLL_MS = 2000


class Watchers(Generic[T]):
    """The operations watched under one key, in the order they started watching.

    Kafka uses a lock-free ConcurrentLinkedQueue. Here a small lock guards a list, and it is never
    held while an operation's try_complete runs: we iterate over a snapshot, so a completion callback
    may watch or complete operations on this same key without deadlock or a list changing under us.
    """

    def __init__(self, key: Hashable) -> None:
        self.key = key
        self._lock = threading.Lock()
        self._operations: list[T] = []

    def count_watched(self) -> int:
        return len(self._operations)

    def is_empty(self) -> bool:
        return not self._operations

    def watch(self, operation: T) -> None:
        with self._lock:
            self._operations.append(operation)

    def try_complete_watched(self) -> int:
        """Try each watched operation once; return how many this call completed."""
        completed = 0
        for operation in self._snapshot():
            if not operation.is_completed and operation.safe_try_complete():
                completed += 1
        self._drop_completed()
        return completed

    def purge_completed(self) -> int:
        """Drop operations completed elsewhere (another key, or expiry); return how many."""
        return self._drop_completed()

    def cancel(self) -> list[T]:
        """Stop watching everything (without completing it) and cancel the timer tasks."""
        with self._lock:
            cancelled, self._operations = self._operations, []
        for operation in cancelled:
            operation.cancel()
        return cancelled

    def _snapshot(self) -> list[T]:
        with self._lock:
            return list(self._operations)

    def _drop_completed(self) -> int:
        with self._lock:
            before = len(self._operations)
            self._operations = [op for op in self._operations if not op.is_completed]
            return before - len(self._operations)


class _WatcherList:
    """One stripe of the key -> Watchers map, with the lock that guards it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.watchers_by_key: dict[Hashable, Watchers] = {}

    def all_watchers(self) -> list[Watchers]:
        with self.lock:
            return list(self.watchers_by_key.values())


class DelayedOperationPurgatory(Generic[T]):
    """Bookkeeping for delayed operations: watch them by key, complete them on events, expire them."""

    def __init__(
        self,
        name: str,
        timer: Timer | None = None,
        broker_id: int = 0,
        purge_interval: int = 1000,
        reaper_enabled: bool = True,
        *,
        time: Time,
    ) -> None:
        self.name = name
        self.broker_id = broker_id
        self.purge_interval = purge_interval
        self.reaper_poll_ms = REAPER_POLL_MS if time.is_mock else REAPER_IDLE_POLL_MS
        self._timer = timer if timer is not None else SystemTimer(name, time=time)
        self._watcher_lists = [_WatcherList() for _ in range(SHARDS)]
        # Operations put on watch lists since the last purge; minus num_delayed() it estimates how
        # many completed operations still sit on watch lists, which is what triggers a purge.
        self._estimated_total_operations = AtomicInteger(0)
        self._reaper_enabled = reaper_enabled
        self._expiration_reaper = ExpiredOperationReaper(self)
        if reaper_enabled:
            self._expiration_reaper.start()

    # ----------------------------------------------------------------------------------------
    # Entering the purgatory and leaving it early

    def try_complete_else_watch(self, operation: T, watch_keys: Iterable[Hashable]) -> bool:
        """Complete the operation now if possible, else watch it under every key and start its timer.

        Returns True if it was completed during this call (the caller may then respond at once).

        Checking once per key would be expensive, so (as Kafka does) we check once, then put the
        operation on all the watch lists, then check again. If the second check fails, every later
        event on any key will see the operation, so no completion is missed. Both checks and the
        watching happen under the operation's lock (see DelayedOperation.safe_try_complete_or_else).
        An operation completed after being watched under some keys but not others simply stays on
        the lists it reached until the purge removes it.
        """
        keys = list(watch_keys)
        if not keys:
            raise ValueError("The watch key list can't be empty")

        def watch_all() -> None:
            for key in keys:
                self._watch_for_operation(key, operation)
            self._estimated_total_operations.increment_and_get()

        if operation.safe_try_complete_or_else(watch_all):
            return True

        if not operation.is_completed:
            self._timer.add(operation)
            # It may have completed between the check and add(): then take it back out of the timer.
            if operation.is_completed:
                operation.cancel()
        return False

    def check_and_complete(self, key: Hashable) -> int:
        """An event happened on key (an append, a HW move): try the operations watching it.

        Returns the number of operations this call completed. Call it without holding any lock that
        an operation's try_complete also takes, or two threads can deadlock.
        """
        wl = self._watcher_list(key)
        with wl.lock:
            watchers = wl.watchers_by_key.get(key)
        if watchers is None:
            return 0
        completed = watchers.try_complete_watched()
        if watchers.is_empty():
            self._remove_key_if_empty(key, watchers)
        if completed:
            log.debug("purgatory_unblocked", purgatory=self.name, key=str(key), completed=completed)
        return completed

    def cancel_for_key(self, key: Hashable) -> list[T]:
        """Stop watching every operation under key without completing them (e.g. a partition moved away)."""
        wl = self._watcher_list(key)
        with wl.lock:
            watchers = wl.watchers_by_key.pop(key, None)
        return watchers.cancel() if watchers is not None else []

    # ----------------------------------------------------------------------------------------
    # Gauges (Kafka's PurgatorySize and NumDelayedOperations, tagged delayedOperation=<name>)

    def watched(self) -> int:
        """Total length of all watch lists. An operation watched under n keys counts n times, and a
        completed one counts until purged, so this may exceed the number of waiting operations."""
        return sum(w.count_watched() for wl in self._watcher_lists for w in wl.all_watchers())

    def num_delayed(self) -> int:
        """Operations still waiting in the timer, i.e. neither completed nor expired."""
        return self._timer.size()

    def watched_keys(self) -> list[Hashable]:
        """The keys that currently have a watcher list (for tests and debugging)."""
        return [w.key for wl in self._watcher_lists for w in wl.all_watchers()]

    # ----------------------------------------------------------------------------------------
    # Expiry and purge

    def advance_clock(self, timeout_ms: float) -> bool:
        """Expire what is due (waiting up to timeout_ms), then purge if enough completed ops linger.

        The reaper thread calls this in a loop; tests with reaper_enabled=False call it directly.
        Returns True if the timer expired a bucket.
        """
        advanced = self._timer.advance_clock(timeout_ms)
        # Operations watched since the last purge minus those still in the timer = operations that
        # completed or expired but may still sit on watch lists.
        if self._estimated_total_operations.get() - self.num_delayed() > self.purge_interval:
            # Reset before sweeping; ops completed during the sweep make the next estimate a bit high,
            # which only means an earlier purge.
            self._estimated_total_operations.set(self.num_delayed())
            purged = self._purge_completed()
            log.debug("purgatory_purged", purgatory=self.name, purged=purged)
        return advanced

    def _purge_completed(self) -> int:
        purged = 0
        for wl in self._watcher_lists:
            for watchers in wl.all_watchers():
                purged += watchers.purge_completed()
                if watchers.is_empty():
                    self._remove_key_if_empty(watchers.key, watchers)
        return purged

    def shutdown(self) -> None:
        """Stop the reaper promptly and release the timer.

        The reaper may be blocked for seconds inside advance_clock; shutting the timer down wakes
        it (Kafka adds a no-op task for the same purpose), so the join below is short.
        """
        self._expiration_reaper.initiate_shutdown()
        self._timer.shutdown()
        if self._reaper_enabled and self._expiration_reaper is not threading.current_thread():
            self._expiration_reaper.join(timeout=1.0)

    # ----------------------------------------------------------------------------------------
    # Watch lists

    def _watcher_list(self, key: Hashable) -> _WatcherList:
        return self._watcher_lists[hash(key) % SHARDS]

    def _watch_for_operation(self, key: Hashable, operation: T) -> None:
        # Under the stripe lock, so the Watchers we append to cannot be removed from the map meanwhile
        # (removal checks emptiness under the same lock), and the operation is never lost.
        wl = self._watcher_list(key)
        with wl.lock:
            watchers = wl.watchers_by_key.get(key)
            if watchers is None:
                watchers = wl.watchers_by_key[key] = Watchers(key)
            watchers.watch(operation)

    def _remove_key_if_empty(self, key: Hashable, watchers: Watchers) -> None:
        wl = self._watcher_list(key)
        with wl.lock:
            # The key may already map to a newer Watchers (ours was removed and the key re-watched).
            if wl.watchers_by_key.get(key) is watchers and watchers.is_empty():
                del wl.watchers_by_key[key]


class ExpiredOperationReaper(threading.Thread):
    """The background thread that expires timed-out operations (Kafka's ExpiredOperationReaper).

    Named like Kafka's, "ExpirationReaper-<broker_id>-<purgatory name>", so thread dumps read the same.
    Daemon, so a forgotten shutdown() never keeps the interpreter alive.
    """

    def __init__(self, purgatory: DelayedOperationPurgatory) -> None:
        super().__init__(name=f"ExpirationReaper-{purgatory.broker_id}-{purgatory.name}", daemon=True)
        self._purgatory = purgatory
        self._shutdown_initiated = threading.Event()

    def initiate_shutdown(self) -> None:
        self._shutdown_initiated.set()

    def run(self) -> None:
        while not self._shutdown_initiated.is_set():
            try:
                self._purgatory.advance_clock(self._purgatory.reaper_poll_ms)
            except Exception:
                # Kafka's ShutdownableThread would die here; a teaching broker that silently stops
                # expiring requests is worse, so log and keep reaping.
                log.exception("expiration_reaper_error", purgatory=self._purgatory.name)
                # Back off a little so a persistent fault cannot spin this thread.
                self._shutdown_initiated.wait(REAPER_POLL_MS / 1000)
