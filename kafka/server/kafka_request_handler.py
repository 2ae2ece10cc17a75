"""KafkaRequestHandler and KafkaRequestHandlerPool: the I/O threads (Kafka's
kafka.server.KafkaRequestHandler).

Seed 002: "the request will be picked up by the second main pool in Kafka. These are called I/O
threads ... each I/O thread can be used to handle requests from any client." A pool of
num.io.threads threads takes requests from the shared queue and hands each to KafkaApis. A handler
never waits for a slow request: requests that must wait park in a purgatory and free the thread. The
pool's size changes at run time with the dynamic config (`resize_thread_pool`, docs/dynamic_configs.md).

An idle handler blocks on the queue until a request or the shutdown marker arrives (Kafka polls
every 300 ms; a Python thread woken for nothing costs the whole process the GIL), so an idle
broker's I/O threads cost nothing.

A handler that raises is logged with its traceback and answered with the request's error response.
The same failure again -- a lab handout's TODO, which every consumer's fetch at the end of a log
reaches twice a second -- is logged once per `errors`' interval with the count it stands for, so the
first traceback is not buried under thousands of copies.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import structlog

from kafka.network.request_channel import Request, RequestChannel, deferred_wakeups
from kafka.utils.logging import LOG_CONTEXT
from kafka.utils.repeated_error_log import RepeatedErrorLog


class KafkaRequestHandler(threading.Thread):
    def __init__(self, handler_id: int, request_channel: RequestChannel, apis, plane: str = "data-plane",
                 errors: RepeatedErrorLog | None = None) -> None:
        super().__init__(name=f"{plane}-kafka-request-handler-{handler_id}", daemon=True)
        self.handler_id = handler_id
        self.errors = errors  # None: every failure logged
        self.request_channel = request_channel
        self.apis = apis
        self._stopping = threading.Event()
        self.retiring: Callable[[], bool] = lambda: False  # the pool is stopping some handlers (resize)
        self._idle_ns = 0  # time spent waiting for a request, up to the last one taken
        self._waiting_since_ns = 0  # when the wait under way began; 0 while handling a request
        self.log = structlog.get_logger("kafka.server.KafkaRequestHandler").bind(handler=handler_id)

    def run(self) -> None:
        while not self._stopping.is_set():
            self._waiting_since_ns = started = time.monotonic_ns()
            request = self.request_channel.receive_request(timeout=None)
            self._waiting_since_ns = 0
            self._idle_ns += time.monotonic_ns() - started
            if request is None:  # the shutdown marker: for a handler the pool is retiring, if not this one
                if not self._stopping.is_set() and self.retiring():
                    self.request_channel.wake_handlers(1)
                continue
            # Whatever KafkaApis and the managers log while handling it names the request.
            token = LOG_CONTEXT.set(request.log_context)
            try:
                with deferred_wakeups():  # the network threads wake once, when the request is done
                    self.apis.handle(request)
            except Exception as e:  # a bug in one handler must not kill the thread or the broker
                self._log_failure(request, e)
                self.apis.handle_error(request)
            finally:
                request.release_buffer()  # its bytes go back to the MemoryPool (queued.max.request.bytes)
                LOG_CONTEXT.reset(token)

    def _log_failure(self, request: Request, error: Exception) -> None:
        """With its traceback; a failure already logged (same API, same exception and message) at most
        once per interval of `errors`, the line saying how many it stands for."""
        if self.errors is None:
            self.log.exception("error handling request", request=repr(request))
            return
        key = ("error handling request", request.header.api_key, type(error).__name__, str(error))
        self.errors.error("error handling request", key=key, request=repr(request), handler=self.handler_id,
                          exc_info=True)

    @property
    def idle_time_ns(self) -> int:
        """Nanoseconds spent waiting for requests, the wait under way included
        (RequestHandlerAvgIdlePercent)."""
        waiting_since = self._waiting_since_ns
        return self._idle_ns + (time.monotonic_ns() - waiting_since if waiting_since else 0)

    def stop(self) -> None:
        self._stopping.set()

    @property
    def is_stopping(self) -> bool:
        return self._stopping.is_set()


class KafkaRequestHandlerPool:
    def __init__(self, request_channel: RequestChannel, apis, num_threads: int, plane: str = "data-plane",
                 errors: RepeatedErrorLog | None = None) -> None:
        self.request_channel = request_channel
        self.apis, self.plane, self.errors = apis, plane, errors
        self.handlers: list[KafkaRequestHandler] = []
        self._retiring: list[KafkaRequestHandler] = []
        self._retired_idle_ns = 0  # what handlers let go had waited: RequestHandlerAvgIdlePercent keeps it
        self._started = False
        self._lock = threading.Lock()
        for _ in range(num_threads):
            self._create_handler()

    def _create_handler(self) -> KafkaRequestHandler:
        handler = KafkaRequestHandler(len(self.handlers), self.request_channel, self.apis, self.plane,
                                      self.errors)
        handler.retiring = self._has_retiring
        self.handlers = [*self.handlers, handler]  # a new list: the metrics read the old one meanwhile
        return handler

    def startup(self) -> None:
        self._started = True
        for handler in self.handlers:
            handler.start()

    def resize_thread_pool(self, new_size: int) -> None:
        """num.io.threads changed at run time (Kafka's resizeThreadPool): new handlers start at once; a
        handler let go finishes the request it holds, then stops (no request in the queue is lost: the
        others take them)."""
        with self._lock:
            while len(self.handlers) < new_size:
                handler = self._create_handler()
                if self._started:
                    handler.start()
            retired = self.handlers[new_size:]
            self.handlers = self.handlers[:new_size]
            self._retiring = [h for h in self._retiring if h.is_alive()] + retired
            for handler in retired:
                self._retired_idle_ns += handler.idle_time_ns
                handler.stop()
            if self._started:
                self.request_channel.wake_handlers(len(retired))

    def idle_times_ns(self) -> list[int]:
        """Each running handler's total ns spent waiting (RequestHandlerAvgIdlePercent), the ones let go
        counted in the first, so that the pool's total never goes back when it shrinks."""
        times = [h.idle_time_ns for h in self.handlers]
        if times:
            times[0] += self._retired_idle_ns
        return times

    def _has_retiring(self) -> bool:
        return any(h.is_alive() and h.is_stopping for h in self._retiring)

    def shutdown(self) -> None:
        handlers = [*self.handlers, *self._retiring]
        for handler in handlers:
            handler.stop()
        self.request_channel.wake_handlers(len(handlers))
        for handler in handlers:
            if handler.is_alive():  # a node stopped while still waiting for its quorum never started them
                handler.join(timeout=5)
