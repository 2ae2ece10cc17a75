"""unclean.leader.election.enable on three real nodes: the loss it allows, and none without it
(tests/nemesis/unclean_election.py has the scenario; docs/replication.md tells it)."""

from __future__ import annotations

import pytest

from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.run import hosts_and_cluster
from tests.nemesis.unclean_election import run_scenario

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def cluster(tmp_path):
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"no hosts for the nemesis here: {reason}")
    with hosts_and_cluster(tmp_path) as (_, cluster):
        yield cluster


def test_an_unclean_election_loses_what_only_the_old_isr_had(cluster):
    acknowledged, lost = run_scenario(cluster, unclean=True)
    assert acknowledged == 200
    assert lost == 200  # on the old leader only: the new one never had them


def test_without_unclean_election_the_partition_waits_and_loses_nothing(cluster):
    acknowledged, lost = run_scenario(cluster, unclean=False)
    assert acknowledged == 200
    assert lost == 0
