"""A raw-socket Kafka client for tests that need to send exactly the bytes they mean (bad input,
specific versions). It uses the protocol package's own codec for the well-formed parts."""

from __future__ import annotations

import socket
import struct

from kafka.protocol.api_keys import APIS
from kafka.protocol.header import decode_response, encode_request


class WireClient:
    def __init__(self, port: int, timeout: float = 10.0, source_address: str | None = None,
                 host: str = "127.0.0.1") -> None:
        # source_address: another loopback address (127.0.0.2, ...) to connect from, as another host would
        self.sock = socket.create_connection((host, port), timeout=timeout,
                                             source_address=(source_address, 0) if source_address else None)
        self.correlation_id = 0

    def send_frame(self, payload: bytes) -> None:
        self.sock.sendall(payload)

    def read_frame(self) -> bytes:
        size = struct.unpack(">i", self._read_exactly(4))[0]
        return self._read_exactly(size)

    def _read_exactly(self, n: int) -> bytes:
        chunks = []
        while n:
            chunk = self.sock.recv(n)
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def request(self, api_key: int, version: int, body: dict):
        api = APIS[api_key]
        self.correlation_id += 1
        self.send_frame(encode_request(api, version, self.correlation_id, "wire-test", body))
        correlation_id, response = decode_response(api, version, self.read_frame())
        assert correlation_id == self.correlation_id
        return response

    def is_closed_by_broker(self) -> bool:
        """True once the broker has closed this connection (recv returns EOF or a reset)."""
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()
