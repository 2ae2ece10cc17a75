"""Acceptance: Debian's kcat (librdkafka 2.0.2) lists, produces and consumes."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import unique_topic

pytestmark = pytest.mark.skipif(shutil.which("kcat") is None, reason="make test installs Debian's kcat")


def kcat(*args: str, input: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(["kcat", *args], input=input, capture_output=True, timeout=timeout, check=False)


def test_kcat_lists_broker_and_topics(broker):
    topic = unique_topic("kcatL")
    produced = kcat("-b", broker.bootstrap, "-P", "-t", topic, input=b"hello\n")
    assert produced.returncode == 0, produced.stderr
    listing = kcat("-b", broker.bootstrap, "-L")
    assert listing.returncode == 0, listing.stderr
    out = listing.stdout.decode()
    assert f"broker 1 at 127.0.0.1:{broker.port}" in out
    assert f'topic "{topic}" with 1 partitions' in out


def test_kcat_round_trips_keyed_messages(broker):
    topic = unique_topic("kcat")
    lines = b"".join(b"key%d:value %d\n" % (i, i) for i in range(200))
    produced = kcat("-b", broker.bootstrap, "-P", "-t", topic, "-K:", input=lines)
    assert produced.returncode == 0, produced.stderr
    consumed = kcat("-b", broker.bootstrap, "-C", "-t", topic, "-e", "-o", "beginning",
                    "-f", "%k=%s@%o\n")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.decode().splitlines() == [f"key{i}=value {i}@{i}" for i in range(200)]
