"""FetchSessionHandler (KIP-227, the fetcher's side): what each request names, and how a session
is started, moved on and lost."""

from __future__ import annotations

from kafka.clients.fetch_session_handler import FetchSessionHandler, PartitionData
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)


def at(offset: int) -> PartitionData:
    return PartitionData(offset, 1024)


def test_the_first_request_is_full_then_only_changes_are_sent():
    handler = FetchSessionHandler(1)
    first = handler.build({A0: at(0), A1: at(0)})
    assert (first.session_id, first.epoch, list(first.to_send)) == (0, 0, [A0, A1])
    assert handler.handle_response(Errors.NONE, 77)
    second = handler.build({A0: at(10), A1: at(0), B0: at(0)})
    assert (second.session_id, second.epoch, list(second.to_send), second.to_forget) == (77, 1, [A0, B0], [])
    assert handler.handle_response(Errors.NONE, 77)
    third = handler.build({A1: at(0), B0: at(0)})
    assert (third.epoch, third.to_send, third.to_forget) == (2, {}, [A0])


def test_a_broker_without_room_keeps_every_request_full():
    handler = FetchSessionHandler(1)
    handler.build({A0: at(0)})
    assert handler.handle_response(Errors.NONE, 0)
    assert handler.build({A0: at(5)}).is_full


def test_a_lost_session_makes_the_next_request_full():
    handler = FetchSessionHandler(1)
    handler.build({A0: at(0)})
    handler.handle_response(Errors.NONE, 77)
    handler.build({A0: at(5)})
    assert not handler.handle_response(Errors.FETCH_SESSION_ID_NOT_FOUND, 0)
    request = handler.build({A0: at(5)})
    assert (request.session_id, request.epoch, list(request.to_send)) == (0, 0, [A0])


def test_a_wrong_epoch_or_a_disconnect_closes_the_session_with_a_full_request():
    for fail in (lambda h: h.handle_response(Errors.INVALID_FETCH_SESSION_EPOCH, 0),
                 FetchSessionHandler.handle_error):
        handler = FetchSessionHandler(1)
        handler.build({A0: at(0)})
        handler.handle_response(Errors.NONE, 77)
        handler.build({A0: at(5)})
        fail(handler)
        request = handler.build({A0: at(5)})
        assert (request.session_id, request.epoch) == (77, 0)  # names 77 so the broker frees its slot
