"""TransactionCoordinator: InitProducerId for idempotent producers (Kafka's
kafka.coordinator.transaction.TransactionCoordinator.handleInitProducerId).

Seed 004, idempotence (KIP-98): "Duplicate data can be written if replication is done but the
Produce Response does not reach the producer (which retries)". An idempotent producer first asks
any broker for a producer id (InitProducerId), then numbers its batches under it. Kafka's rules,
as handleInitProducerId applies them:

    transactional_id null     a fresh id from the RPCProducerIdManager, epoch 0. A producer that
                              sends its current id and epoch (v3+, KIP-360: bumping its epoch after
                              an error) also just gets a fresh id: without a transactional id there
                              is nothing to bump, which is Kafka's non-transactional path too
    transactional_id ""       INVALID_REQUEST, as in Kafka (the client refuses an empty id as well)
    any other id              transactions do not exist here yet: INVALID_REQUEST, and a warning in
                              the broker's log naming the transactional id

Why INVALID_REQUEST for a transactional id: the answer must stop the producer, not make it retry.
COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS would have it retry until its own timeout
and then report a timeout, which hides the cause; UNSUPPORTED_VERSION would blame the API version,
which is not the problem; TRANSACTIONAL_ID_AUTHORIZATION_FAILED would send the user to ACLs.
INVALID_REQUEST is not retriable, the Java client reports it as "the message was sent to an
incompatible broker. See the broker logs for more details", and the broker's log says that
transactions are not supported.

The caller (KafkaApis) has already refused a request that gives only one of producer id and epoch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import structlog

from kafka.coordinator.transaction.producer_id_manager import RPCProducerIdManager
from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.coordinator.transaction.TransactionCoordinator")

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1


@dataclass(frozen=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


def init_transaction_error(error: Errors) -> InitProducerIdResult:
    return InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


class TransactionCoordinator:
    def __init__(self, producer_id_manager: RPCProducerIdManager) -> None:
        self.producer_id_manager = producer_id_manager

    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                expected_producer_id_and_epoch: tuple[int, int] | None,
                                response_callback: Callable[[InitProducerIdResult], None]) -> None:
        """Answer through response_callback, now or (while a block of ids is on its way) later,
        from the thread that receives it."""
        if transactional_id is None:
            # No transactional id: always accept, and hand out a new id (Kafka: "blindly accept").
            def on_producer_id(producer_id: int, error: Errors) -> None:
                if error != Errors.NONE:
                    response_callback(init_transaction_error(error))
                else:
                    response_callback(InitProducerIdResult(producer_id, 0, Errors.NONE))
            self.producer_id_manager.generate_producer_id_or_wait(on_producer_id)
        elif transactional_id == "":
            response_callback(init_transaction_error(Errors.INVALID_REQUEST))
        else:
            log.warning("InitProducerId with a transactional id refused: transactions are not supported by this "
                        "broker, only idempotent producers (no transactional.id)", transactional_id=transactional_id)
            response_callback(init_transaction_error(Errors.INVALID_REQUEST))
