"""The fixture the focused fault tests share: three KRaft nodes on hosts whose links can be cut."""

from __future__ import annotations

import pytest

from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.run import hosts_and_cluster


@pytest.fixture
def cluster(tmp_path):
    """(hosts, cluster): three combined nodes, each in its own network namespace, started and stopped
    here; skipped with the reason where namespaces cannot be made."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"no network namespaces here: {reason}")
    with hosts_and_cluster(tmp_path) as (hosts, cluster):
        yield hosts, cluster
