"""The StickyTaskAssignor of streams groups (KIP-1071) over a configured word count topology
(TopologyMetadata): tasks spread by load over processes and then over each process's members, stay where
they run when the spread allows, go to a member that keeps their state as a standby before anyone else,
and standby tasks (of the stateful subtopology only) never share a process with their active task; a
standby with no process left to run on goes short. The differential test compares whole assignments
with Apache Kafka 4.4's (tests/differential/test_streams_groups.py)."""

from __future__ import annotations

import pytest

from kafka.coordinator.group.streams.assignor.sticky_task_assignor import StickyTaskAssignor
from kafka.coordinator.group.streams.assignor.task_assignor import (
    AssignmentConfigs,
    GroupSpec,
    MemberMetadataAndState,
)
from kafka.coordinator.group.streams.topics.configured_topology import (
    ConfiguredInternalTopic,
    ConfiguredSubtopology,
)
from kafka.coordinator.group.streams.topology_metadata import TopologyMetadata

pytestmark = pytest.mark.fast

REPARTITION = ConfiguredInternalTopic("app-counts-repartition", 4, None)
CHANGELOG = ConfiguredInternalTopic("app-counts-changelog", 4, None)
WORD_COUNT = TopologyMetadata({
    "0": ConfiguredSubtopology(4, frozenset({"words"}), {}, frozenset({REPARTITION.name}), {}),
    "1": ConfiguredSubtopology(4, frozenset(), {REPARTITION.name: REPARTITION}, frozenset(),
                               {CHANGELOG.name: CHANGELOG})})
ALL = {("0", p) for p in range(4)} | {("1", p) for p in range(4)}


def member(process: str, active=(), standby=(), offsets=None) -> MemberMetadataAndState:
    def by_subtopology(tasks) -> dict[str, frozenset[int]]:
        return {s: frozenset(p for t, p in tasks if t == s) for s in {t for t, _ in tasks}}

    return MemberMetadataAndState(None, None, process, {}, by_subtopology(active),
                                  by_subtopology(standby), {}, task_offsets=offsets or {})


def assign(members: dict[str, MemberMetadataAndState], standby_replicas: int = 0) -> dict:
    spec = GroupSpec(members, AssignmentConfigs(standby_replicas))
    assignment = StickyTaskAssignor().assign(spec, WORD_COUNT).members
    return {m: ({(s, p) for s, ps in a.active_tasks.items() for p in ps},
                {(s, p) for s, ps in a.standby_tasks.items() for p in ps}) for m, a in assignment.items()}


def test_a_lone_member_runs_everything():
    assert assign({"a": member("p1")}) == {"a": (ALL, set())}


def test_tasks_spread_over_processes_first_then_over_their_members():
    out = assign({"a1": member("p1"), "a2": member("p1"), "b": member("p2")})
    assert sorted(len(out[m][0]) for m in out) == [2, 3, 3]
    assert len(out["b"][0]) == 3 and len(out["a1"][0]) + len(out["a2"][0]) == 5, "the lone process's share"
    assert set().union(*(active for active, _ in out.values())) == ALL


def test_tasks_stay_where_they_run_up_to_each_members_quota():
    before = {("0", 0), ("0", 1), ("1", 0), ("1", 1), ("0", 2)}
    out = assign({"a": member("p1", active=before), "b": member("p2", active=ALL - before)})
    assert out["a"][0] | out["b"][0] == ALL and len(out["a"][0]) == len(out["b"][0]) == 4
    assert out["a"][0] < before and out["b"][0] >= ALL - before, "only the task over a's quota moves"


def test_a_task_without_an_owner_goes_to_the_member_keeping_its_state():
    out = assign({"a": member("p1"), "b": member("p2", standby={("1", 3)})})
    assert ("1", 3) in out["b"][0]


def test_standby_tasks_only_of_the_stateful_subtopology_and_never_beside_their_active_task():
    out = assign({"a": member("p1"), "b": member("p2")}, standby_replicas=1)
    standbys = out["a"][1] | out["b"][1]
    assert standbys == {("1", p) for p in range(4)}
    for active, standby in out.values():
        assert not active & standby


def test_a_standby_with_no_other_process_goes_short():
    out = assign({"a1": member("p1"), "a2": member("p1")}, standby_replicas=1)
    assert out["a1"][1] == out["a2"][1] == set(), "both members are one process: no copy fits"
    assert out["a1"][0] | out["a2"][0] == ALL
