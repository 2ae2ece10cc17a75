"""What Prometheus scrapes: every metrics.listener of `make run`, `make cluster` and `make
cluster-split`, read from their property files, and the dashboard's consumer-lag page.

Prometheus is told about all of them at once; whichever set is running answers (`up == 1`), the
others are down (`up == 0`), so one `make dashboard` serves any of the three without a flag. The
file it writes (data/dashboard/prometheus.yml) is plain Prometheus configuration, to read and copy.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

BROKER_JOB = "kafka-teaching"  # the job docs/observability.md and lab 11 use
LAG_JOB = "consumer-lag"
LAG_PATH = "/consumer-lag/metrics"
# Kafka's metrics.listener default here (kafka/server/kafka_config.py): what `make run` serves.
DEFAULT_METRICS_LISTENER = "http://127.0.0.1:9404"
# The property files whose brokers `make run`, `make cluster` and `make cluster-split` start.
CONFIG_GLOBS = ("server.properties", "cluster/*.properties", "cluster-split/*.properties")


def metrics_listener(properties: Path) -> str | None:
    """The host:port a property file's metrics.listener serves on; None if it turns the endpoint off."""
    value = DEFAULT_METRICS_LISTENER
    for line in properties.read_text().splitlines():
        key, sep, rest = line.strip().partition("=")
        if sep and not key.startswith("#") and key.strip() == "metrics.listener":
            value = rest.strip()
    if not value:
        return None
    address = urlsplit(value).netloc
    return None if address.endswith(":0") else address  # port 0: a free port, which no config can name


def scrape_targets(config_dir: Path) -> list[str]:
    """Every fixed metrics address of the local brokers and controllers, each once, in port order."""
    targets = {metrics_listener(path) for pattern in CONFIG_GLOBS for path in config_dir.glob(pattern)}
    return sorted((t for t in targets if t), key=lambda t: (t.rpartition(":")[0], int(t.rpartition(":")[2])))


def prometheus_yml(targets: list[str], lag_target: str, scrape_interval: str = "1s") -> str:
    """Scrape the brokers every second (a lab sees a change at once) and the lag page every 5 s (each
    scrape of it asks the brokers a few requests)."""
    listed = "".join(f"          - '{t}'\n" for t in targets)
    return (
        "# Written by kafka-dashboard (kafka/tools/dashboard/prometheus_config.py); rewritten at each "
        "start.\n"
        "global:\n"
        f"  scrape_interval: {scrape_interval}\n"
        f"  evaluation_interval: {scrape_interval}\n"
        "scrape_configs:\n"
        f"  - job_name: {BROKER_JOB}\n"
        f"    scrape_timeout: {scrape_interval}\n"
        "    static_configs:\n"
        "      - targets:\n"
        f"{listed}"
        f"  - job_name: {LAG_JOB}\n"
        "    scrape_interval: 5s\n"
        "    scrape_timeout: 5s\n"
        f"    metrics_path: {LAG_PATH}\n"
        "    static_configs:\n"
        f"      - targets: ['{lag_target}']\n"
    )
