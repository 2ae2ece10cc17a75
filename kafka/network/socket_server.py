"""SocketServer: the broker's network layer (Kafka's kafka.network.SocketServer).

For every listener one Acceptor thread, and num.network.threads Processor threads per listener,
all sharing one RequestChannel with the I/O threads. The network layer knows requests only as
frames with a parsed header; what a request means is the server layer's business.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from kafka.network.acceptor import Acceptor
from kafka.network.end_point import EndPoint
from kafka.network.processor import Processor
from kafka.network.request_channel import RequestChannel

log = structlog.get_logger("kafka.network.SocketServer")


class SocketServer:
    def __init__(self, listeners: Sequence[EndPoint], num_network_threads: int,
                 socket_request_max_bytes: int, request_channel: RequestChannel) -> None:
        self.listeners = list(listeners)
        self.num_network_threads = num_network_threads
        self.socket_request_max_bytes = socket_request_max_bytes
        self.request_channel = request_channel
        self.acceptors: dict[str, Acceptor] = {}
        self.processors: list[Processor] = []

    def startup(self) -> None:
        """Bind every listener (failing fast if a port is taken), then start the threads."""
        next_id = 0
        for end_point in self.listeners:
            processors = []
            for _ in range(self.num_network_threads):
                processor = Processor(next_id, end_point.listener_name, self.request_channel,
                                      self.socket_request_max_bytes)
                next_id += 1
                self.request_channel.add_processor(processor)
                processors.append(processor)
            self.acceptors[end_point.listener_name] = Acceptor(end_point, processors)
            self.processors.extend(processors)
        for processor in self.processors:
            processor.start()
        for acceptor in self.acceptors.values():
            acceptor.start()
            log.info("listening", listener=acceptor.end_point.listener_name,
                     host=acceptor.end_point.host, port=acceptor.bound_port)

    def bound_port(self, listener_name: str) -> int:
        return self.acceptors[listener_name].bound_port

    def shutdown(self) -> None:
        for acceptor in self.acceptors.values():
            acceptor.shutdown()
        for processor in self.processors:
            processor.shutdown()
        for thread in [*self.acceptors.values(), *self.processors]:
            if thread.is_alive():
                thread.join(timeout=5)
        for processor in self.processors:
            self.request_channel.remove_processor(processor.id)
