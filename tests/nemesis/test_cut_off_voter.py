"""A follower of the metadata quorum cut off by the network, for real, leaves the quorum alone when it
returns: what the nemesis found (docs/replication.md), fixed by the pre-vote of KIP-996.

Three combined nodes in network namespaces (tests/nemesis/hosts.py). A voter that is not the active
controller is cut from the two others (its clients, here the test, still reach it) for 6 s: six
election timeouts, three fetch timeouts at Kafka's defaults. Before the fix it stood for election
every couple of seconds, each time in a higher epoch, and when the link healed the active controller
stepped down for it. Now it asks for a pre-vote, hears from no one, and keeps its epoch; healed, it
fetches again. Throughout, the same node leads the quorum in the same epoch, as the controllers
answer DescribeQuorum and `kafka-metadata-quorum describe --status` prints it, and the cut-off node's
quorum-state still holds that epoch. Needs root; skipped with the reason elsewhere.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.cluster.kraft_cluster import run_tool
from tests.helpers import wait_until
from tests.nemesis.hosts import unavailable_reason
from tests.nemesis.run import hosts_and_cluster
from tests.nemesis.test_isolated_controller import leading_voters, quorum

TAG = "7311"  # our own bridge and namespaces (Hosts(tag=...)), apart from the other nemesis tests
CUT_S = 6.0  # controller.quorum.election.timeout.ms is 1 s, controller.quorum.fetch.timeout.ms 2 s
pytestmark = pytest.mark.timeout(300)


def status(node) -> tuple[int, int]:
    """(LeaderId, LeaderEpoch) as `kafka-metadata-quorum describe --status` prints them, asked of this
    node."""
    result = run_tool("kafka.tools.metadata_quorum_command", "--bootstrap-server", node.bootstrap,
                      "describe", "--status", timeout=60)
    assert result.returncode == 0, result.stderr
    fields = dict(re.findall(r"^(\w+):\s*(.*)$", result.stdout, re.M))
    return int(fields["LeaderId"]), int(fields["LeaderEpoch"])


def quorum_state(node) -> tuple[int, int]:
    """(leaderEpoch, leaderId) of the node's quorum-state file: what it would resume from."""
    doc = json.loads((node.data_dir / "__cluster_metadata-0" / "quorum-state").read_text())
    return doc["leaderEpoch"], doc["leaderId"]


def holds_for(seconds: float, check, message: str) -> None:
    """check() is true at every look (every half second) for `seconds`."""
    deadline = time.monotonic() + seconds

    def look() -> bool:
        assert check(), message
        return time.monotonic() >= deadline
    wait_until(look, timeout=seconds + 60, message=message, interval=0.5)


def test_a_voter_cut_off_for_several_election_timeouts_leaves_the_leader_and_its_epoch_alone(tmp_path):
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"no network namespaces here: {reason}")
    with hosts_and_cluster(tmp_path, tag=TAG) as (hosts, cluster):
        (leader, (_, epoch)), = wait_until(lambda: len(v := leading_voters(cluster)) == 1 and v.items(),
                                           timeout=60, message="an active controller", interval=0.5)
        cut = min(n for n in cluster.nodes if n != leader)
        node, others = cluster.nodes[cut], [n for n in cluster.nodes if n != cut]
        wait_until(lambda: quorum_state(node) == (epoch, leader), timeout=30,
                   message=f"node {cut} following {leader} in epoch {epoch}", interval=0.5)
        assert status(node) == (leader, epoch)
        unchanged = {leader: (leader, epoch)}
        seen_before = len(node.output())

        hosts.partition([(cut, n) for n in others])
        holds_for(CUT_S, lambda: leading_voters(cluster) == unchanged
                  and quorum_state(node) == (epoch, leader),
                  f"while node {cut} was cut off, {leader} went on leading epoch {epoch} and {cut} kept that "
                  "epoch")
        hosts.heal()

        state = quorum(cluster.nodes[leader].address)
        caught_up = state.high_watermark
        wait_until(lambda: (s := quorum(cluster.nodes[leader].address)) is not None and
                   {v.replica_id: v.log_end_offset for v in s.current_voters}[cut] >= caught_up,
                   timeout=30, message=f"node {cut} fetching again", interval=0.5)
        holds_for(3, lambda: leading_voters(cluster) == unchanged and quorum_state(node) == (epoch, leader),
                  f"after healing, {leader} still leads epoch {epoch}")
        assert status(node) == status(cluster.nodes[others[0]]) == (leader, epoch)
        while_cut = node.output()[seen_before:]
        print(f"node {cut} cut off for {CUT_S:.0f} s: {while_cut.count('asking for pre-votes')} pre-votes "
              f"asked, {while_cut.count('standing for election')} elections stood; leader {leader}, epoch "
              f"{epoch} throughout")
        assert "asking for pre-votes" in while_cut and "standing for election" not in while_cut
