"""CoordinatorOperationExceptionHelper: what a client hears when a coordinator operation failed (Kafka's
org.apache.kafka.coordinator.common.runtime.CoordinatorOperationExceptionHelper).

A write to a coordinator partition can fail below the coordinator (the append, the replication, the
leadership). Those errors mean nothing to the caller; each is mapped to what makes it retry or look
for the coordinator again, and anything unexpected is logged and answered UNKNOWN_SERVER_ERROR.
"""

from __future__ import annotations

import structlog

from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.coordinator.common.runtime.CoordinatorOperationExceptionHelper")


def handle_operation_exception(operation_name: str, operation_input, exception: BaseException
                               ) -> tuple[Errors, str | None]:
    """(the error to answer, its message or None for the error's own)."""
    error = getattr(exception, "error", None)
    if not isinstance(error, Errors):
        log.error("operation hit an unexpected exception", operation=operation_name,
                  input=str(operation_input),
                  error=repr(exception))
        return Errors.UNKNOWN_SERVER_ERROR, None
    if error == Errors.UNKNOWN_SERVER_ERROR:
        log.error("operation hit an unexpected exception", operation=operation_name,
                  input=str(operation_input),
                  error=repr(exception))
        return Errors.UNKNOWN_SERVER_ERROR, None
    if error == Errors.NETWORK_EXCEPTION:
        # A verification with another coordinator failed: retried without a new lookup.
        return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS, Errors.REQUEST_TIMED_OUT):
        return Errors.COORDINATOR_NOT_AVAILABLE, None
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR, None
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_FETCH_SIZE):
        return Errors.UNKNOWN_SERVER_ERROR, None
    return error, str(exception)
