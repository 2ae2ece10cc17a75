"""Acceptor: the thread that accepts connections on one listener (Kafka's kafka.network.Acceptor).

It does nothing but accept: each new socket goes, round-robin, to one of the Processors, which
"will stick to that particular client for the rest of its life" (seed 002).
"""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Sequence

import structlog

from kafka.network.end_point import EndPoint
from kafka.network.processor import Processor

POLL_TIMEOUT_S = 0.5


class Acceptor(threading.Thread):
    def __init__(self, end_point: EndPoint, processors: Sequence[Processor], backlog: int = 128) -> None:
        super().__init__(name=f"data-plane-kafka-socket-acceptor-{end_point.listener_name}", daemon=True)
        self.end_point = end_point
        self.processors = list(processors)
        self._next_processor = 0
        self._running = True
        self.server_socket = self._open_server_socket(end_point, backlog)
        self.log = structlog.get_logger("kafka.network.Acceptor").bind(listener=end_point.listener_name)

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
        while True:
            try:
                sock, _ = self.server_socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:  # e.g. too many open files: log it and keep the listener alive
                self.log.error("accept failed", error=str(e))
                return
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            processor = self.processors[self._next_processor % len(self.processors)]
            self._next_processor += 1
            processor.accept(sock)

    def shutdown(self) -> None:
        self._running = False
