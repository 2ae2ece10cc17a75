"""A minimal Debug Adapter Protocol client: what VS Code says to debugpy, for tests.

DAP (https://microsoft.github.io/debug-adapter-protocol/) frames each JSON message with a
`Content-Length` header, as HTTP does. The client sends requests (`seq`, `command`, `arguments`);
the adapter answers each with a response naming `request_seq`, and sends events (`stopped`,
`initialized`, `output`, ...) whenever something happens. This client keeps the events in a list
and lets a test wait for one, so a test can attach to a broker started under debugpy, set a
breakpoint, and watch a real request stop on the I/O thread, exactly as a student does in an IDE.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from typing import Any

from tests.helpers import wait_until


class DapClient:
    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(None)
        self.timeout = timeout
        self._seq = 0
        self._lock = threading.Lock()
        self.responses: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read_forever, name="dap-client-reader", daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ the wire

    def _read_forever(self) -> None:
        buffer = b""
        try:
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                header, buffer = buffer.split(b"\r\n\r\n", 1)
                length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
                while len(buffer) < length:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                body, buffer = buffer[:length], buffer[length:]
                self._dispatch(json.loads(body))
        except OSError:
            return

    def _dispatch(self, message: dict[str, Any]) -> None:
        with self._lock:
            if message["type"] == "response":
                self.responses[message["request_seq"]] = message
            elif message["type"] == "event":
                self.events.append(message)

    def send(self, command: str, **arguments: Any) -> int:
        """Send a request; returns its seq, for `response`."""
        with self._lock:
            self._seq += 1
            seq = self._seq
        body = json.dumps({"seq": seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return seq

    # ------------------------------------------------------------------ waiting

    def response(self, seq: int) -> dict[str, Any]:
        wait_until(lambda: seq in self.responses, timeout=self.timeout,
                   message=f"the DAP response to request {seq}")
        answer = self.responses[seq]
        assert answer["success"], f"{answer['command']} failed: {answer.get('message')}"
        return answer.get("body") or {}

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        return self.response(self.send(command, **arguments))

    def wait_for_event(self, name: str, where: Callable[[dict[str, Any]], bool] = lambda body: True,
                       timeout: float | None = None) -> dict[str, Any]:
        found: list[dict[str, Any]] = []

        def seen() -> bool:
            with self._lock:
                found[:] = [e.get("body") or {} for e in self.events if e["event"] == name
                            and where(e.get("body") or {})]
            return bool(found)

        wait_until(seen, timeout=timeout or self.timeout, message=f"the DAP event {name!r}")
        return found[0]  # an event may have no body ("initialized"): then {}

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
