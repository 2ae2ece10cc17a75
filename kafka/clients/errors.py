"""The exceptions a client raises (Kafka's org.apache.kafka.common.errors.*, cut down).

A broker answers with an error *code*; the client turns it into a ``KafkaError`` that carries the
``Errors`` member, so callers can ask ``e.error.retriable`` exactly as the Java client asks
``e instanceof RetriableException``.
"""

from __future__ import annotations

from kafka.protocol.errors import Errors


class KafkaError(Exception):
    """An error from a broker (``error`` is the wire code) or from the client itself."""

    def __init__(self, error: Errors | int = Errors.UNKNOWN_SERVER_ERROR, message: str | None = None) -> None:
        self.error = Errors.for_code(int(error))
        self.message = message or self.error.message  # what Java's exception.getMessage() says
        super().__init__(f"{self.error.name}: {self.message}")

    @property
    def retriable(self) -> bool:
        return self.error.retriable


class KafkaTimeoutError(KafkaError):
    """An operation did not finish within its timeout (Kafka's TimeoutException; retriable)."""

    def __init__(self, message: str) -> None:
        super().__init__(Errors.REQUEST_TIMED_OUT, message)


class DisconnectError(KafkaError):
    """The connection broke before the response came back (Kafka's NetworkException)."""

    def __init__(self, message: str) -> None:
        super().__init__(Errors.NETWORK_EXCEPTION, message)


class ConfigError(ValueError):
    """A bad client config; the message names the key (Kafka's ConfigException)."""

