"""PrometheusExporter: serves /metrics over HTTP on `metrics.listener` (what the Prometheus JMX
exporter agent does for a JVM broker, here built in and started and stopped with the broker).

Besides /metrics it serves any plain-text pages the broker adds (the request trace at /requests),
so a learner needs one address for everything the broker can tell about itself. The HTTP server
under it (kafka/metrics/http_server.py) serves them from a fixed pool of threads, with timeouts.
"""

from __future__ import annotations

import io
import socket
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import structlog
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from kafka.metrics.http_server import Clock, HTTPServer, SocketWriter

log = structlog.get_logger("kafka.metrics.PrometheusExporter")

# A text page: gets the query string's parameters, returns the body.
TextPage = Callable[[Mapping[str, list[str]]], str]
TEXT = "text/plain; charset=utf-8"


def parse_metrics_listener(value: str) -> tuple[str, int] | None:
    """`http://host:port` -> (host, port); empty -> None (no endpoint). Raises ValueError otherwise."""
    value = value.strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme != "http" or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError("expected http://host:port, or empty to disable")
    try:
        port = parts.port
    except ValueError as e:
        raise ValueError(f"bad port: {e}") from None
    if port is None:
        raise ValueError("expected http://host:port (the port is required; 0 picks a free one)")
    return parts.hostname, port


class PrometheusExporter:
    def __init__(self, host: str, port: int, exposition: Callable[[], bytes],
                 pages: Mapping[str, TextPage] | None, time: Clock) -> None:
        self.exposition = exposition
        self.pages = dict(pages or {})
        self._handler_class = self._make_handler_class()
        try:
            self._server = HTTPServer(host, port, self._answer, time)
        except OSError as e:
            # socket.create_server appends "(while attempting to bind on address ...)": we said it already
            reason = f"[Errno {e.errno}] {(e.strerror or str(e)).partition(' (while attempting')[0]}"
            raise OSError(f"metrics.listener: cannot bind http://{host}:{port}: {reason}") from e

    @property
    def bound_port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self._server.server_address[0]}:{self.bound_port}"

    def startup(self) -> None:
        self._server.startup()

    def shutdown(self) -> None:
        self._server.shutdown()

    def _answer(self, sock: socket.socket, client: tuple, head: bytes) -> None:
        """On a pool thread: http.server parses the head the selector read, and writes the answer."""
        self._handler_class(sock, client, head)

    def _make_handler_class(self) -> type[BaseHTTPRequestHandler]:
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def __init__(self, sock: socket.socket, client: tuple, head: bytes) -> None:
                self.head = head
                super().__init__(sock, client, exporter)

            def setup(self) -> None:
                self.connection = self.request
                self.rfile = io.BytesIO(self.head)
                self.wfile = SocketWriter(self.request)

            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                url = urlsplit(self.path)
                try:
                    status, content_type, body = self._page(url.path, url.query)
                except Exception as e:  # a failing gauge must not take the endpoint down
                    log.exception("metrics page failed", path=url.path)
                    status, content_type, body = 500, TEXT, f"{type(e).__name__}: {e}\n".encode()
                # Outside the try: a client that hangs up now is the pool's to log, in one line.
                self._reply(status, content_type, body)

            def _page(self, path: str, query: str) -> tuple[int, str, bytes]:
                if path == "/metrics":
                    return 200, CONTENT_TYPE_LATEST, exporter.exposition()
                if path in exporter.pages:
                    return 200, TEXT, exporter.pages[path](parse_qs(query)).encode()
                known = ", ".join(["/metrics", *exporter.pages])
                return 404, TEXT, f"not found; try {known}\n".encode()

            def _reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args) -> None:
                log.debug("http request", client=self.client_address[0], line=format % args)

        return Handler
