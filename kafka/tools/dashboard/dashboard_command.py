"""kafka-dashboard (`make dashboard`): Prometheus scraping the local brokers, and dashboard pages over it.

    kafka-dashboard                                   # Prometheus on 127.0.0.1:9090, the pages on :3000
    kafka-dashboard --port 3001 --prometheus-port 9091

It writes data/dashboard/prometheus.yml (every metrics.listener of config/server.properties,
config/cluster/ and config/cluster-split/, and the consumer-lag page), starts Debian's Prometheus
on it, serves the pages and prints their address. Ctrl-C stops both. Kafka has no such tool: a shop
runs Prometheus, an exporter per broker and Grafana; this is the same picture on one machine.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import logging
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import structlog

from kafka.tools.dashboard.consumer_lag_exporter import ConsumerLagExporter
from kafka.tools.dashboard.dashboard_server import DashboardServer
from kafka.tools.dashboard.panels import PAGES
from kafka.tools.dashboard.prometheus_config import DEFAULT_METRICS_LISTENER, prometheus_yml, scrape_targets
from kafka.tools.dashboard.prometheus_process import PrometheusError, PrometheusProcess
from kafka.utils.logging import configure_logging

DEFAULT_BOOTSTRAP = "127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096"  # make run's, and both clusters'


class PortTaken(Exception):
    """A port someone else listens on; the message names it and the setting that moves it."""


class DataDirInUse(Exception):
    """Another kafka-dashboard's Prometheus keeps its database in the same directory."""


@dataclass(frozen=True)
class DashboardSettings:
    targets: list[str]
    bootstrap_servers: str
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 3000
    prometheus_port: int = 9090
    refresh_s: float = 5.0


def check_port_free(host: str, port: int, what: str, make_variable: str, flag: str) -> None:
    """Fail with a sentence a student can act on if something already listens on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as Prometheus binds: TIME_WAIT is no owner
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as e:
            raise PortTaken(port_taken_message(host, port, what, make_variable, flag)) from e


def port_taken_message(host: str, port: int, what: str, make_variable: str, flag: str) -> str:
    return (f"port {port} on {host}, for {what}, is taken (`ss -ltnp 'sport = :{port}'` shows by whom): "
            f"choose another with `make dashboard {make_variable}={port + 1}` (kafka-dashboard {flag} "
            f"{port + 1})")


class Dashboard:
    """Prometheus and the dashboard server, started together and stopped together."""

    def __init__(self, settings: DashboardSettings) -> None:
        self.settings = settings
        self.server: DashboardServer | None = None
        self.prometheus: PrometheusProcess | None = None
        self._lock = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def start(self, serve_in_thread: bool = True) -> Dashboard:
        s = self.settings
        check_port_free(s.host, s.prometheus_port, "Prometheus", "PROMETHEUS_PORT", "--prometheus-port")
        self._lock_data_dir()
        prometheus_url = f"http://{s.host}:{s.prometheus_port}"
        try:
            self.server = DashboardServer(s.host, s.port, prometheus_url, s.targets,
                                          ConsumerLagExporter(s.bootstrap_servers), s.refresh_s)
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            self.stop()
            raise PortTaken(port_taken_message(s.host, s.port, "the dashboard pages", "DASHBOARD_PORT",
                                               "--port")) from e
        if serve_in_thread:
            self.server.start()
        lag_target = f"{s.host}:{self.server.server_address[1]}"
        try:
            self.prometheus = PrometheusProcess(s.data_dir, prometheus_yml(s.targets, lag_target), s.host,
                                                s.prometheus_port)
            self.prometheus.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _lock_data_dir(self) -> None:
        """One Prometheus a database: a second kafka-dashboard on other ports must use another directory."""
        directory = self.settings.data_dir
        directory.mkdir(parents=True, exist_ok=True)
        self._lock = open(directory / "kafka-dashboard.lock", "w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            self._lock.close()
            self._lock = None
            other = f"{directory}-2"
            raise DataDirInUse(f"{directory} is used by another kafka-dashboard's Prometheus: stop that one "
                               "(Ctrl-C), or give this one a directory of its own: make dashboard "
                               f"DASHBOARD_DATA={other} (kafka-dashboard --data-dir {other})") from e

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.prometheus is not None:
            self.prometheus.stop()
        if self._lock is not None:
            self._lock.close()  # closing the file releases the lock
            self._lock = None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kafka-dashboard", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="where the pages and Prometheus listen")
    parser.add_argument("--port", type=int, default=3000,
                        help="the pages' port (make dashboard DASHBOARD_PORT=...)")
    parser.add_argument("--prometheus-port", type=int, default=9090,
                        help="Prometheus's port (make dashboard PROMETHEUS_PORT=...)")
    parser.add_argument("--config-dir", type=Path, default=Path("config"),
                        help="where server.properties, cluster/ and cluster-split/ "
                             "name the metrics listeners")
    parser.add_argument("--target", action="append", default=[],
                        help="host:port of a /metrics to scrape instead of those the config names "
                             "(repeatable)")
    parser.add_argument("--bootstrap-server", default=DEFAULT_BOOTSTRAP,
                        help="brokers to ask for consumer lag (default: make run's and the clusters')")
    parser.add_argument("--data-dir", type=Path, default=Path("data/dashboard"),
                        help="Prometheus's configuration, database and log")
    parser.add_argument("--refresh", type=float, default=5.0, help="seconds between a page's refreshes")
    return parser.parse_args(argv)


def _stop_on_sigterm(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not structlog.is_configured():
        configure_logging("console", logging.WARNING, sys.stderr)  # the lag exporter's client: quiet
    # Run outside the repository (no config/ here): make run's address, the metrics.listener default.
    targets = args.target or scrape_targets(args.config_dir) or [urlsplit(DEFAULT_METRICS_LISTENER).netloc]
    settings = DashboardSettings(targets, args.bootstrap_server, args.data_dir, args.host, args.port,
                                 args.prometheus_port, args.refresh)
    dashboard = Dashboard(settings)
    try:
        dashboard.start(serve_in_thread=False)
    except (PortTaken, DataDirInUse, PrometheusError) as e:
        print(f"kafka-dashboard: {e}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    print(f"Prometheus {dashboard.prometheus.url} scrapes {', '.join(targets)} (whichever are up)")
    print(f"Prometheus's files: {args.data_dir}/ (prometheus.yml, prometheus.log)")
    print("Open the dashboard:  " + dashboard.url + "/" + PAGES[0].slug)
    print("Pages: " + ", ".join(f"{dashboard.url}/{page.slug}" for page in PAGES) + ". Ctrl-C stops.",
          flush=True)
    try:
        dashboard.server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        dashboard.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
