"""ConfigDef: how a configuration key is declared and its value read (Kafka's
org.apache.kafka.common.config.ConfigDef): a ConfigKey names the key, its type (INT, BOOLEAN, STRING,
LIST: each parses the text of server.properties), its default and documentation, and a validator
(Kafka's Range.atLeast, Range.between, NonEmptyString, ValidString.in). A value that does not parse or
validate becomes a ConfigError whose message names the key (KafkaConfig does the naming)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class ConfigError(ValueError):
    """A bad configuration; the message names the key."""


# ConfigDef.Type: each turns a value's text into the value, or raises ValueError.
def INT(value: str) -> int:
    return int(value.strip())


def BOOLEAN(value: str) -> bool:
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ValueError("expected true or false")
    return v == "true"


def STRING(value: str) -> str:
    return value.strip()


def LIST(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


# Validators: None when the value is good, else what is wrong with it.
def at_least(n: int) -> Callable[[Any], str | None]:
    return lambda v: None if v >= n else f"must be at least {n}"


def between(low: int, high: int) -> Callable[[Any], str | None]:
    return lambda v: None if low <= v <= high else f"must be between {low} and {high}"


def non_empty(v: Any) -> str | None:
    return None if v else "must not be empty"


def one_of(*choices: str) -> Callable[[Any], str | None]:
    return lambda v: None if v.lower() in choices else f"must be one of {', '.join(choices)}"


INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class ConfigKey:
    name: str
    parse: Callable[[str], Any]
    default: str | None
    doc: str
    validate: Callable[[Any], str | None] | None = None
