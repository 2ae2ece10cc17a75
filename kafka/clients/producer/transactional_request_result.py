"""TransactionalRequestResult: what init_transactions, send_offsets_to_transaction and
commit/abort_transaction wait on (Kafka's producer.internals.TransactionalRequestResult).

The Sender thread sends the requests and completes the result; the application thread waits,
bounded by max.block.ms, and raises the error the request ended with.
"""

from __future__ import annotations

import threading

from kafka.clients.errors import KafkaError, KafkaTimeoutError


class TransactionalRequestResult:
    def __init__(self, operation: str) -> None:
        self.operation = operation
        self._done = threading.Event()
        self.error: KafkaError | None = None

    def done(self, error: KafkaError | None = None) -> None:
        if not self._done.is_set():
            self.error = error
            self._done.set()

    def is_completed(self) -> bool:
        return self._done.is_set()

    def await_(self, timeout_ms: int) -> None:
        """Block until done; raise its error, or a timeout (the operation may still finish: retry it)."""
        if not self._done.wait(timeout_ms / 1000):
            raise KafkaTimeoutError(f"timeout expired after {timeout_ms} ms while awaiting {self.operation}")
        if self.error is not None:
            raise self.error
