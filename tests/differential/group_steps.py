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
from tests.differential.oracle import Intended, Pair, differences
from tests.helpers import wait_until

# WireClient's client id, and the UUID Kafka appends to it to name a classic group's member.
MEMBER_ID_SHAPE = re.compile(r"^wire-test-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# The fields whose value a broker picks and a Script may know by name.
NAMED_FIELDS = ("member_id", "leader", "producer_id", "port")


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
        assert not found, f"{api_key.name} v{version}: our broker and Apache Kafka differ:\n  " + "\n  ".join(found)
        return ours, apache

    def _resolve(self, template: Any, side: str) -> Any:
        if isinstance(template, Sym):
            return self.values[side][template.name]
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
        if field in NAMED_FIELDS:
            for name, known in self.values[side].items():
                if known == value and value not in ("", -1):
                    return name
        return value


def subscription(*topics: str) -> bytes:
    return serialize_subscription({"topics": list(topics), "user_data": None}, version=0)


def assignment(topic: str, *partitions: int) -> bytes:
    return serialize_assignment({"assigned_partitions": [{"topic": topic, "partitions": list(partitions)}],
                                 "user_data": None}, version=0)


def create_topic(pair: Pair, topic: str, partitions: int = 1) -> None:
    """CreateTopics on both, checking only the error codes (the configs each reports are diff-data's)."""
    for answer in pair.ask(ApiKey.CREATE_TOPICS, 7, {"topics": [{
            "name": topic, "num_partitions": partitions, "replication_factor": 1, "assignments": [],
            "configs": []}], "timeout_ms": 30000, "validate_only": False}):
        assert [t["error_code"] for t in answer["topics"]] == [0], answer


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
            answers = pair.ask(ApiKey.DESCRIBE_GROUPS, 5, {"groups": [key], "include_authorized_operations": False})
            return all(g["error_code"] == 0 for answer in answers for g in answer["groups"])
        answers = pair.ask(ApiKey.DESCRIBE_TRANSACTIONS, 0, {"transactional_ids": [key]})
        return all(t["error_code"] in (0, Errors.TRANSACTIONAL_ID_NOT_FOUND)
                   for answer in answers for t in answer["transaction_states"])
    wait_until(found, timeout=60, message=f"both brokers to name a coordinator for {key!r}", interval=0.1)
    wait_until(loaded, timeout=60, message=f"both coordinators of {key!r} to be loaded", interval=0.1)
