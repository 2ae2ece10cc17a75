"""free_port: a loopback port for a process this one is about to start (the demo's broker, a Spark
standalone master and its workers, the test suite's brokers and clusters).

Binding port 0 asks the kernel for a free port; the port is released again before the new process
binds it. The kernel may hand the same port out twice in a row, and a node given one port for two of
its listeners cannot start ("Address already in use"), so a port handed out once is never handed
out again by this process.
"""

from __future__ import annotations

import socket
import threading

_handed_out: set[int] = set()
_lock = threading.Lock()


def free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with _lock:
            if port not in _handed_out:
                _handed_out.add(port)
                return port
