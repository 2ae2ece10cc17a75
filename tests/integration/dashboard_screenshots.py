"""`make dashboard-screenshots`: the dashboard's pages photographed under load, for the docs.

    python -m tests.integration.dashboard_screenshots docs/images

Runs what tests/integration/test_dashboard_browser.py runs (a broker, its load, Prometheus and the
pages on free ports, in a temporary directory), waits until every panel of a page is drawn, lets
the load run a little longer so the lines have a shape, and writes docs/images/dashboard-<page>.png.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

from kafka.utils.logging import configure_logging
from tests.integration.dashboard_harness import (
    chromium,
    dashboard_under_load,
    page_urls,
    wait_for_every_panel,
)

# Seconds of load before the first picture: long enough for a minute's rates to draw a line, not a dot.
WARM_UP_S = 60


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/images")
    out.mkdir(parents=True, exist_ok=True)
    configure_logging("console", logging.WARNING, sys.stderr)
    with tempfile.TemporaryDirectory(prefix="dashboard-screenshots-") as tmp, \
            dashboard_under_load(Path(tmp), refresh_s=2) as (dashboard, _load), chromium() as page:
        warmed = time.monotonic() + WARM_UP_S
        for slug, url in page_urls(dashboard).items():
            url = url.replace("refresh=1", "refresh=2&range=120")
            if time.monotonic() < warmed:
                wait_for_every_panel(page, url)
                # not a wait for a condition: the picture's minute of load
                time.sleep(warmed - time.monotonic())
            wait_for_every_panel(page, url)
            path = out / f"dashboard-{slug}.png"
            page.screenshot(path=str(path), full_page=True)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
