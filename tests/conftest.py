"""Fixtures: real brokers on free 127.0.0.1 ports, stopped after each test; and which tests are `fast`.

`make test-fast` runs `pytest -m fast`: the unit tests, which need no broker, no other process and no
real client, and the seeded simulations with a handful of seeds (the Makefile sets RAFT_SIM_SEEDS and
the other counts low; `make test` runs the full counts). A test is `fast` when it lives in one of
UNIT_TEST_DIRS and is neither `broker` nor `slow`; a test that starts a broker or a process without the
fixtures below says so with `pytestmark = pytest.mark.broker`, a unit test that alone takes seconds
says `@pytest.mark.slow` (make test still runs it), and a test elsewhere that is quick and
self-contained may declare `@pytest.mark.fast` itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from kafka.utils.logging import configure_logging
from tests.helpers import BrokerProcess, InProcessBroker

configure_logging("console")

# Directories under tests/ whose tests drive classes directly, on MockTime or loopback sockets.
UNIT_TEST_DIRS = {"controller", "coordinator", "image", "log", "metadata", "metrics", "network", "protocol",
                  "purgatory", "raft", "security", "server", "timeline", "utils"}
# Unit tests that live beside integration tests: the client's parts on a mock client, the tools' pure logic.
UNIT_TEST_FILES = {"test_docs.py", "test_docs_layers.py", "clients/test_assignors.py",
                   "clients/test_fetch_session_handler.py",
                   "clients/test_partitioner.py", "clients/test_producer_config.py",
                   "clients/test_read_committed.py", "clients/test_record_accumulator.py",
                   "clients/test_transaction_manager.py", "clients/test_transactional_producer.py",
                   "tools/test_dashboard.py", "tools/test_dump_log_segments.py",
                   "tools/test_leader_election_command.py",
                   "tools/test_metadata_quorum_command.py",
                   "tools/test_reassign_partitions_command.py", "tools/test_replica_verification.py"}
# The fixtures below that start a broker: a test that asks for one is never `fast`.
BROKER_FIXTURES = {"broker", "start_broker", "broker_process", "pair", "apache_kafka", "our_broker"}


def pytest_collection_modifyitems(config, items):
    tests_dir = Path(__file__).parent
    for item in items:
        if BROKER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.broker)
        if item.get_closest_marker("broker") is not None or item.get_closest_marker("slow") is not None:
            continue
        where = item.path.relative_to(tests_dir)
        if where.parts[0] in UNIT_TEST_DIRS or where.as_posix() in UNIT_TEST_FILES:
            item.add_marker(pytest.mark.fast)


def _drop_below_warning(logger, method_name: str, event_dict: dict) -> dict:
    if method_name in ("debug", "info"):
        raise structlog.DropEvent
    return event_dict


@pytest.fixture
def quiet_logs():
    """Warnings and errors only, for this test: a seeded simulation runs thousands of clusters, whose
    info lines (elections, truncations) would drown the output. The filter goes into the processor
    list itself, which the loggers already cached share, and comes out after the test."""
    processors = structlog.get_config()["processors"]
    processors.insert(0, _drop_below_warning)
    yield
    processors.remove(_drop_below_warning)


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
