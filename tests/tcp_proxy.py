"""A TCP proxy on loopback that can stop passing a broker's responses back to its clients.

Seed 004's case for idempotence is "replication is done but the Produce Response does not reach the
producer (which retries)". A test puts this proxy between a real client and a real broker (the
broker advertises the proxy's port, so every connection goes through it) and calls
`drop_responses()`: from then on the connections already open still carry requests to the broker,
which appends them, but the answers are thrown away, exactly the lost response of the seed. New
connections (the client reconnecting after its request timeout, or to a restarted broker) pass
everything again.
"""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._lock = threading.Lock()
        self._connections: list[_ProxiedConnection] = []
        self._closed = False
        threading.Thread(target=self._accept_loop, name="tcp-proxy-acceptor", daemon=True).start()

    def drop_responses(self) -> None:
        """The connections open now keep sending requests, but their responses are lost."""
        with self._lock:
            for connection in self._connections:
                connection.dropping = True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
        self._server.close()
        for connection in connections:
            connection.close()

    def _accept_loop(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            try:
                broker = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()  # the broker is down: the client sees a refused-like close and retries
                continue
            broker.settimeout(None)
            connection = _ProxiedConnection(client, broker)
            with self._lock:
                if self._closed:
                    connection.close()
                    return
                self._connections = [c for c in self._connections if not c.closed] + [connection]
            connection.start()


class _ProxiedConnection:
    def __init__(self, client: socket.socket, broker: socket.socket) -> None:
        self.client = client
        self.broker = broker
        self.dropping = False
        self.closed = False

    def start(self) -> None:
        threading.Thread(target=self._pump, args=(self.client, self.broker, False), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.broker, self.client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, responses: bool) -> None:
        try:
            while data := source.recv(65536):
                if not (responses and self.dropping):
                    sink.sendall(data)
        except OSError:
            pass
        self.close()  # either side gone (a killed broker, a client giving up): close both

    def close(self) -> None:
        self.closed = True
        for sock in (self.client, self.broker):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
