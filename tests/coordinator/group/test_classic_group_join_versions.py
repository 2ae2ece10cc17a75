"""What JoinGroup v8 and v9 and LeaveGroup v5 change in the classic group coordinator: the client's
reason (KIP-800) in the rebalance's log line, and (v9, KIP-814) a returning static leader told to skip
the assignment. Real ClassicGroupManager, MockTime, the mock coordinator timer of
test_classic_group_manager."""

from __future__ import annotations

from structlog.testing import capture_logs

from kafka.coordinator.group.classic.classic_group_results import SyncGroupResult
from kafka.coordinator.group.group_coordinator_requests import LeavingMember
from kafka.protocol.errors import Errors
from tests.coordinator.group.test_classic_group_manager import SUBSCRIPTION, Harness, commit


def test_a_static_leader_rejoining_at_v9_leads_and_skips_the_assignment():
    h = Harness()
    old = h.stable_member(instance="i1")
    answers, stored = h.join(instance="i1", version=9)
    commit(stored)
    [joined] = answers
    assert joined.error == Errors.NONE and joined.member_id != old and joined.generation_id == 1
    assert (joined.leader_id, joined.skip_assignment) == (joined.member_id, True)
    assert [m["member_id"] for m in joined.members] == [joined.member_id]
    assert joined.members[0]["metadata"] == SUBSCRIPTION
    synced, _ = h.sync(1, joined.member_id, {}, instance="i1")  # the leader syncs without an assignment
    assert synced == [SyncGroupResult(Errors.NONE, "consumer", "range", b"a1")]


def test_a_static_follower_rejoining_at_v9_gets_no_members():
    h = Harness()
    h.stable_member(instance="i1")
    answers, stored = h.join(instance="i2")  # a second static member: a rebalance to generation 2
    h.join(member_id=h.group().get_static_member_id("i1"), instance="i1")
    [second] = answers
    commit(h.sync(2, h.group().leader_id, {h.group().leader_id: b"a1", second.member_id: b"a2"},
                  instance="i1")[1])
    answers, stored = h.join(instance="i2", version=9)
    commit(stored)
    [joined] = answers
    assert (joined.skip_assignment, joined.members) == (False, [])
    assert joined.leader_id == h.group().leader_id != joined.member_id


def test_the_client_reason_is_in_the_rebalance_log_line():
    h = Harness()
    member = h.stable_member()
    with capture_logs() as logs:
        h.join(member_id=member, reason="cooperative rebalance")
    [line] = [e for e in logs if e["event"] == "preparing to rebalance group"]
    assert line["reason"] == (f"Leader {member} re-joining group during Stable; "
                              "client reason: cooperative rebalance")
    h.advance(0)
    with capture_logs() as logs:
        h.leave(LeavingMember(member, None, "the consumer is closing"))
    [left] = [e for e in logs if e["event"].startswith("member has left group")]
    assert left["client_reason"] == "the consumer is closing"
    with capture_logs() as logs:
        h.join()
        h.join()
    reasons = [e["reason"] for e in logs if e["event"] == "preparing to rebalance group"]
    assert reasons and reasons[0].endswith("; client reason: not provided")
