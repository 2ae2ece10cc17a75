"""The differential suite's oracle (issue 28, part 3): one request, sent byte for byte the same to our
broker and to Apache Kafka, and the two responses compared field by field.

The two brokers are not expected to pick the same random values (a topic's id, the cluster id, the
time a record was appended), so those fields are compared by shape (VOLATILE). Everything else must be
equal, except the paths in INTENDED_DIFFERENCES: each is a difference we chose, with the reason, and the
list is short on purpose. docs/clients.md ("Apache Kafka as the oracle") shows it to users.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka.protocol.api_keys import ApiKey
from tests.wire import WireClient


def _uuid_shape(v: Any) -> Any:
    return "zero" if v in (None, b"\0" * 16,
                           "AAAAAAAAAAAAAAAAAAAAAA") or str(v) == "00000000-0000-0000-0000-000000000000" \
        else "set"


def _time_shape(v: Any) -> Any:
    return v if v in (-1, 0, None) else "a time"


# Field names whose values each broker picks for itself: compared by shape, not value.
VOLATILE: dict[str, Callable[[Any], Any]] = {
    "topic_id": _uuid_shape,
    "cluster_id": lambda v: v is not None,
    "log_append_time_ms": _time_shape,
    "throttle_time_ms": lambda v: v,
}


@dataclass(frozen=True)
class Intended:
    """A difference we keep on purpose: the path pattern (fnmatch's * and ? over 'a.b[0].c'; brackets are
    literal) and why."""

    path: str
    reason: str


# The only differences allowed. Each test may add its own, in the test, with its reason.
INTENDED_DIFFERENCES: tuple[Intended, ...] = (
    Intended("topics[name=small-segments-*].error_message",
             "segment.bytes may be as small as 14 bytes here (Kafka 4 allows 1 MiB and up, smaller only "
             "through its internal.segment.bytes): the labs and tests roll segments of a few hundred "
             "bytes to show them"),
    Intended("responses[name=misnumbered-*].partition_responses[index=0].*",
             "records numbered out of order inside a batch: Kafka stores an uncompressed batch as sent (a "
             "consumer then reads offsets that go backwards) and fails a compressed one with "
             "UNKNOWN_SERVER_ERROR; this broker never rewrites a batch and refuses both, INVALID_RECORD "
             "naming the record (KIP-467)"),
    Intended("responses[name=unknown-codec-*].partition_responses[index=0].error_code",
             "compression codec 7 in a batch's attributes: Kafka fails with UNKNOWN_SERVER_ERROR (an "
             "unexpected IllegalArgumentException), this broker answers UNSUPPORTED_COMPRESSION_TYPE"),
)


def flatten(value: Any, path: str = "", volatile: tuple[str, ...] = ()) -> dict[str, Any]:
    """{'responses[name=t].partition_responses[index=0].error_code': 3, ...}: a response as paths to leaves.
    `volatile`: more field names compared by shape in this one answer (a LogAppendTime topic's timestamps)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, v in value.items():
            out.update(flatten(v, f"{path}.{key}" if path else key, volatile))
        return out
    if isinstance(value, list):
        out = {f"{path}.length": len(value)}
        key = _identity(value)
        for i, v in enumerate(value):
            element = f"{path}[{key}={v[key]}]" if key else f"{path}[{i}]"
            out[element] = "<present>"  # so an element one side lacks is one difference, not one per field
            out.update(flatten(v, element, volatile))
        return out
    leaf = path.rsplit(".", 1)[-1]
    if leaf in volatile:
        return {path: _time_shape(value)}
    return {path: VOLATILE[leaf](value) if leaf in VOLATILE else value}


# The field that names an element of a list (a topic, a partition, a config...): lists of such elements
# are compared element by element by that name, so an order neither protocol promises is no difference.
IDENTITIES = ("name", "topic", "partition_index", "partition", "index", "group_id", "transactional_id",
              "resource_name", "member_id", "producer_id", "broker_id", "node_id")


def _identity(items: list) -> str | None:
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in IDENTITIES:
        if all(key in i for i in items) and len({repr(i[key]) for i in items}) == len(items):
            return key
    return None


def differences(ours: Any, theirs: Any, intended: tuple[Intended, ...] = (),
                volatile: tuple[str, ...] = ()) -> list[str]:
    """Every path whose value differs and is not an intended difference, as 'path: ours=.. apache=..'."""
    ours_flat = flatten(ours.to_dict() if hasattr(ours, "to_dict") else ours, volatile=volatile)
    theirs_flat = flatten(theirs.to_dict() if hasattr(theirs, "to_dict") else theirs, volatile=volatile)
    allowed = (*INTENDED_DIFFERENCES, *intended)
    found, absent = [], []
    for path in sorted(ours_flat.keys() | theirs_flat.keys()):
        mine, apache = ours_flat.get(path, "<absent>"), theirs_flat.get(path, "<absent>")
        if mine == apache or any(fnmatch.fnmatchcase(path, i.path.replace("[", "[[]")) for i in allowed):
            continue
        if any(path.startswith(a) for a in absent):
            continue  # inside an element already reported missing on one side
        if "<present>" in (mine, apache):
            absent.append(path)
        found.append(f"{path}: ours={mine!r} apache={apache!r}")
    return found


def differ(api_key: ApiKey, version: int, found: list[str]) -> str:
    """An assertion's message: the differences `differences` found, one a line."""
    return f"{api_key.name} v{version}: our broker and Apache Kafka differ:\n  " + "\n  ".join(found)


class Side:
    """One broker as the suite sees it: where it listens and a raw connection to it."""

    def __init__(self, name: str, port: int) -> None:
        self.name, self.port = name, port
        self.bootstrap = f"127.0.0.1:{port}"
        self._client: WireClient | None = None

    @property
    def client(self) -> WireClient:
        if self._client is None:
            self._client = WireClient(self.port, timeout=30)
        return self._client

    def request(self, api_key: ApiKey, version: int, body: dict) -> Any:
        return self.client.request(api_key, version, body)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


class Pair:
    """Our broker and Apache Kafka, asked the same things."""

    def __init__(self, ours: Side, apache: Side) -> None:
        self.ours, self.apache = ours, apache
        self.sides = (ours, apache)

    def ask(self, api_key: ApiKey, version: int, body: dict | Callable[[Side], dict]) -> tuple[Any, Any]:
        """The same request to both (a callable body gets each side, for what differs: a topic's id)."""
        answers = [side.request(api_key, version, body(side) if callable(body) else body)
                   for side in self.sides]
        return answers[0], answers[1]

    def same(self, api_key: ApiKey, version: int, body: dict | Callable[[Side], dict],
             intended: tuple[Intended, ...] = (), volatile: tuple[str, ...] = ()) -> Any:
        """Ask both, assert the answers agree field by field, return ours."""
        ours, theirs = self.ask(api_key, version, body)
        found = differences(ours, theirs, intended, volatile)
        assert not found, differ(api_key, version, found)
        return ours

    def close(self) -> None:
        for side in self.sides:
            side.close()
