"""PrometheusExporter: serves /metrics over HTTP on `metrics.listener` (what the Prometheus JMX
exporter agent does for a JVM broker, here built in and started and stopped with the broker).

Besides /metrics it serves any plain-text pages the broker adds (the request trace at /requests),
so a learner needs one address for everything the broker can tell about itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import structlog
from prometheus_client.exposition import CONTENT_TYPE_LATEST

log = structlog.get_logger("kafka.metrics.PrometheusExporter")

# A text page: gets the query string's parameters, returns the body.
TextPage = Callable[[Mapping[str, list[str]]], str]


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
                 pages: Mapping[str, TextPage] | None = None) -> None:
        self.exposition = exposition
        self.pages = dict(pages or {})
        try:
            self._server = ThreadingHTTPServer((host, port), self._handler_class())
        except OSError as e:
            raise OSError(f"cannot bind metrics.listener http://{host}:{port}: {e.strerror}") from e
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="prometheus-exporter",
                                        daemon=True)

    @property
    def bound_port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self._server.server_address[0]}:{self.bound_port}"

    def startup(self) -> None:
        self._thread.start()

    def shutdown(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server name)
                url = urlsplit(self.path)
                try:
                    if url.path == "/metrics":
                        self._reply(200, CONTENT_TYPE_LATEST, exporter.exposition())
                        return
                    if url.path in exporter.pages:
                        body = exporter.pages[url.path](parse_qs(url.query))
                        self._reply(200, "text/plain; charset=utf-8", body.encode())
                        return
                except Exception as e:  # a failing gauge must not take the endpoint down
                    log.exception("metrics page failed", path=url.path)
                    self._reply(500, "text/plain; charset=utf-8", f"{type(e).__name__}: {e}\n".encode())
                    return
                known = ", ".join(["/metrics", *exporter.pages])
                self._reply(404, "text/plain; charset=utf-8", f"not found; try {known}\n".encode())

            def _reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args) -> None:
                log.debug("http request", client=self.client_address[0], line=format % args)

        return Handler
