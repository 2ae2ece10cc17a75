"""Acceptor: the thread that accepts connections on one listener (Kafka's kafka.network.Acceptor).

It does nothing but accept: each new socket is counted in ConnectionQuotas, then goes, round-robin,
to one of the Processors, which "will stick to that particular client for the rest of its life"
(seed 002). ConnectionQuotas may make it wait (max.connections, max.connection.creation.rate): the
time it spends blocked is AcceptorBlockedPercent. A connection over max.connections.per.ip is
closed at once.

When accept() fails because the process (EMFILE) or the system (ENFILE) has no file descriptor
left, the pending connection stays in the listen backlog and the listening socket stays readable:
retrying at once would spin a core and write a log line per try. The Acceptor pauses for
BACKOFF_S instead, says so at most once per interval, and carries on when descriptors come back.
"""

from __future__ import annotations

import errno
import selectors
import socket
import threading
from collections.abc import Sequence

import structlog

from kafka.network.connection_quotas import ConnectionQuotas, TooManyConnectionsError
from kafka.network.end_point import EndPoint
from kafka.network.processor import Processor
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import Time

POLL_TIMEOUT_S = 0.5
BACKOFF_S = POLL_TIMEOUT_S  # how long to stop accepting after EMFILE/ENFILE
LOG_INTERVAL_MS = 10_000  # one line per kind of accept failure (or refused address) at most this often
OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE)


class Acceptor(threading.Thread):
    def __init__(self, end_point: EndPoint, processors: Sequence[Processor],
                 connection_quotas: ConnectionQuotas,
                 time: Time, backlog: int = 128) -> None:
        super().__init__(name=f"data-plane-kafka-socket-acceptor-{end_point.listener_name}", daemon=True)
        self.end_point = end_point
        self.processors = list(processors)
        self.connection_quotas = connection_quotas
        self.time = time
        self._next_processor = 0
        self._running = True
        self._stopped = threading.Event()  # wakes a back-off early at shutdown
        self.blocked_time_ns = 0  # waiting on ConnectionQuotas: AcceptorBlockedPercent
        self.server_socket = self._open_server_socket(end_point, backlog)
        self.log = structlog.get_logger("kafka.network.Acceptor").bind(listener=end_point.listener_name)
        self.repeated_errors = RepeatedErrorLog(self.log, time, interval_ms=LOG_INTERVAL_MS)

    @staticmethod
    def _open_server_socket(end_point: EndPoint, backlog: int) -> socket.socket:
        family = socket.AF_INET6 if ":" in end_point.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((end_point.host or "0.0.0.0", end_point.port))
        except OSError as e:
            sock.close()
            raise OSError(f"cannot bind listener {end_point.connection_string}: {e.strerror}") from e
        sock.listen(backlog)
        sock.setblocking(False)
        return sock

    @property
    def bound_port(self) -> int:
        return self.server_socket.getsockname()[1]

    def run(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.server_socket, selectors.EVENT_READ)
            while self._running:
                if selector.select(POLL_TIMEOUT_S):
                    self.accept_new_connections()
        self.server_socket.close()

    def accept_new_connections(self) -> None:
        while self._running:
            try:
                sock, address = self.server_socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                self.accept_failed(e)
                return
            self.configure_and_assign(sock, address[0])

    def accept_failed(self, error: OSError) -> None:
        if error.errno in OUT_OF_DESCRIPTORS:
            self.repeated_errors.error("accept failed: no file descriptor left; pausing the acceptor",
                                       key=error.errno, error=str(error), pause_s=BACKOFF_S)
            self._stopped.wait(BACKOFF_S)
        else:  # e.g. the client reset the connection before we took it: nothing to wait for
            self.repeated_errors.warning("accept failed", key=error.errno, error=str(error))

    def configure_and_assign(self, sock: socket.socket, ip: str) -> None:
        try:
            self.blocked_time_ns += self.connection_quotas.inc(self.end_point.listener_name, ip,
                                                               keep_waiting=lambda: self._running)
        except TooManyConnectionsError as e:
            self.repeated_errors.log("info", "rejected connection: the address already has the configured "
                                    "maximum of connections (max.connections.per.ip)", key=("ip", e.ip),
                                    ip=e.ip, max_connections=e.count)
            sock.close()
            self.connection_quotas.dec(self.end_point.listener_name, ip)
            return
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        processors = self.processors  # once: num.network.threads may change it meanwhile
        processor = processors[self._next_processor % len(processors)]
        self._next_processor += 1
        processor.accept(sock, ip)

    def shutdown(self) -> None:
        self._running = False
        self._stopped.set()
        self.connection_quotas.wake_waiting_acceptors()
