"""The dashboard's web server: our pages, Prometheus's HTTP API behind them, and the consumer-lag page.

A Prometheus console (Prometheus's own consoles/ directory plays this part) in a small Python server:

    /journey, /data, /cluster, /groups, /clients   a page of panels (static/index.html draws any of them)
    /panels.json                                   the panels and their PromQL (panels.py), for the script
    /api/v1/...                                    passed to Prometheus as is, so the page has one origin
    /consumer-lag/metrics                          kafka_consumergroup_lag, for Prometheus to scrape
    /static/...                                    the page's script and style, from this package

Nothing is fetched from outside this machine: the charts are drawn by static/line_chart.js.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import structlog

from kafka.tools.dashboard.consumer_lag_exporter import ConsumerLagExporter
from kafka.tools.dashboard.panels import PAGES, RATE_INTERVAL, as_json
from kafka.tools.dashboard.prometheus_config import LAG_PATH

log = structlog.get_logger("kafka.tools.dashboard.DashboardServer")

STATIC = Path(__file__).parent / "static"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8"}
PROXY_TIMEOUT_S = 30


class DashboardServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, prometheus_url: str, targets: list[str],
                 lag_exporter: ConsumerLagExporter | None, refresh_s: float = 5.0) -> None:
        super().__init__((host, port), DashboardHandler)
        self.prometheus_url = prometheus_url
        self.lag_exporter = lag_exporter
        self.settings = {"pages": as_json(), "rate_interval": RATE_INTERVAL, "targets": targets,
                         "prometheus": prometheus_url, "refresh_s": refresh_s}
        self._serving = False

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def serve(self) -> None:
        """Answer requests until stop() (kafka-dashboard serves on its main thread)."""
        self._serving = True
        self.serve_forever()

    def start(self) -> None:
        """Serve on a thread of its own (the tests and the screenshots)."""
        threading.Thread(target=self.serve, name="kafka-dashboard-http", daemon=True).start()

    def stop(self) -> None:
        if self._serving:  # shutdown() waits for serve_forever to return: only if it ever ran
            self.shutdown()
        self.server_close()
        if self.lag_exporter is not None:
            self.lag_exporter.close()


class DashboardHandler(BaseHTTPRequestHandler):
    server: DashboardServer
    server_version = "kafka-dashboard"

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path, _, query = self.path.partition("?")
        if path == "/":
            self._redirect(f"/{PAGES[0].slug}")
        elif path.strip("/") in {page.slug for page in PAGES}:
            self._file(STATIC / "index.html")
        elif path.startswith("/static/") and Path(path).name in _static_files():
            self._file(STATIC / Path(path).name)  # by name alone: no path reaches outside static/
        elif path == "/panels.json":
            self._send(HTTPStatus.OK, "application/json", json.dumps(self.server.settings).encode())
        elif path.startswith("/api/v1/"):
            self._proxy(path, query)
        elif path == LAG_PATH and self.server.lag_exporter is not None:
            self._send(HTTPStatus.OK, "text/plain; version=0.0.4", self.server.lag_exporter.render().encode())
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", f"no page {path}: try /{PAGES[0].slug}\n".encode())

    def _proxy(self, path: str, query: str) -> None:
        url = f"{self.server.prometheus_url}{path}" + (f"?{query}" if query else "")
        try:
            with urllib.request.urlopen(url, timeout=PROXY_TIMEOUT_S) as response:
                self._send(response.status, response.headers.get("Content-Type", "application/json"),
                           response.read())
        except urllib.error.HTTPError as e:  # a bad query: Prometheus's own error, with its status
            self._send(e.code, e.headers.get("Content-Type", "application/json"), e.read())
        except OSError as e:
            body = {"status": "error", "errorType": "unavailable",
                    "error": f"Prometheus is not answering at {self.server.prometheus_url}: {e}"}
            self._send(HTTPStatus.BAD_GATEWAY, "application/json", json.dumps(body).encode())

    def _file(self, path: Path) -> None:
        self._send(HTTPStatus.OK, _TYPES.get(path.suffix, "application/octet-stream"), path.read_bytes())

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the browser moved on: nothing to answer
            pass

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
        log.debug("http", request=format % args)


def _static_files() -> set[str]:
    return {p.name for p in STATIC.iterdir() if p.is_file()}
