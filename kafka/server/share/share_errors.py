"""ShareError: a share partition's refusal, with the error code the response carries (Kafka's
InvalidRecordStateException, InvalidRequestException, NotLeaderOrFollowerException, ... which
Errors.forException turns into codes; here the exception carries its code)."""

from __future__ import annotations

from concurrent.futures import Future

from kafka.protocol.errors import Errors


class ShareError(Exception):
    def __init__(self, error: Errors, message: str = "") -> None:
        super().__init__(message or error.message)
        self.error = error

    @property
    def message(self) -> str:
        return str(self)


def error_of(exception: BaseException) -> Errors:
    """The code a response carries for an exception (Kafka's Errors.forException)."""
    return exception.error if isinstance(exception, ShareError) else Errors.UNKNOWN_SERVER_ERROR


def persister_error(error_code: int, message: str | None) -> ShareError:
    """What a persister's error code means to the share partition (Kafka's fetchPersisterError)."""
    error = Errors(error_code) if error_code in Errors._value2member_map_ else Errors.UNKNOWN_SERVER_ERROR
    if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                 Errors.COORDINATOR_LOAD_IN_PROGRESS):
        return ShareError(Errors.COORDINATOR_NOT_AVAILABLE, message or "")
    if error in (Errors.GROUP_ID_NOT_FOUND, Errors.UNKNOWN_TOPIC_OR_PARTITION):
        return ShareError(error, message or "")
    if error in (Errors.FENCED_LEADER_EPOCH, Errors.FENCED_STATE_EPOCH):
        return ShareError(Errors.NOT_LEADER_OR_FOLLOWER, message or "")
    return ShareError(Errors.UNKNOWN_SERVER_ERROR, message or "")


def persisted(write: Future) -> Future:
    """A persister's future of an error code as a future of None, or of the ShareError that code means."""
    result: Future = Future()

    def done(_: Future) -> None:
        try:
            error_code = write.result()
        except Exception as e:  # noqa: BLE001  (the persister could not be reached)
            result.set_exception(ShareError(Errors.UNKNOWN_SERVER_ERROR, str(e)))
            return
        if error_code != Errors.NONE:
            result.set_exception(persister_error(error_code, None))
        else:
            result.set_result(None)

    write.add_done_callback(done)
    return result
