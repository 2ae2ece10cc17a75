"""Fixtures: real brokers on free 127.0.0.1 ports, stopped after each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka.utils.logging import configure_logging
from tests.helpers import BrokerProcess, InProcessBroker

configure_logging("console")


@pytest.fixture
def start_broker(tmp_path):
    """Start in-process brokers: start_broker(data_dir=None, **{"key.name": "value"})."""
    started: list[InProcessBroker] = []

    def start(data_dir: Path | None = None, overrides: dict[str, str] | None = None) -> InProcessBroker:
        broker = InProcessBroker(data_dir or tmp_path / "data", overrides or {})
        started.append(broker)
        return broker

    yield start
    for broker in started:
        broker.stop()


@pytest.fixture
def broker(start_broker) -> InProcessBroker:
    return start_broker()


@pytest.fixture
def broker_process(tmp_path):
    """Start brokers as separate processes; every one still running is stopped afterwards."""
    started: list[BrokerProcess] = []

    def start(data_dir: Path | None = None, overrides: dict[str, str] | None = None,
              port: int | None = None) -> BrokerProcess:
        proc = BrokerProcess(data_dir or tmp_path / "data", overrides, port)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.process.poll() is None:
            proc.process.kill()
            proc.process.wait(10)
