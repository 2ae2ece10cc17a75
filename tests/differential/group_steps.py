"""The steps the group and transaction scenarios of the differential suite share (issue 28, part 3).

Each broker picks its own member ids and producer ids, so a scenario cannot send the same bytes to both
once one of them is in play. A Script remembers what each broker chose under one symbolic name
("member-1", "pid-1"): a request template holds `Sym("member-1")` and each side gets its own value; each
answer has the values it knows replaced by their names before the two are compared, so a member id is
compared by what it stands for, and by its shape (`client.id-UUID`, as Kafka's ClassicGroup makes it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.consumer_protocol import serialize_assignment, serialize_subscription
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import iter_batches
from tests.differential.oracle import Intended, Pair, differ, differences
from tests.helpers import wait_until

# WireClient's client id, and the UUID Kafka appends to it to name a classic group's member.
MEMBER_ID_SHAPE = re.compile(r"^wire-test-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# The fields whose value a broker picks and a Script may know by name.
NAMED_FIELDS = ("member_id", "leader", "producer_id", "port")

# Clock readings, compared by shape as the oracle compares log_append_time_ms.
TIME_FIELDS = ("transaction_start_time_ms", "last_timestamp", "timestamp", "base_timestamp")


@dataclass(frozen=True)
class Sym:
    """In a request template: the value this side's broker gave to the symbol."""

    name: str


class Script:
    """A scenario's conversation with both brokers, with the names each gave to members and producers."""

    def __init__(self, pair: Pair) -> None:
        self.pair = pair
        self.values: dict[str, dict[str, Any]] = {"ours": {}, "apache": {}}
        self.learn("the broker's port", pair.ours.port, pair.apache.port)

    def learn(self, name: str, ours: Any, apache: Any) -> None:
        self.values["ours"][name], self.values["apache"][name] = ours, apache

    def value(self, side: str, name: str) -> Any:
        return self.values[side][name]

    def ask(self, api_key: ApiKey, version: int, template: dict) -> tuple[dict, dict]:
        """Both answers as dicts, each with the values this Script knows replaced by their names."""
        ours, apache = self.pair.ask(api_key, version, lambda side: self._resolve(template, side.name))
        return self._named(ours.to_dict(), "ours"), self._named(apache.to_dict(), "apache")

    def same(self, api_key: ApiKey, version: int, template: dict, intended: tuple[Intended, ...] = (),
             learn: tuple[str, str] | None = None) -> tuple[dict, dict]:
        """Ask both, assert the (named) answers agree field by field, return both. learn=(field, name):
        first learn what each broker put in that top-level field (a member id, a producer id) as name."""
        ours, apache = self.ask(api_key, version, template)
        if learn is not None:
            field, name = learn
            self.learn(name, ours[field], apache[field])
            ours, apache = self._named(ours, "ours"), self._named(apache, "apache")
        found = differences(ours, apache, intended)
        assert not found, differ(api_key, version, found)
        return ours, apache

    def retried(self, api_key: ApiKey, version: int, template: dict,
                retriable: tuple[int, ...]) -> tuple[dict, dict]:
        """Each broker asked on its own until its error_code is not in `retriable`, as a client's retry loop
        asks (asking both in step would ask the quicker one again), the final answers compared."""
        final = []
        for side in self.pair.sides:
            def answered(side=side):
                answer = side.request(api_key, version, self._resolve(template, side.name)).to_dict()
                return answer if answer["error_code"] not in retriable else None
            final.append(self._named(wait_until(answered, timeout=30, interval=0.05,
                                                message=f"{side.name}'s {api_key.name} to stop failing"),
                                                side.name))
        found = differences(final[0], final[1])
        assert not found, differ(api_key, version, found)
        return final[0], final[1]

    def until(self, api_key: ApiKey, version: int, template: dict, done,
              timeout: float = 60) -> tuple[dict, dict]:
        """Each broker asked on its own until ``done(answer)`` (the answer named), as a client keeps asking
        until it has what it waits for: a share partition hands out records only once its state is loaded,
        which each broker does on its own time. Both final answers, named, for the caller to compare."""
        answers = []
        for side in self.pair.sides:
            def ask(side=side):
                answer = side.request(api_key, version, self._resolve(template, side.name)).to_dict()
                answer = self._named(answer, side.name)
                return answer if done(answer) else None
            answers.append(wait_until(ask, timeout=timeout, interval=0.2,
                                      message=f"{side.name}'s {api_key.name} to answer as awaited"))
        return answers[0], answers[1]

    def _resolve(self, template: Any, side: str) -> Any:
        if isinstance(template, Sym):
            return self.values[side][template.name]
        if callable(template):  # bytes that carry a side's value: a batch with its producer id
            return template(lambda name: self.values[side][name])
        if isinstance(template, dict):
            return {k: self._resolve(v, side) for k, v in template.items()}
        if isinstance(template, list):
            return [self._resolve(v, side) for v in template]
        return template

    def _named(self, value: Any, side: str, field: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self._named(v, side, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._named(v, side, field) for v in value]
        if field == "records" and value is not None:
            return [self._named(batch, side) for batch in batches(value)]
        if field in TIME_FIELDS and value not in (-1, 0, None):
            return "a time"
        if field in NAMED_FIELDS:
            for name, known in self.values[side].items():
                if known == value and value not in ("", -1):
                    return name
        return value


def batches(records: bytes | memoryview) -> list[dict]:
    """A Fetch answer's record bytes as what they mean, batch by batch: the bytes themselves differ
    (each broker's producer ids, the markers' timestamps and so the CRCs)."""
    return [{"base_offset": b.base_offset, "last_offset_delta": b.last_offset_delta,
             "partition_leader_epoch": b.partition_leader_epoch, "producer_id": b.producer_id,
             "producer_epoch": b.producer_epoch, "base_sequence": b.base_sequence,
             "is_transactional": b.is_transactional, "is_control_batch": b.is_control_batch,
             "base_timestamp": b.base_timestamp,
             "records": [{"key": r.key, "value": None if b.is_control_batch else r.value} for r in b]}
            for b in iter_batches(bytes(records))]


def subscription(*topics: str) -> bytes:
    return serialize_subscription({"topics": list(topics), "user_data": None}, version=0)


def assignment(topic: str, *partitions: int) -> bytes:
    return serialize_assignment({"assigned_partitions": [{"topic": topic, "partitions": list(partitions)}],
                                 "user_data": None}, version=0)


def create_topic(pair: Pair, topic: str, partitions: int = 1) -> None:
    """CreateTopics on both, checking only the error codes (the configs each reports are compared by
    test_produce_fetch), then until both lead every partition."""
    for answer in pair.ask(ApiKey.CREATE_TOPICS, 7, {"topics": [{
            "name": topic, "num_partitions": partitions, "replication_factor": 1, "assignments": [],
            "configs": []}], "timeout_ms": 30000, "validate_only": False}):
        assert [t["error_code"] for t in answer["topics"]] == [0], answer

    # CreateTopics answers once the controller has the topic; a broker leads its partitions a moment
    # later (NOT_LEADER_OR_FOLLOWER meanwhile), as a client's metadata refresh would find.
    def led() -> bool:
        answers = pair.ask(ApiKey.LIST_OFFSETS, 7, {"replica_id": -1, "isolation_level": 0, "topics": [
            {"name": topic, "partitions": [{"partition_index": p, "current_leader_epoch": -1, "timestamp": -1}
                                           for p in range(partitions)]}]})
        return all(p["error_code"] == 0 for answer in answers for t in answer["topics"]
                   for p in t["partitions"])
    wait_until(led, timeout=30, message=f"both brokers to lead {topic}", interval=0.05)


def find_coordinator(pair: Pair, key: str, key_type: int) -> None:
    """FindCoordinator v4 for one key until both name a coordinator, then until that coordinator has
    loaded its partition. The first ask is what makes each broker create __consumer_offsets or
    __transaction_state (COORDINATOR_NOT_AVAILABLE meanwhile); Kafka then loads its 50 partitions one
    by one, answering GROUP_ID_NOT_FOUND or COORDINATOR_LOAD_IN_PROGRESS for a group or transaction
    whose partition is not loaded yet. So each scenario asks first, as a client would."""
    def found() -> bool:
        answers = pair.ask(ApiKey.FIND_COORDINATOR, 4, {"key_type": key_type, "coordinator_keys": [key]})
        return all(c["error_code"] == 0 for answer in answers for c in answer["coordinators"])

    def loaded() -> bool:
        if key_type == 0:
            answers = pair.ask(ApiKey.DESCRIBE_GROUPS, 5,
                               {"groups": [key], "include_authorized_operations": False})
            return all(g["error_code"] == 0 for answer in answers for g in answer["groups"])
        answers = pair.ask(ApiKey.DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [key]})
        return all(t["error_code"] in (0, Errors.TRANSACTIONAL_ID_NOT_FOUND)
                   for answer in answers for t in answer["transaction_states"])
    wait_until(found, timeout=60, message=f"both brokers to name a coordinator for {key!r}", interval=0.1)
    wait_until(loaded, timeout=60, message=f"both coordinators of {key!r} to be loaded", interval=0.1)


def producer_ids_ready(pair: Pair) -> None:
    """Until both hand out producer ids: Kafka's broker first fetches a block of ids from its controller
    and answers COORDINATOR_LOAD_IN_PROGRESS meanwhile. Asked for an idempotent producer (no transactional
    id), so no transaction's epoch moves; the ids taken are each broker's own business."""
    def ready() -> bool:
        answers = pair.ask(ApiKey.INIT_PRODUCER_ID, 4,
                           {"transactional_id": None, "transaction_timeout_ms": 60000,
                            "producer_id": -1, "producer_epoch": -1})
        return all(a["error_code"] == 0 for a in answers)
    wait_until(ready, timeout=60, message="both brokers to hand out producer ids", interval=0.1)


def served(pair: Pair, api_key: ApiKey) -> range:
    """The versions of `api_key` Apache Kafka serves, as its ApiVersions says, that this broker builds too:
    a scenario asks both brokers at each of them. A newer version Kafka has and this broker does not build
    yet (Kafka 4.4's DeleteGroups v3) is left out, as test_api_versions allows."""
    ranges = []
    for side in pair.sides:
        answer = side.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "oracle",
                                                      "client_software_version": "1"})
        (low, high), = [(a.min_version, a.max_version) for a in answer.api_keys if a.api_key == api_key]
        ranges.append((low, high))
    (_, ours_high), (apache_low, apache_high) = ranges
    return range(apache_low, min(ours_high, apache_high) + 1)
