"""ClientMetricsConfigs: the three keys of a client-metrics subscription (KIP-714), their defaults and
Kafka's checks (Kafka's org.apache.kafka.server.metrics.ClientMetricsConfigs).

A subscription is a config resource of type CLIENT_METRICS (16) named by the operator, written by the
controller as ConfigRecords like a topic's configs:

    metrics      LIST  metric name prefixes the matching clients push ("*" or "" all; none: nothing)
    interval.ms  INT   how often they push, 100 .. 3600000 (default 300000, five minutes)
    match        LIST  name=regex pairs a client must all match (none: every client); the names are
                       client_instance_id, client_id, client_software_name, client_software_version,
                       client_source_address, client_source_port; a regex must match the whole value

`validate` raises ClientMetricsConfigError with Kafka's error code and message: INVALID_REQUEST for an
unknown key, an empty name or an interval out of range, INVALID_CONFIG for a value that does not parse
(ConfigDef's messages) and a bad match pattern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kafka.protocol.errors import Errors

CLIENT_METRICS_RESOURCE = 16  # ConfigResource.Type.CLIENT_METRICS
CLIENT_METRICS_CONFIG = 7  # DescribeConfigsResponse.ConfigSource.CLIENT_METRICS_CONFIG

METRICS_CONFIG = "metrics"
INTERVAL_MS_CONFIG = "interval.ms"
MATCH_CONFIG = "match"

CLIENT_INSTANCE_ID = "client_instance_id"
CLIENT_ID = "client_id"
CLIENT_SOFTWARE_NAME = "client_software_name"
CLIENT_SOFTWARE_VERSION = "client_software_version"
CLIENT_SOURCE_ADDRESS = "client_source_address"
CLIENT_SOURCE_PORT = "client_source_port"
ALLOWED_MATCH_PARAMS = frozenset({CLIENT_INSTANCE_ID, CLIENT_ID, CLIENT_SOFTWARE_NAME,
                                  CLIENT_SOFTWARE_VERSION, CLIENT_SOURCE_ADDRESS, CLIENT_SOURCE_PORT})

ALL_SUBSCRIBED_METRICS = "*"
INTERVAL_MS_DEFAULT = 300_000
MIN_INTERVAL_MS = 100
MAX_INTERVAL_MS = 3_600_000

# key -> (ConfigDef.Type, default, documentation), in Kafka's order of definition
CONFIG_DEF: dict[str, tuple[str, object, str]] = {
    METRICS_CONFIG: ("LIST", [], "Telemetry metric name prefix list"),
    INTERVAL_MS_CONFIG: ("INT", INTERVAL_MS_DEFAULT, "Metrics push interval in milliseconds"),
    MATCH_CONFIG: ("LIST", [], "Client match criteria"),
}


class ClientMetricsConfigError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


def config_names() -> list[str]:
    return list(CONFIG_DEF)


def config_type(key: str) -> str | None:
    return CONFIG_DEF[key][0] if key in CONFIG_DEF else None


def documentation_of(key: str) -> str | None:
    return CONFIG_DEF[key][2] if key in CONFIG_DEF else None


def convert_to_string(value: object) -> str:
    """ConfigDef.convertToString: a list joined with commas, a number as it is."""
    return ",".join(value) if isinstance(value, list) else str(value)


def validate(subscription_name: str | None, props: Mapping[str, str]) -> None:
    """Kafka's ClientMetricsConfigs.validate: the subscription's whole new set of configs."""
    if not subscription_name:
        raise ClientMetricsConfigError(Errors.INVALID_REQUEST, "Subscription name can't be empty")
    for key in props:
        if key not in CONFIG_DEF:
            raise ClientMetricsConfigError(Errors.INVALID_REQUEST,
                                           f"Unknown client metrics configuration: {key}")
    parsed = parse(props)
    if INTERVAL_MS_CONFIG in props:
        interval = parsed[INTERVAL_MS_CONFIG]
        if not MIN_INTERVAL_MS <= interval <= MAX_INTERVAL_MS:
            raise ClientMetricsConfigError(
                Errors.INVALID_REQUEST, f"Invalid value {interval} for {INTERVAL_MS_CONFIG}, interval must "
                f"be between {MIN_INTERVAL_MS} and {MAX_INTERVAL_MS} (1 hour)")
    if MATCH_CONFIG in props:
        parse_matching_patterns(parsed[MATCH_CONFIG])


def parse(props: Mapping[str, str]) -> dict[str, object]:
    """ConfigDef.parse: every key's value, typed, the default where `props` does not set it."""
    parsed: dict[str, object] = {}
    for key, (kind, default, _doc) in CONFIG_DEF.items():
        if key not in props:
            parsed[key] = list(default) if isinstance(default, list) else default
        elif kind == "LIST":
            parsed[key] = _parse_list(key, props[key])
        else:
            parsed[key] = _parse_int(key, props[key])
    return parsed


def _parse_list(key: str, value: str | None) -> list[str]:
    """A LIST value (ConfigDef.parseType, then ValidList.anyNonDuplicateValues(allowEmpty, !allowNull))."""
    if value is None:
        raise ClientMetricsConfigError(Errors.INVALID_CONFIG,
                                       f"Configuration '{key}' values must not be null.")
    text = value.strip()
    items = re.split(r"\s*,\s*", text, flags=re.DOTALL) if text else []
    if any(item == "" for item in items):
        raise ClientMetricsConfigError(Errors.INVALID_CONFIG,
                                       f"Configuration '{key}' values must not be empty.")
    return items


def _parse_int(key: str, value: str | None) -> int:
    try:
        number = int((value or "").strip())
    except ValueError:
        number = None
    if number is None or not -2**31 <= number < 2**31:
        raise ClientMetricsConfigError(Errors.INVALID_CONFIG,
                                       f"Invalid value {value} for configuration {key}: Not a number of "
                                       "type INT")
    return number


def parse_matching_patterns(patterns: list[str]) -> dict[str, re.Pattern]:
    """Kafka's parseMatchingPatterns: "name=regex" each, split at '=' (Java's String.split: exactly two
    parts, trailing empty ones dropped), the name one of ALLOWED_MATCH_PARAMS, the regex compiling."""
    parsed: dict[str, re.Pattern] = {}
    for pattern in patterns:
        parts = pattern.split("=")
        while parts and parts[-1] == "":
            parts.pop()
        illegal = ClientMetricsConfigError(Errors.INVALID_CONFIG,
                                           f"Illegal client matching pattern: {pattern}")
        if len(parts) != 2 or parts[0].strip() not in ALLOWED_MATCH_PARAMS:
            raise illegal
        try:
            parsed[parts[0].strip()] = re.compile(parts[1].strip())
        except re.error:
            raise illegal from None
    return parsed


def describe_client_metrics(props: Mapping[str, str]) -> list[tuple]:
    """Kafka's ConfigHelper for a CLIENT_METRICS resource: every key, valued as the subscription sets it
    (CLIENT_METRICS_CONFIG) or by default (DEFAULT_CONFIG, no synonym), as (name, value, source, read_only,
    synonyms, documentation, sensitive, config type) for config_helper.DescribedConfig."""
    config_types = {"LIST": 7, "INT": 3}  # DescribeConfigsResponse.ConfigType
    described, parsed = [], parse(props)
    for key, (kind, _default, doc) in CONFIG_DEF.items():
        own = key in props
        text = convert_to_string(parsed[key])
        synonyms = ((key, text, CLIENT_METRICS_CONFIG),) if own else ()
        described.append((key, text, CLIENT_METRICS_CONFIG if own else 5, False, synonyms, doc, False,
                          config_types[kind]))
    return described
