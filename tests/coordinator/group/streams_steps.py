"""A Kafka Streams member as a streams group's coordinator sees it, for the unit tests of KIP-1071's
streams groups (shard_harness.py's Shard: a real SnapshotRegistry and timeline map, MockTime, a timer the
test fires): it heartbeats with the epoch and the tasks it was last given, as the real client does.

Requests are built with the protocol's own schema (written and read back), so the coordinator gets what
it gets from the wire. The topology is a word count's: subtopology 0 reads ``words`` and writes the
repartition topic, subtopology 1 reads that and keeps the count store's changelog.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.group import ApiError
from kafka.coordinator.group.streams.streams_group_heartbeat_checks import (
    throw_if_streams_group_heartbeat_request_is_invalid,
)
from kafka.protocol.errors import Errors
from kafka.protocol.messages.streams_group_heartbeat import STREAMS_GROUP_HEARTBEAT_REQUEST
from kafka.protocol.types import ByteReader
from tests.coordinator.group.shard_harness import Config, Shard

APP = "app"
WORDS_ID, REPARTITION_ID, CHANGELOG_ID = uuid.UUID(int=11), uuid.UUID(int=12), uuid.UUID(int=13)
REPARTITION, CHANGELOG = f"{APP}-counts-repartition", f"{APP}-counts-changelog"
NOW = Config(streams_group_initial_rebalance_delay_ms=0, streams_group_assignment_interval_ms=0)


def word_count_topology(epoch: int = 1, changelog_partitions: int = 0) -> dict:
    return dict(epoch=epoch, subtopologies=[
        dict(subtopology_id="0", source_topics=["words"], repartition_sink_topics=[REPARTITION]),
        dict(subtopology_id="1", repartition_source_topics=[dict(name=REPARTITION)],
             state_changelog_topics=[dict(name=CHANGELOG, partitions=changelog_partitions,
                                          topic_configs=[dict(key="cleanup.policy", value="compact")])])])


def request(**fields):
    """A StreamsGroupHeartbeatRequest as the wire would bring it (v1)."""
    out = bytearray()
    STREAMS_GROUP_HEARTBEAT_REQUEST.write(out, STREAMS_GROUP_HEARTBEAT_REQUEST.new(**fields), 1, True)
    return STREAMS_GROUP_HEARTBEAT_REQUEST.read(ByteReader(bytes(out), 0), 1, True)


def tasks(answer_tasks) -> dict[str, set[int]]:
    return {t["subtopology_id"]: set(t["partitions"]) for t in answer_tasks or ()}


def task_ids(tasks_by_subtopology: dict[str, set[int]]) -> list[dict]:
    return [dict(subtopology_id=s, partitions=sorted(p))
            for s, p in sorted(tasks_by_subtopology.items()) if p]


def shard_with_words(partitions: int = 4, config: Config = NOW, internal: bool = False) -> Shard:
    shard = Shard(topics={"words": (WORDS_ID, partitions)}, config=config)
    if internal:
        create_internal_topics(shard, partitions)
    return shard


def create_internal_topics(shard: Shard, partitions: int = 4) -> None:
    """What the broker does with a heartbeat's MISSING_INTERNAL_TOPICS: create them."""
    shard.topics.update({REPARTITION: (REPARTITION_ID, partitions), CHANGELOG: (CHANGELOG_ID, partitions)})


class StreamsMember:
    """One stream thread: its member id, its process, the epoch and the tasks it was last given."""

    def __init__(self, shard: Shard, member_id: str, process_id: str = "process-a", group: str = APP,
                 instance_id: str | None = None, topology: dict | None = None) -> None:
        self.shard, self.member_id, self.process_id, self.group = shard, member_id, process_id, group
        self.instance_id = instance_id
        self.topology = topology or word_count_topology()
        self.epoch = 0
        self.active: dict[str, set[int]] = {}
        self.standby: dict[str, set[int]] = {}
        self.warmup: dict[str, set[int]] = {}
        self.last: dict = {}

    def heartbeat(self, epoch: int | None = None, fail: bool = False, **fields) -> dict:
        epoch = self.epoch if epoch is None else epoch
        body = dict(group_id=self.group, member_id=self.member_id, member_epoch=epoch,
                    instance_id=self.instance_id, endpoint_information_epoch=0,
                    active_tasks=task_ids(self.active), standby_tasks=task_ids(self.standby),
                    warmup_tasks=task_ids(self.warmup))
        body.update(fields)
        req = request(**body)
        try:
            throw_if_streams_group_heartbeat_request_is_invalid(req)
        except ApiError as e:
            return dict(error_code=e.error, error_message=e.message)
        result = self.shard.write(lambda: self.shard.streams_groups.streams_group_heartbeat(
            req, "client", "/10.0.0.1", 1), fail=fail)
        if isinstance(result, ApiError):
            return dict(error_code=result.error, error_message=result.message)
        if isinstance(result, Errors):
            return dict(error_code=result)
        answer = dict(result.data, creatable_topics=result.creatable_topics)
        if answer["error_code"] == Errors.NONE and epoch >= 0:
            self.epoch = answer["member_epoch"]
            if answer.get("active_tasks") is not None:
                self.active, self.standby = tasks(answer["active_tasks"]), tasks(answer["standby_tasks"])
                self.warmup = tasks(answer["warmup_tasks"])
        self.last = answer
        return answer

    def join(self, **fields) -> dict:
        self.active, self.standby, self.warmup = {}, {}, {}
        return self.heartbeat(0, rebalance_timeout_ms=60_000, topology=self.topology,
                              process_id=self.process_id, **fields)

    def beat(self, **fields) -> dict:
        return self.heartbeat(**fields)

    def leave(self, epoch: int = -1) -> dict:
        return self.heartbeat(epoch)

    def statuses(self) -> dict[int, str]:
        return {s["status_code"]: s["status_detail"] for s in self.last.get("status") or ()}

    def task_count(self) -> int:
        return sum(len(p) for p in self.active.values())
