"""HTTPServer: the small HTTP server under /metrics (the part of the Prometheus JMX exporter's agent
that client_java's `HTTPServer` is: a listening socket and a fixed pool of five daemon threads).

One thread per connection, as Python's ThreadingHTTPServer does it, lets any client that connects
and sends nothing hold a thread for ever. Here the work is split the way the broker's own
SocketServer splits it:

    selector thread   accepts, reads each request's head without blocking, closes a connection
                      that sends nothing for IDLE_TIMEOUT_MS or does not finish its head within
                      READ_TIMEOUT_MS, and hands a complete head to the pool
    pool of threads   renders the page and writes the answer, at most WRITE_TIMEOUT_S per answer

So a thousand silent or half-sent connections cost one selector entry each (at most
MAX_CONNECTIONS of them: the oldest is closed to admit a new one) and no thread, and a scrape is
served as soon as it has sent its request. Each connection carries one request (HTTP/1.0, as
before): Prometheus opens a new connection per scrape when the answer says `Connection: close`.
"""

from __future__ import annotations

import io
import queue
import selectors
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import structlog

log = structlog.get_logger("kafka.metrics.HTTPServer")

POOL_THREADS = 5  # client_java's HTTPServer runs a fixed pool of five
BACKLOG = 50  # Kafka's socket.listen.backlog.size default; the selector drains it at once anyway
MAX_CONNECTIONS = 100  # waiting for their request head; far more than any number of scrapers
MAX_HEAD_BYTES = 8192  # a GET's request line and headers; Prometheus sends a few hundred bytes
IDLE_TIMEOUT_MS = 30_000  # connected and silent
READ_TIMEOUT_MS = 10_000  # a head begun must be complete by then (Prometheus's default scrape_timeout)
WRITE_TIMEOUT_S = 10.0  # the whole answer; a scraper that stops reading frees its thread after this
ACCEPT_BACKOFF_MS = 1000  # after accept fails (out of file descriptors), as the broker's Acceptor waits

# What a client that hangs up (or stops reading) raises on the pool thread: its own doing, one line.
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class Clock(Protocol):
    """The broker's Time (kafka/utils/time.py), which this package may not import."""

    def milliseconds(self) -> int: ...


# Answers one connection whose request head has arrived: (socket, client address, head bytes).
RequestHandler = Callable[[socket.socket, tuple, bytes], None]


@dataclass(eq=False)
class PendingConnection:
    sock: socket.socket
    client: tuple
    deadline_ms: int
    head: bytearray = field(default_factory=bytearray)


class HTTPServer:
    def __init__(self, host: str, port: int, handle: RequestHandler, time: Clock) -> None:
        self.handle = handle
        self.time = time
        self._listener = socket.create_server((host, port), backlog=BACKLOG)
        self._listener.setblocking(False)
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._selector.register(self._wakeup_r, selectors.EVENT_READ)
        self._pending: dict[socket.socket, PendingConnection] = {}  # oldest first
        self._ready: queue.Queue[tuple[socket.socket, tuple, bytes] | None] = queue.Queue()
        self._stopping = False
        self._accept_resume_ms: int | None = None  # accepting paused until then, after accept failed
        self._threads = [threading.Thread(target=self._select_loop, name="prometheus-exporter", daemon=True)]
        self._threads += [threading.Thread(target=self._pool_loop, name=f"prometheus-exporter-handler-{i}",
                                           daemon=True) for i in range(POOL_THREADS)]

    @property
    def server_address(self) -> tuple[str, int]:
        return self._listener.getsockname()[:2]

    def waiting(self) -> dict[tuple, int]:
        """The connections still sending their request: client address -> bytes of it read so far."""
        return {p.client: len(p.head) for p in list(self._pending.values())}

    def startup(self) -> None:
        for thread in self._threads:
            thread.start()

    def shutdown(self) -> None:
        self._stopping = True
        self._wakeup_w.send(b"x")
        for _ in range(POOL_THREADS):
            self._ready.put(None)
        started = [thread for thread in self._threads if thread.ident is not None]
        for thread in started:
            thread.join(timeout=WRITE_TIMEOUT_S)
        if not started:  # the selector thread closes what it owns; it never ran
            self._selector.close()
            self._listener.close()
        self._wakeup_r.close()
        self._wakeup_w.close()

    # ------------------------------------------------------------------ the selector thread
    def _select_loop(self) -> None:
        try:
            while not self._stopping:
                for key, _ in self._selector.select(self._select_timeout_s()):
                    if key.fileobj is self._listener:
                        self._accept()
                    elif key.fileobj is self._wakeup_r:
                        self._wakeup_r.recv(64)
                    else:
                        self._read(self._pending[key.fileobj])
                self._close_expired()
                self._resume_accepting()
        finally:
            for pending in list(self._pending.values()):
                self._close(pending)
            self._selector.close()
            self._listener.close()

    def _select_timeout_s(self) -> float:
        deadlines = [p.deadline_ms for p in self._pending.values()]
        if self._accept_resume_ms is not None:
            deadlines.append(self._accept_resume_ms)
        if not deadlines:
            return 1.0
        return max(0.0, (min(deadlines) - self.time.milliseconds()) / 1000)

    def _resume_accepting(self) -> None:
        if self._accept_resume_ms is not None and self._accept_resume_ms <= self.time.milliseconds():
            self._accept_resume_ms = None
            self._selector.register(self._listener, selectors.EVENT_READ)

    def _accept(self) -> None:
        try:
            sock, client = self._listener.accept()
        except BlockingIOError:
            return
        except OSError as e:  # EMFILE and the like: the backlog keeps the connection; do not spin on it
            log.warning("metrics endpoint cannot accept; trying again in a second", error=e.strerror)
            self._selector.unregister(self._listener)
            self._accept_resume_ms = self.time.milliseconds() + ACCEPT_BACKOFF_MS
            return
        if len(self._pending) >= MAX_CONNECTIONS:
            oldest = next(iter(self._pending.values()))
            log.debug("metrics connection closed to admit a newer one", client=oldest.client[0])
            self._close(oldest)
        sock.setblocking(False)
        self._pending[sock] = PendingConnection(sock, client, self.time.milliseconds() + IDLE_TIMEOUT_MS)
        self._selector.register(sock, selectors.EVENT_READ)

    def _read(self, pending: PendingConnection) -> None:
        try:
            data = pending.sock.recv(MAX_HEAD_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the client hung up before finishing its request
            self._close(pending)
            return
        if not pending.head:
            pending.deadline_ms = self.time.milliseconds() + READ_TIMEOUT_MS
        pending.head += data
        if b"\r\n\r\n" in pending.head or b"\n\n" in pending.head:
            self._selector.unregister(pending.sock)
            del self._pending[pending.sock]
            self._ready.put((pending.sock, pending.client, bytes(pending.head)))
        elif len(pending.head) > MAX_HEAD_BYTES:
            log.debug("metrics request head too large", client=pending.client[0], bytes=len(pending.head))
            self._close(pending)

    def _close_expired(self) -> None:
        now = self.time.milliseconds()
        for pending in [p for p in self._pending.values() if p.deadline_ms <= now]:
            log.debug("metrics connection timed out", client=pending.client[0],
                      waiting_for="the rest of the request" if pending.head else "a request")
            self._close(pending)

    def _close(self, pending: PendingConnection) -> None:
        self._selector.unregister(pending.sock)
        del self._pending[pending.sock]
        pending.sock.close()

    # ------------------------------------------------------------------ the pool threads
    def _pool_loop(self) -> None:
        while (item := self._ready.get()) is not None:
            sock, client, head = item
            if self._stopping:
                sock.close()
                continue
            try:
                sock.setblocking(True)
                sock.settimeout(WRITE_TIMEOUT_S)  # sendall's timeout covers the whole answer
                self.handle(sock, client, head)
            except CLIENT_GONE as e:
                log.info("metrics client went away before its answer was sent", client=client[0],
                         error=type(e).__name__)
            except Exception:  # a bug in a page: this thread must live on for the next scrape
                log.exception("metrics request failed", client=client[0])
            finally:
                sock.close()


class SocketWriter(io.BufferedIOBase):
    """A file over a socket whose every write is a sendall (what http.server's wfile needs)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._sock.sendall(data)
        return len(data)
