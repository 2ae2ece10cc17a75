"""KafkaConfig: the broker's configuration, read from server.properties (Kafka's kafka.server.KafkaConfig).

Keys, types and defaults are Kafka's own, so a learner can look any of them up in Kafka's
documentation. `--override key=value` on the command line wins over the file. An unknown key or a
value of the wrong type stops start-up with a message naming the key, as Kafka's ConfigDef does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka.network.end_point import EndPoint, parse_listeners


class ConfigError(ValueError):
    """A bad configuration; the message names the key."""


# ---------------------------------------------------------------------------------- types

def _int(value: str) -> int:
    return int(value.strip())


def _bool(value: str) -> bool:
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ValueError("expected true or false")
    return v == "true"


def _str(value: str) -> str:
    return value.strip()


def _list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _at_least(n: int) -> Callable[[Any], str | None]:
    return lambda v: None if v >= n else f"must be at least {n}"


@dataclass(frozen=True)
class ConfigKey:
    name: str
    parse: Callable[[str], Any]
    default: str | None
    doc: str
    validate: Callable[[Any], str | None] | None = None


_KEYS = [
    ConfigKey("node.id", _int, "1", "The id of this broker.", _at_least(0)),
    ConfigKey("listeners", parse_listeners, "PLAINTEXT://:9092", "Where the broker accepts connections."),
    ConfigKey("advertised.listeners", _str, "", "What Metadata tells clients; defaults to listeners."),
    ConfigKey("log.dirs", _list, "/tmp/kraft-combined-logs", "Directories holding the partition logs."),
    ConfigKey("num.network.threads", _int, "3", "Processor threads per listener.", _at_least(1)),
    ConfigKey("num.io.threads", _int, "8", "Request handler (I/O) threads.", _at_least(1)),
    ConfigKey("queued.max.requests", _int, "500", "Requests queued before network threads stop reading.",
              _at_least(1)),
    ConfigKey("socket.request.max.bytes", _int, "104857600", "Largest request frame accepted.", _at_least(1)),
    ConfigKey("num.partitions", _int, "1", "Partitions of an auto-created topic.", _at_least(1)),
    ConfigKey("default.replication.factor", _int, "1", "Replication factor of an auto-created topic.",
              _at_least(1)),
    ConfigKey("auto.create.topics.enable", _bool, "true", "Create a topic on first Metadata or Produce."),
    ConfigKey("delete.topic.enable", _bool, "true", "Whether DeleteTopics is allowed."),
    ConfigKey("log.segment.bytes", _int, "1073741824", "Size at which a segment rolls.", _at_least(14)),
    ConfigKey("log.index.interval.bytes", _int, "4096", "Bytes between two offset index entries.",
              _at_least(0)),
    ConfigKey("message.max.bytes", _int, "1048588", "Largest record batch accepted.", _at_least(0)),
    ConfigKey("log.retention.hours", _int, "168", "Retention time (hours) of log segments."),
    ConfigKey("log.retention.ms", _int, None, "Retention time (ms); overrides log.retention.hours."),
    ConfigKey("log.retention.bytes", _int, "-1", "Retention size per partition; -1 is unlimited."),
    ConfigKey("log.cleanup.policy", _str, "delete", "delete or compact."),
    ConfigKey("min.insync.replicas", _int, "1", "Replicas that must have a batch for acks=all.", _at_least(1)),
    ConfigKey("replica.fetch.max.bytes", _int, "1048576", "Accepted for compatibility; single broker."),
    # -- log: retention, cleaner, flush, recovery
    # -- group coordinator and __consumer_offsets
    # -- metrics, logging and the request trace
    # Keys of Kafka's sample KRaft server.properties that a single teaching broker accepts without
    # acting on them, so that Kafka's own file starts it. They are listed in docs/configuration.md.
    ConfigKey("process.roles", _str, "broker,controller", "Accepted, not acted on (no KRaft quorum yet)."),
    ConfigKey("controller.quorum.voters", _str, "", "Accepted, not acted on."),
    ConfigKey("controller.quorum.bootstrap.servers", _str, "", "Accepted, not acted on."),
    ConfigKey("controller.listener.names", _str, "", "Accepted, not acted on."),
    ConfigKey("inter.broker.listener.name", _str, "", "Accepted, not acted on."),
    ConfigKey("listener.security.protocol.map", _str, "", "Accepted, not acted on (PLAINTEXT only)."),
    ConfigKey("socket.send.buffer.bytes", _int, "102400", "Accepted, not acted on."),
    ConfigKey("socket.receive.buffer.bytes", _int, "102400", "Accepted, not acted on."),
    ConfigKey("num.recovery.threads.per.data.dir", _int, "1", "Accepted, not acted on."),
    ConfigKey("offsets.topic.replication.factor", _int, "1", "Accepted, not acted on yet."),
    ConfigKey("transaction.state.log.replication.factor", _int, "1", "Accepted, not acted on."),
    ConfigKey("transaction.state.log.min.isr", _int, "1", "Accepted, not acted on."),
    ConfigKey("share.coordinator.state.topic.replication.factor", _int, "1", "Accepted, not acted on."),
    ConfigKey("share.coordinator.state.topic.min.isr", _int, "1", "Accepted, not acted on."),
]
CONFIG_KEYS: dict[str, ConfigKey] = {key.name: key for key in _KEYS}


class KafkaConfig:
    """Typed broker configuration. Attribute names are the keys with dots turned into underscores."""

    def __init__(self, props: Mapping[str, str]) -> None:
        self.originals = dict(props)
        self.values: dict[str, Any] = {}
        for name in props:
            if name not in CONFIG_KEYS:
                raise ConfigError(f"unknown configuration key '{name}'")
        for key in _KEYS:
            raw = props.get(key.name, key.default)
            self.values[key.name] = None if raw is None else self._parse(key, raw)
        self.advertised_listeners = self._advertised_listeners()

    @staticmethod
    def _parse(key: ConfigKey, raw: str) -> Any:
        try:
            value = key.parse(raw)
        except ValueError as e:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{key.name}': {e}") from None
        problem = key.validate(value) if key.validate else None
        if problem:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{key.name}': {problem}")
        return value

    def _advertised_listeners(self) -> list[EndPoint]:
        raw = self.values["advertised.listeners"]
        if not raw:
            return list(self.listeners)
        try:
            return parse_listeners(raw)
        except ValueError as e:
            raise ConfigError(f"invalid value {raw!r} for configuration key 'advertised.listeners': {e}") from None

    def __getattr__(self, attr: str) -> Any:
        name = attr.replace("_", ".")
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(attr)

    @property
    def log_retention_time_ms(self) -> int:
        ms = self.values["log.retention.ms"]
        return ms if ms is not None else self.values["log.retention.hours"] * 3_600_000

    def non_default_values(self) -> dict[str, str]:
        return {k: v for k, v in self.originals.items() if CONFIG_KEYS[k].default != v}

    @classmethod
    def from_file(cls, path: str, overrides: Mapping[str, str] | None = None) -> KafkaConfig:
        try:
            with open(path, encoding="utf-8") as f:
                props = parse_properties(f.read())
        except OSError as e:
            raise ConfigError(f"cannot read configuration file {path}: {e.strerror}") from None
        props.update(overrides or {})
        return cls(props)


def parse_properties(text: str) -> dict[str, str]:
    """Java .properties: `key=value` or `key: value`, # and ! comments, backslash continuations."""
    props: dict[str, str] = {}
    logical = ""
    for raw_line in text.splitlines():
        line = raw_line.lstrip()
        if not logical and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        key, value = _split_property(logical)
        props[key] = value
        logical = ""
    if logical:
        key, value = _split_property(logical)
        props[key] = value
    return props


def _split_property(line: str) -> tuple[str, str]:
    for i, ch in enumerate(line):
        if ch in "=:":
            return line[:i].strip(), line[i + 1 :].strip()
        if ch.isspace():
            rest = line[i:].lstrip()
            if rest[:1] in ("=", ":"):
                rest = rest[1:]
            return line[:i].strip(), rest.strip()
    return line.strip(), ""
