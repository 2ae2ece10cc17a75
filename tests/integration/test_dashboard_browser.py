"""Acceptance: the dashboard's pages in a real browser (Debian's Chromium, headless, through Playwright).

A broker under load, Prometheus scraping it and kafka-dashboard serving the pages, all on free loopback
ports: every panel of every page draws data, and with no broker up the page says so instead of
showing empty graphs. Waits are on conditions with deadlines; everything started is stopped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kafka.tools.dashboard.dashboard_command import Dashboard, DashboardSettings
from kafka.tools.dashboard.panels import PAGES
from kafka.utils.free_port import free_port
from tests.integration.dashboard_harness import (
    CHROMIUM,
    PANEL_STATES,
    chromium,
    dashboard_under_load,
    page_urls,
    wait_for_every_panel,
)

pytestmark = [
    pytest.mark.broker,
    pytest.mark.skipif(shutil.which("prometheus") is None,
                       reason="prometheus is not installed (make test installs it)"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason="chromium is not installed (make test installs it)"),
    pytest.mark.timeout(600),
]


def test_every_panel_of_every_page_draws_data_under_load(tmp_path):
    with dashboard_under_load(tmp_path) as (dashboard, load), chromium() as page:
        for slug, url in page_urls(dashboard).items():
            states = wait_for_every_panel(page, url)
            assert len(states) == len(next(p for p in PAGES if p.slug == slug).panels), states
            assert page.locator("#status").get_attribute("data-state") == "ok"
            for i in range(len(states)):  # each panel drew at least one line
                assert page.locator(".panel").nth(i).locator("svg path[d^='M']").count() >= 1, (slug,
                                                                                                states[i])
        assert load.error is None and load.rounds > 0


def test_a_page_with_no_broker_up_says_so(tmp_path):
    nobody = f"127.0.0.1:{free_port()}"  # nothing listens here
    settings = DashboardSettings([nobody], nobody, tmp_path / "dashboard", port=free_port(),
                                 prometheus_port=free_port(), refresh_s=1)
    dashboard = Dashboard(settings).start()
    try:
        with chromium() as page:
            page.goto(f"{dashboard.url}/{PAGES[0].slug}?refresh=1")
            page.wait_for_function("() => document.getElementById('status').dataset.state === 'no-broker'",
                                   timeout=60_000, polling=200)
            status = page.locator("#status").inner_text()
            assert "No broker is up" in status and nobody in status and "make run" in status
            states = page.evaluate(PANEL_STATES)
            assert states and all(state == "no-broker" for _, state, _ in states), states
            assert page.locator(".panel svg").count() == 0
    finally:
        dashboard.stop()
