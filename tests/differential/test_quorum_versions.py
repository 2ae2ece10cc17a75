"""AddRaftVoter v1 (KIP-1186's AckWhenCommitted) asked of both brokers. Each runs a quorum of one from
controller.quorum.voters, so kraft.version is 0 and both refuse the change before its acknowledgement
matters: the same code and message either way (the acknowledgement itself: tests/raft/
test_raft_membership_simulation.py)."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors


@pytest.mark.parametrize("version, ack", [(0, None), (1, True), (1, False)])
def test_add_raft_voter_on_a_static_quorum_is_unsupported(pair, version, ack):
    body = {"cluster_id": None, "timeout_ms": 30000, "voter_id": 7, "voter_directory_id": uuid.uuid4(),
            "listeners": [{"name": "CONTROLLER", "host": "127.0.0.1", "port": 9999}]}
    if ack is not None:
        body["ack_when_committed"] = ack
    ours = pair.same(ApiKey.ADD_RAFT_VOTER, version, body)
    assert ours.error_code == Errors.UNSUPPORTED_VERSION
