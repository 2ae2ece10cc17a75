"""Client configs, named and defaulted as Kafka's (ProducerConfig, ConsumerConfig, AdminClientConfig).

Like Kafka's ConfigDef, each client declares the keys it knows with a type and a default; a key it
does not know, or a value that does not parse, is an error that names the key. Python callers may
also write ``linger_ms=10`` for ``linger.ms=10``.

``ProducerConfig`` adds the producer's rule for idempotence, as the Java client has had it since
3.2 (KIP-679 made ``enable.idempotence`` default to true in 3.0). Idempotence needs ``acks=all``,
``retries`` > 0 and ``max.in.flight.requests.per.connection`` <= 5. If the user set
``enable.idempotence=true`` and a conflicting key, that is an error. If the user left
``enable.idempotence`` unset, a conflicting key quietly turns idempotence off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import structlog

from kafka.clients.errors import ConfigError
from kafka.security.ssl_factory import SSL_DEFAULTS

log = structlog.get_logger("kafka.clients.ProducerConfig")


def _int(v: Any) -> int:
    return int(v)


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if str(v).lower() in ("true", "false"):
        return str(v).lower() == "true"
    raise ValueError(f"expected true or false, got {v!r}")


def _list(v: Any) -> list[str]:
    items = v if isinstance(v, (list, tuple)) else str(v).split(",")
    return [str(i).strip() for i in items if str(i).strip()]


def _str(v: Any) -> str | None:
    return None if v is None else str(v)


def _acks(v: Any) -> int:
    # "all" and -1 mean the same: the leader waits for the full ISR (seed 004, "acks").
    text = str(v).strip().lower()
    if text in ("all", "-1"):
        return -1
    if text in ("0", "1"):
        return int(text)
    raise ValueError(f"expected all, -1, 0 or 1, got {v!r}")


def _one_of(*choices: str) -> Callable[[Any], str]:
    def parse(v: Any) -> str:
        if str(v) not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {v!r}")
        return str(v)
    return parse


COMMON: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "bootstrap.servers": (_list, None),
    "client.id": (_str, ""),
    "request.timeout.ms": (_int, 30000),
    "reconnect.backoff.ms": (_int, 50),
    "reconnect.backoff.max.ms": (_int, 1000),
    "retry.backoff.ms": (_int, 100),
    "metadata.max.age.ms": (_int, 300000),
    "socket.connection.setup.timeout.ms": (_int, 10000),
    "max.in.flight.requests.per.connection": (_int, 5),
    "connections.max.idle.ms": (_int, 540000),
    # docs/security.md: PLAINTEXT or SSL, and the ssl.* keys of Kafka's SslConfigs (client side)
    "security.protocol": (_str, "PLAINTEXT"),
    **{key: (_str, default) for key, default in SSL_DEFAULTS.items()
       if key not in ("ssl.client.auth", "ssl.principal.mapping.rules")},
    # SASL_PLAINTEXT / SASL_SSL: PLAIN or SCRAM-SHA-256/512, credentials in sasl.jaas.config
    "sasl.mechanism": (_str, "GSSAPI"),
    "sasl.jaas.config": (_str, None),
}

PRODUCER = {
    **COMMON,
    "acks": (_acks, -1),
    "batch.size": (_int, 16384),
    "linger.ms": (_int, 5),  # Kafka 4.0's default; 0 before
    "buffer.memory": (_int, 32 * 1024 * 1024),
    "compression.type": (_one_of("none", "gzip", "snappy", "lz4", "zstd"), "none"),
    "retries": (_int, 2**31 - 1),
    "delivery.timeout.ms": (_int, 120000),
    "max.block.ms": (_int, 60000),
    "max.request.size": (_int, 1048576),
    "partitioner.ignore.keys": (_bool, False),
    "enable.idempotence": (_bool, True),  # since Kafka 3.0 (KIP-679)
    "transactional.id": (_str, None),
    "transaction.timeout.ms": (_int, 60000),
}

# The broker keeps the metadata of a producer's last five batches per partition, so it can answer
# a retry of any of them as a duplicate: more in flight and a retry could fall outside that window.
MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE = 5

CONSUMER = {
    **COMMON,
    "group.id": (_str, None),
    "group.instance.id": (_str, None),
    "auto.offset.reset": (_one_of("earliest", "latest", "none"), "latest"),
    "enable.auto.commit": (_bool, True),
    "auto.commit.interval.ms": (_int, 5000),
    "fetch.min.bytes": (_int, 1),
    "fetch.max.bytes": (_int, 52428800),
    "fetch.max.wait.ms": (_int, 500),
    "max.partition.fetch.bytes": (_int, 1048576),
    "max.poll.records": (_int, 500),
    "max.poll.interval.ms": (_int, 300000),
    "session.timeout.ms": (_int, 45000),
    "heartbeat.interval.ms": (_int, 3000),
    "rebalance.timeout.ms": (_int, 0),  # 0: use max.poll.interval.ms, as the Java client does
    "partition.assignment.strategy": (_list, ["range", "cooperative-sticky"]),
    "isolation.level": (_one_of("read_uncommitted", "read_committed"), "read_uncommitted"),
    "check.crcs": (_bool, True),
    "default.api.timeout.ms": (_int, 60000),
}

ADMIN = {**COMMON, "default.api.timeout.ms": (_int, 60000)}


class ClientConfig:
    """Parsed config values: ``config["linger.ms"]``."""

    def __init__(self, definition: Mapping[str, tuple[Callable[[Any], Any], Any]],
                 props: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        given = dict(props or {})
        given.update({k.replace("_", "."): v for k, v in kwargs.items()})
        self.originals = frozenset(given)  # the keys the user set (AbstractConfig.originals)
        self.values: dict[str, Any] = {}
        for key, value in given.items():
            if key not in definition:
                raise ConfigError(f"unknown config {key!r}")
            parse = definition[key][0]
            try:
                self.values[key] = parse(value)
            except (TypeError, ValueError) as e:
                raise ConfigError(f"invalid value {value!r} for config {key!r}: {e}") from None
        for key, (_, default) in definition.items():
            self.values.setdefault(key, default)
        if not self.values["bootstrap.servers"]:
            raise ConfigError("missing required config 'bootstrap.servers'")

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


class ProducerConfig(ClientConfig):
    """The producer's configs, with the idempotence rule applied (Kafka's ProducerConfig)."""

    def __init__(self, props: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(PRODUCER, props, **kwargs)
        self.post_process_and_validate_idempotence_configs()
        if self.values["transactional.id"] is not None and not self.values["enable.idempotence"]:
            # A transaction's batches are numbered like an idempotent producer's (ProducerConfig's rule).
            raise ConfigError("cannot set a transactional.id without also enabling idempotence "
                              "(enable.idempotence=true, acks=all, retries > 0)")

    def post_process_and_validate_idempotence_configs(self) -> None:
        if not self.values["enable.idempotence"]:
            return
        user_configured_idempotence = "enable.idempotence" in self.originals
        conflicts = []
        if self.values["retries"] == 0:
            conflicts.append(("retries", "must set retries to non-zero when using the idempotent producer"))
        if self.values["acks"] != -1:
            conflicts.append(("acks", "must set acks to all in order to use the idempotent producer, "
                                      "otherwise we cannot guarantee idempotence"))
        in_flight = self.values["max.in.flight.requests.per.connection"]
        if in_flight > MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE:
            conflicts.append(("max.in.flight.requests.per.connection",
                              f"must set max.in.flight.requests.per.connection to at most "
                              f"{MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE} to use the "
                              "idempotent producer"))
        if not conflicts:
            return
        key, message = conflicts[0]
        if user_configured_idempotence:
            raise ConfigError(f"invalid value {self.values[key]!r} for config {key!r}: {message} "
                              f"(enable.idempotence=true)")
        log.info("idempotence will be disabled",
                 because=", ".join(f"{k}={self.values[k]}" for k, _ in conflicts))
        self.values["enable.idempotence"] = False
