"""DelayedOperation: a request that waits in a purgatory (Kafka's kafka.server.DelayedOperation).

Seed 000 "Purgatories and Delayed Operations": the base operation that DelayedProduce and DelayedFetch
extend, with try_complete / on_complete / on_expiration. Seed 002 "Purgatory holds requests until
replicated": an operation either completes early (enough acks, enough bytes) or expires on its timeout;
both roads end in on_complete, exactly once, which sends the response.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from kafka.utils.timer.timer_task import TimerTask


class DelayedOperation(TimerTask):
    """An operation whose processing is delayed for at most delay_ms.

    Subclasses implement:
      * try_complete(): check whether the operation can finish now; if so call force_complete() and
        return its result. Called by the purgatory, always under `self.lock`.
      * on_complete(): build and send the response. Runs exactly once, by whichever thread won.
      * on_expiration(): extra work when the timeout, not the condition, finished the operation
        (Kafka records expiration metrics here). Runs after on_complete, on the reaper thread.
    """

    def __init__(self, delay_ms: int, lock: AbstractContextManager[Any] | None = None) -> None:
        super().__init__(delay_ms)
        # The completed flag must be a compare-and-set: an append's check_and_complete and the
        # reaper's expiry can reach force_complete at the same moment, and only one may win.
        self._completed = False
        self._completed_lock = threading.Lock()
        # Serialises try_complete calls. A caller may share one lock among operations that touch the
        # same state (Kafka passes the group lock to DelayedJoin); reentrant by default because
        # try_complete -> force_complete -> on_complete may come back into the same purgatory.
        self.lock = lock if lock is not None else threading.RLock()

    def force_complete(self) -> bool:
        """Complete now if nobody has yet. True only for the single caller that completed it.

        Called from try_complete() when the condition holds, and from run() on expiry.
        """
        with self._completed_lock:
            if self._completed:
                return False
            self._completed = True
        # Outside the flag lock: on_complete may be slow and may call back into the purgatory.
        # Cancel first so the timer stops counting (and will not expire) a finished operation.
        self.cancel()
        self.on_complete()
        return True

    @property
    def is_completed(self) -> bool:
        return self._completed

    @abstractmethod
    def try_complete(self) -> bool:
        """If the operation can complete now, call force_complete() and return its result; else False."""

    @abstractmethod
    def on_complete(self) -> None:
        """The completion logic (send the response). Called exactly once, from force_complete()."""

    @abstractmethod
    def on_expiration(self) -> None:
        """Called after on_complete() when the operation completed because it timed out."""

    def safe_try_complete(self) -> bool:
        """try_complete() under the operation's lock.

        Kafka once used tryLock here (maybeTryComplete: skip if another thread holds the lock and ask it
        to retry) to dodge deadlocks; KAFKA-8334 replaced that with a plain lock, plus holding the lock
        through the whole of try_complete_else_watch (see safe_try_complete_or_else). We follow the
        current design: simpler to reason about, and no completion can be lost to a skipped check.
        The rule that keeps it deadlock-free: never call check_and_complete() while holding a lock
        that some try_complete() also takes.
        """
        with self.lock:
            return self.try_complete()

    def safe_try_complete_or_else(self, f: Callable[[], Any]) -> bool:
        """Under the lock: try_complete(); if that fails run f (watch the keys) and try once more.

        Holding the lock across both checks means a check_and_complete() racing with the watch cannot
        slip in between: it either waits for us or runs after we are on every watch list.
        """
        with self.lock:
            if self.try_complete():
                return True
            f()
            return self.try_complete()

    def run(self) -> None:
        """Expiry, called by the timer: complete if nobody has, then note the expiration."""
        if self.force_complete():
            self.on_expiration()
