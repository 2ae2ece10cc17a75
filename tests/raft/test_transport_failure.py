"""A request that got no answer reaches the raft core as a RaftTransportFailure of its own, never as a
response body the core must recognise by its missing keys; and a leader resigns when its controller
renounces (issue 31)."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.raft.prospective_state import ProspectiveState
from kafka.raft.raft_message import RaftRequest, RaftTransportFailure
from kafka.server.kafka_network_channel import KafkaNetworkChannel
from kafka.utils.time import SYSTEM, MockTime
from tests.helpers import free_port, wait_until
from tests.raft.simulation import CONFIG, Node, Simulation


def votes_to(messages, voter: int) -> list[RaftRequest]:
    return [m for m in messages if isinstance(m, RaftRequest) and m.api_key == ApiKey.VOTE
            and m.destination_id == voter]


def test_a_vote_that_could_not_be_delivered_is_sent_again_after_the_retry_backoff():
    time = MockTime()
    node = Node(1, {1, 2, 3}, time, seed=7)
    time.sleep(CONFIG.election_timeout_ms * 3)
    node.client.poll()
    node.client.poll()
    assert isinstance(node.client.quorum.state, ProspectiveState)  # its pre-votes (KIP-996) are Votes too
    [vote] = votes_to(node.client.drain_outbound(), 2)
    node.client.handle_inbound(RaftTransportFailure(vote.correlation_id, 2, 1, ApiKey.VOTE,
                                                    Errors.BROKER_NOT_AVAILABLE, time.milliseconds()))
    time.sleep(CONFIG.retry_backoff_ms)
    node.client.poll()
    # Long before the request timeout would have expired it: the failure freed the slot at once.
    assert len(votes_to(node.client.drain_outbound(), 2)) == 1


def test_the_network_channel_reports_an_unreachable_voter_as_a_transport_failure():
    channel = KafkaNetworkChannel(1, {2: ("127.0.0.1", free_port())}, request_timeout_ms=2000,
                                  retry_backoff_ms=50, time=SYSTEM)
    received = []
    channel.on_response = received.append
    try:
        channel.send(RaftRequest(5, 1, 2, ApiKey.VOTE, dict(cluster_id="c", topics=[]), SYSTEM.milliseconds()))

        def answered() -> bool:
            channel.poll(50)
            return bool(received)
        wait_until(answered, timeout=10, message="the channel to report the unreachable voter")
    finally:
        channel.close()
    [failure] = received
    assert isinstance(failure, RaftTransportFailure)
    assert (failure.correlation_id, failure.source_id, failure.destination_id) == (5, 2, 1)
    assert failure.error in (Errors.BROKER_NOT_AVAILABLE, Errors.REQUEST_TIMED_OUT)


def test_a_leader_that_resigns_tells_the_voters_and_a_new_epoch_begins():
    """KafkaRaftClient.resign, which the QuorumController calls when it renounces after a fault."""
    sim = Simulation(3, voters=3, observers=0, drop=0.0)
    sim.run_for(1500)
    leader = sim.leader()
    epoch = leader.client.quorum.epoch
    leader.client.resign(epoch - 1)  # not the epoch it leads: nothing happens
    assert leader.client.quorum.is_leader()
    leader.client.resign(epoch)
    assert not leader.client.quorum.is_leader()
    assert {m.destination_id for m in leader.client.drain_outbound() if m.api_key == ApiKey.END_QUORUM_EPOCH} == \
        {n for n in sim.voter_ids if n != leader.node_id}
    sim.run_for(1000)
    assert sim.leader() is not None and sim.leader().client.quorum.epoch > epoch
