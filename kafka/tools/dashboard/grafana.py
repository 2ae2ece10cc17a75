"""The Grafana dashboard (docs/dashboards/kafka-teaching.json), written from panels.py: for those who
have Grafana, the same panels and queries as kafka-dashboard's pages, one Grafana row a row.

    python -m kafka.tools.dashboard.grafana            # rewrite docs/dashboards/kafka-teaching.json
    python -m kafka.tools.dashboard.grafana --check    # exit 1 if the file is not what panels.py makes
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kafka.tools.dashboard.panels import PAGES, Panel

DASHBOARD_FILE = Path(__file__).resolve().parents[3] / "docs" / "dashboards" / "kafka-teaching.json"
DATASOURCE = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
PANEL_HEIGHT = 8

_HEADER = {
    "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "type": "datasource",
                  "pluginId": "prometheus",
                  "pluginName": "Prometheus"}],
    "__requires": [{"type": "grafana", "id": "grafana", "name": "Grafana", "version": "9.0.0"},
                   {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"}],
    "title": "Kafka, the teaching edition",
    "uid": "kafka-teaching",
    "description": "Seed 002's request journey on graphs: see docs/observability.md. Written by "
                   "kafka/tools/dashboard/grafana.py from kafka/tools/dashboard/panels.py; edit that, not "
                   "this.",
    "tags": ["kafka", "teaching"],
    "timezone": "browser",
    "schemaVersion": 38,
    "version": 1,
    "refresh": "5s",
    "time": {"from": "now-15m", "to": "now"},
}
_REQUEST_VARIABLE = {
    "name": "request", "label": "request", "type": "query", "datasource": DATASOURCE,
    "query": {"query": "label_values(kafka_network_requestmetrics_totaltimems_count, request)",
              "refId": "req"},
    "definition": "label_values(kafka_network_requestmetrics_totaltimems_count, request)",
    "multi": True, "includeAll": True, "refresh": 2,
    "current": {"selected": True, "text": ["Produce", "FetchConsumer"],
                "value": ["Produce", "FetchConsumer"]},
}


def _timeseries(panel_id: int, panel: Panel, x: int, y: int) -> dict:
    grafana = {
        "id": panel_id, "type": "timeseries", "title": panel.title, "datasource": DATASOURCE,
        "gridPos": {"x": x, "y": y, "w": panel.width, "h": PANEL_HEIGHT},
        "fieldConfig": {"defaults": {"unit": panel.unit,
                                     "custom": {"stacking": {"mode": "normal" if panel.stacked else "none"}}},
                        "overrides": []},
        "targets": [{"refId": chr(ord("A") + i), "datasource": DATASOURCE, "expr": t.expr,
                     "legendFormat": t.legend}
                    for i, t in enumerate(panel.targets)],
    }
    if "$request" in panel.title:
        grafana["repeat"] = "request"  # one panel per request type picked, as the pages' request picker does
    if panel.description or panel.only_with:
        only = f" Only with {panel.only_with}." if panel.only_with else ""
        grafana["description"] = (panel.description + only).strip()
    return grafana


def dashboard() -> dict:
    """The whole dashboard: a Grafana row a panels.py row, its panels laid left to right, wrapping at 24."""
    panels: list[dict] = []
    y = 0
    for page in PAGES:
        for row in page.rows:
            panels.append({"id": len(panels) + 1, "type": "row", "title": row.title, "collapsed": False,
                           "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []})
            y += 1
            x = 0
            for panel in row.panels:
                if x + panel.width > 24:
                    x, y = 0, y + PANEL_HEIGHT
                panels.append(_timeseries(len(panels) + 1, panel, x, y))
                x += panel.width
            y += PANEL_HEIGHT
    return {**_HEADER, "templating": {"list": [_REQUEST_VARIABLE]}, "panels": panels}


def render() -> str:
    return json.dumps(dashboard(), indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the file is up to date")
    args = parser.parse_args(argv)
    if args.check:
        if DASHBOARD_FILE.read_text() != render():
            print(f"{DASHBOARD_FILE} differs from kafka/tools/dashboard/panels.py: run "
                  "python -m kafka.tools.dashboard.grafana", file=sys.stderr)
            return 1
        return 0
    DASHBOARD_FILE.write_text(render())
    print(f"wrote {DASHBOARD_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
