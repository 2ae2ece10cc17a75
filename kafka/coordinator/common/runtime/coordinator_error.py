"""CoordinatorError: why a runtime operation failed, as an error code (Kafka's ApiExceptions that the
runtime throws: NotCoordinatorException, CoordinatorLoadInProgressException, TimeoutException...).

The runtime fails its futures with one of these, carrying the Errors member it stands for; the service
above maps them to each API's codes (an OffsetCommit answers NOT_COORDINATOR where a TxnOffsetCommit may
answer something else), so the runtime never does that mapping itself.
"""

from __future__ import annotations

from kafka.protocol.errors import Errors


class CoordinatorError(Exception):
    def __init__(self, error: Errors, message: str = "") -> None:
        super().__init__(f"{error.name}: {message}" if message else error.name)
        self.error = error
