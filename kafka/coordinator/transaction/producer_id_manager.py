"""RPCProducerIdManager: producer ids from blocks the controller allocates (Kafka's
kafka.coordinator.transaction.RPCProducerIdManager, KIP-730).

Seed 004, idempotence: every idempotent producer needs a producer id that no other producer in the
cluster ever had. The broker hands ids out of a block of 1000 the active controller gave it
(AllocateProducerIds, with this broker's id and epoch) and asks for the next block once 90% of the
current one is used, so the next block is usually there before the current one runs out.

Nothing here blocks the caller. With no id left and no block at hand, Kafka answers at once with
COORDINATOR_LOAD_IN_PROGRESS (retriable: the producer tries again) and asks the controller;
`generate_producer_id` does exactly that. `generate_producer_id_or_wait` is what InitProducerId
uses: when a block is already on its way, the request waits for it -- parked as a callback, its I/O
thread free -- instead of costing the producer a retry backoff on the very first InitProducerId a
broker sees; if that block cannot come, it gets COORDINATOR_LOAD_IN_PROGRESS after all. A failed
AllocateProducerIds (the controller unreachable, a stale broker epoch) is logged and asked again
after RETRY_BACKOFF_MS, the next time an id is wanted.

The controller is reached through `send_request(body, callback(response or None, error))`, which
the server wires to its NodeToControllerChannelManager: the coordinator package knows no sockets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import structlog

from kafka.protocol.errors import Errors
from kafka.utils.producer_ids_block import EMPTY, ProducerIdsBlock
from kafka.utils.time import Time

log = structlog.get_logger("kafka.coordinator.transaction.RPCProducerIdManager")

RETRY_BACKOFF_MS = 50  # Kafka's: after a failed AllocateProducerIds, wait this long before asking again
PID_PREFETCH_THRESHOLD = 0.90  # ask for the next block once this share of the current one is handed out
ITERATION_LIMIT = 3
NO_RETRY = -1
INT64_MAX = 2**63 - 1

SendRequest = Callable[[dict, Callable[[Any, Errors], None]], None]
ProducerIdCallback = Callable[[int, Errors], None]


class ProducerIdsUnavailableError(Exception):
    """No id to hand out now; the producer should retry (Kafka's CoordinatorLoadInProgressException)."""

    error = Errors.COORDINATOR_LOAD_IN_PROGRESS


class RPCProducerIdManager:
    def __init__(self, broker_id: int, time: Time, broker_epoch_supplier: Callable[[], int],
                 send_request: SendRequest) -> None:
        self.broker_id = broker_id
        self.time = time
        self.broker_epoch_supplier = broker_epoch_supplier  # the BrokerLifecycleManager's registration
        self.send_request = send_request
        self._lock = threading.Lock()  # I/O threads claim ids; the channel thread delivers blocks
        self.current_block: ProducerIdsBlock = EMPTY
        self.next_block: ProducerIdsBlock | None = None
        self.request_in_flight = False
        self.backoff_deadline_ms = NO_RETRY
        self._send_pending = False
        self._waiting: list[ProducerIdCallback] = []

    # ------------------------------------------------------------------ handing ids out
    def generate_producer_id(self) -> int:
        """The next id, or ProducerIdsUnavailableError (COORDINATOR_LOAD_IN_PROGRESS) while no block is
        at hand."""
        try:
            with self._lock:
                return self._claim_next_id()
        finally:
            self._send_pending_request()

    def generate_producer_id_or_wait(self, callback: ProducerIdCallback) -> None:
        """callback(producer id, NONE) now or once the block on its way arrives; callback(-1,
        COORDINATOR_LOAD_IN_PROGRESS) when there is none and none can come yet. Never blocks."""
        producer_id, parked = -1, False
        try:
            with self._lock:
                try:
                    producer_id = self._claim_next_id()
                except ProducerIdsUnavailableError:
                    if self.request_in_flight:  # a block is coming: wait for it, not for a retry
                        self._waiting.append(callback)
                        parked = True
        finally:
            self._send_pending_request()
        if not parked:
            callback(producer_id, Errors.NONE if producer_id >= 0 else Errors.COORDINATOR_LOAD_IN_PROGRESS)

    def _claim_next_id(self) -> int:
        for _ in range(ITERATION_LIMIT + 1):
            block = self.current_block
            producer_id = block.claim_next_id()
            if producer_id is not None:
                # Kafka prefetches when the claimed id equals the target; >= also retries a prefetch
                # that failed, after the backoff, instead of waiting for the block to run out.
                if producer_id >= block.first_producer_id + int(block.size * PID_PREFETCH_THRESHOLD):
                    self._maybe_request_next_block()
                return producer_id
            if self.next_block is None:
                self._maybe_request_next_block()
                raise ProducerIdsUnavailableError("producer id block is full; waiting for the next block")
            self.current_block, self.next_block = self.next_block, None
        raise ProducerIdsUnavailableError("producer id block is full; waiting for the next block")

    # ------------------------------------------------------------------ asking the controller
    def _maybe_request_next_block(self) -> None:
        """Under the lock: mark a request to send, unless one is out, a block waits, or we back off."""
        if self.backoff_deadline_ms != NO_RETRY and self.time.hi_res_clock_ms() < self.backoff_deadline_ms:
            return
        if self.next_block is None and not self.request_in_flight:
            self.request_in_flight = True
            self.backoff_deadline_ms = NO_RETRY
            self._send_pending = True

    def _send_pending_request(self) -> None:
        """Outside the lock: the channel may answer on this very thread."""
        with self._lock:
            if not self._send_pending:
                return
            self._send_pending = False
        body = dict(broker_id=self.broker_id, broker_epoch=self.broker_epoch_supplier())
        log.debug("requesting the next producer id block", broker_id=self.broker_id,
                  broker_epoch=body["broker_epoch"])
        try:
            self.send_request(body, self.handle_allocate_producer_ids_response)
        except Exception as e:  # the channel is gone (shutting down): never leave request_in_flight set
            self.handle_allocate_producer_ids_response(None, Errors.BROKER_NOT_AVAILABLE, str(e))

    def handle_allocate_producer_ids_response(self, response, error: Errors,
                                              reason: str | None = None) -> None:
        """The channel's callback: a block, or a failure to retry after RETRY_BACKOFF_MS."""
        with self._lock:
            self.request_in_flight = False
            if error != Errors.NONE:
                log.warning("cannot reach the active controller for a block of producer ids; InitProducerId "
                            "answers COORDINATOR_LOAD_IN_PROGRESS until it can, and the request is retried",
                            error=error.name, reason=reason, retry_backoff_ms=RETRY_BACKOFF_MS)
                got_block = False
            else:
                got_block = self._accept(response)
            if not got_block:
                self.backoff_deadline_ms = self.time.hi_res_clock_ms() + RETRY_BACKOFF_MS
            waiting, self._waiting = self._waiting, []
        for callback in waiting:  # each waiter claims from the new block, or hears it cannot now
            self.generate_producer_id_or_wait(callback)

    def _accept(self, response) -> bool:
        error = Errors.for_code(response.error_code)
        if error == Errors.STALE_BROKER_EPOCH:
            log.warning("the controller says our broker epoch is stale; trying again",
                        broker_id=self.broker_id)
            return False
        if error == Errors.BROKER_ID_NOT_REGISTERED:
            log.warning("the controller does not know our broker id yet; trying again",
                        broker_id=self.broker_id)
            return False
        if error != Errors.NONE:
            log.error("AllocateProducerIds failed", error=error.name)
            return False
        start, length = response.producer_id_start, response.producer_id_len
        if start < self.current_block.last_producer_id:
            log.error("producer id block is not monotonic with the current block",
                      current=repr(self.current_block),
                      producer_id_start=start, producer_id_len=length)
            return False
        if start < 0 or length <= 0 or start > INT64_MAX - length:
            log.error("producer id block includes an invalid id range", producer_id_start=start,
                      producer_id_len=length)
            return False
        self.next_block = ProducerIdsBlock(self.broker_id, start, length)
        log.info("got a block of producer ids from the controller", first_producer_id=start,
                 last_producer_id=self.next_block.last_producer_id)
        return True
