"""ConfigDef: how a configuration key is declared and its value read (Kafka's
org.apache.kafka.common.config.ConfigDef).

A ConfigKey is one `ConfigDef.define(name, type, default, validator, importance, doc)` without the
importance: the key's name, its Kafka type (a ConfigType: INT, LONG, SHORT, DOUBLE, BOOLEAN, STRING,
LIST, PASSWORD, each parsing the text of server.properties), its default (that text, or None: unset),
a validator (Kafka's Range.atLeast, Range.between, NonEmptyString, ValidString.in) and its documentation.
A key whose value this broker keeps as more than its type's value (listeners' endpoints, a map, a set)
names the parser that builds it; its Kafka type is still what DescribeConfigs reports.

Declared on a config class, a ConfigKey is also the typed attribute that reads the parsed value, as
Kafka's KafkaConfig has a getter per key: `num_io_threads = ConfigKey("num.io.threads", INT, ...)`
makes `config.num_io_threads` an int. A value that does not parse or validate becomes a ConfigError
whose message names the key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")
Validator = Callable[[Any], "str | None"]


class ConfigError(ValueError):
    """A bad configuration; the message names the key."""


class RequirementError(ConfigError):
    """A check Kafka's KafkaConfig makes with Scala's require (an IllegalArgumentException, not a
    ConfigException): a dynamic change it refuses is answered with its words alone, unwrapped."""


@dataclass(frozen=True)
class ConfigType(Generic[T]):
    """ConfigDef.Type: its name (what DescribeConfigs reports) and how a value's text parses
    (ValueError if not)."""

    name: str
    parse: Callable[[str], T]


def _integer(bits: int, name: str) -> Callable[[str], int]:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def parse(value: str) -> int:
        number = int(value.strip())
        if not low <= number <= high:
            raise ValueError(f"not a number of type {name} ({low} to {high})")
        return number
    return parse


def _boolean(value: str) -> bool:
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ValueError("expected true or false")
    return v == "true"


def text(value: str) -> str:
    return value.strip()


def comma_separated(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


BOOLEAN = ConfigType("BOOLEAN", _boolean)
STRING = ConfigType("STRING", text)
INT = ConfigType("INT", _integer(32, "INT"))
SHORT = ConfigType("SHORT", _integer(16, "SHORT"))
LONG = ConfigType("LONG", _integer(64, "LONG"))
DOUBLE = ConfigType("DOUBLE", float)
LIST = ConfigType("LIST", comma_separated)
PASSWORD = ConfigType("PASSWORD", text)  # never logged nor described (kafka_config.is_sensitive)


# Validators: None when the value is good, else what is wrong with it.
def at_least(n: int) -> Validator:
    return lambda v: None if v >= n else f"must be at least {n}"


def between(low: float, high: float) -> Validator:
    return lambda v: None if low <= v <= high else f"must be between {low} and {high}"


def non_empty(v: Any) -> str | None:
    return None if v else "must not be empty"


def one_of(*choices: str) -> Validator:
    return lambda v: None if v.lower() in choices else f"must be one of {', '.join(choices)}"


INT32_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1


class ConfigKey(Generic[T]):
    """One key of a ConfigDef. `parse` replaces the type's own parser where this broker keeps more
    than the type's value; `in_kafka_config=False` marks a key Kafka's KafkaConfig does not define
    (the authoriser reads it itself, or it is this broker's own): DescribeConfigs types it UNKNOWN."""

    @overload
    def __init__(self: ConfigKey[T], name: str, type: ConfigType[Any], default: str | None,
                 validator: Validator | None, doc: str, *, parse: Callable[[str], T],
                 in_kafka_config: bool = True) -> None: ...

    @overload
    def __init__(self: ConfigKey[T], name: str, type: ConfigType[T], default: str | None,
                 validator: Validator | None, doc: str, *, in_kafka_config: bool = True) -> None: ...

    def __init__(self, name, type, default, validator, doc, *, parse=None, in_kafka_config=True) -> None:
        self.name = name
        self.type = type
        self.default = default
        self.validator = validator
        self.doc = doc
        self.parse = parse or type.parse
        self.in_kafka_config = in_kafka_config

    def __repr__(self) -> str:
        return f"ConfigKey({self.name!r}, {self.type.name}, default={self.default!r})"

    def __set_name__(self, owner: type, attribute: str) -> None:
        if attribute != self.name.replace(".", "_"):
            raise TypeError(f"{owner.__name__}.{attribute} declares key {self.name!r}: name it "
                            f"{self.name.replace('.', '_')}")

    @overload
    def __get__(self, config: None, owner: type) -> ConfigKey[T]: ...

    @overload
    def __get__(self, config: object, owner: type | None = None) -> T: ...

    def __get__(self, config, owner=None):
        if config is None:  # on the class: the declaration itself
            return self
        return config.values[self.name]

    def __set__(self, config: object, value: Any) -> None:
        raise AttributeError(f"configuration key '{self.name}' is read from server.properties, not set")

    def parse_value(self, raw: str) -> T:
        """The value of `raw`, parsed and validated; ConfigError naming the key if it is bad."""
        try:
            value = self.parse(raw)
        except ValueError as e:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{self.name}': {e}") from None
        problem = self.validator(value) if self.validator else None
        if problem:
            raise ConfigError(f"invalid value {raw!r} for configuration key '{self.name}': {problem}")
        return value
