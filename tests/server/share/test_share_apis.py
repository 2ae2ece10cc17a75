"""ShareApis over real collaborators: requests decoded from bytes written with the real schemas, a real
SharePartitionManager over a real ReplicaManager, a real MetadataCache and AuthHelper (no authoriser),
and a responder that keeps what it is given, as the request channel would send it."""

from __future__ import annotations

import uuid

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import RequestHeader
from kafka.protocol.types import ByteReader
from kafka.server.auth_helper import AuthHelper
from kafka.server.share_apis import ShareApis
from tests.server.share.conftest import GROUP, TOPIC_ID

MEMBER = "member-1"


class Responder:
    def __init__(self) -> None:
        self.sent = []

    def send_response(self, request, body) -> None:
        api = APIS[request.header.api_key]
        out = bytearray()
        api.response.write(out, body, request.header.api_version, True)  # it must encode
        self.sent.append(body)


def request(key: ApiKey, version: int, body: dict, connection: str = "conn-1") -> Request:
    api = APIS[key]
    out = bytearray()
    api.request.write(out, body, version, True)
    r = Request(0, connection, "PLAINTEXT", "127.0.0.1", RequestHeader(key, version, 1, "client", 0, 2),
                memoryview(b""))
    r.body = api.request.read(ByteReader(bytes(out)), version, True)
    return r


def share_fetch(epoch: int, partitions=(0,), acks=None, version: int = 2, forget=(), topic_id=TOPIC_ID,
                max_wait_ms: int = 0) -> dict:
    return dict(group_id=GROUP, member_id=MEMBER, share_session_epoch=epoch, max_wait_ms=max_wait_ms,
                min_bytes=1,
                max_bytes=1 << 20, max_records=500, batch_size=500,
                topics=[dict(topic_id=topic_id,
                             partitions=[dict(partition_index=p, acknowledgement_batches=acks or [])
                                         for p in partitions])],
                forgotten_topics_data=[dict(topic_id=topic_id, partitions=list(forget))] if forget else [])


def share_ack(epoch: int, first: int, last: int, *types: int, topic_id=TOPIC_ID) -> dict:
    return dict(group_id=GROUP, member_id=MEMBER, share_session_epoch=epoch, topics=[dict(
        topic_id=topic_id, partitions=[dict(partition_index=0, acknowledgement_batches=[
            dict(first_offset=first, last_offset=last, acknowledge_types=list(types))])])])


def apis_for(env) -> tuple[ShareApis, Responder]:
    responder = Responder()
    return ShareApis(env.manager, env.metadata_cache, AuthHelper(None), responder, env.config_provider,
                     record_lock_duration_ms=30000), responder


def partitions(body: dict) -> dict[int, dict]:
    return {p["partition_index"]: p for t in body["responses"] for p in t["partitions"]}


def test_fetch_acknowledge_in_the_next_fetch_and_close(env):
    apis, responder = apis_for(env)
    env.produce(b"a", b"b")
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(0)))
    body = responder.sent[-1]
    assert (body["error_code"], body["acquisition_lock_timeout_ms"]) == (Errors.NONE, 30000)
    assert [(r["first_offset"], r["last_offset"], r["delivery_count"])
            for r in partitions(body)[0]["acquired_records"]] == [(0, 1, 1)]
    ack = [dict(first_offset=0, last_offset=1, acknowledge_types=[1])]
    env.produce(b"c")
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(1, acks=ack)))
    [data] = partitions(responder.sent[-1]).values()
    assert data["acknowledge_error_code"] == Errors.NONE
    assert [(r["first_offset"], r["last_offset"]) for r in data["acquired_records"]] == [(2, 2)]
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 2, share_ack(-1, 2, 2, 2)))
    assert partitions(responder.sent[-1])[0]["error_code"] == Errors.NONE
    assert env.sessions.size() == 0, "epoch -1 closed the session"


def test_session_errors_are_answered_at_the_top_level(env):
    apis, responder = apis_for(env)
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 1, share_fetch(4)))
    assert responder.sent[-1]["error_code"] == Errors.SHARE_SESSION_NOT_FOUND
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 1, share_fetch(0)))
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 1, share_ack(7, 0, 0, 1)))
    assert responder.sent[-1]["error_code"] == Errors.INVALID_SHARE_SESSION_EPOCH
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 1, dict(share_fetch(1), member_id="")))
    assert responder.sent[-1]["error_code"] == Errors.INVALID_REQUEST


def test_refusals_carry_no_message_and_partitions_no_leader(env):
    """As Kafka 4.4's getErrorResponse: a refused ShareFetch or ShareAcknowledge has the code alone; and a
    partition answered here names no current leader: LeaderIdAndEpoch's generated defaults, 0 and 0."""
    apis, responder = apis_for(env)
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(3)))
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 2, share_ack(3, 0, 0, 1)))
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, dict(share_fetch(0), member_id="")))
    assert [(body["error_code"], body["error_message"]) for body in responder.sent] == [
        (Errors.SHARE_SESSION_NOT_FOUND, None), (Errors.SHARE_SESSION_NOT_FOUND, None),
        (Errors.INVALID_REQUEST, None)]
    env.produce(b"a")
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(0)))
    assert partitions(responder.sent[-1])[0]["current_leader"] == dict(leader_id=0, leader_epoch=0)
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 2, share_ack(1, 0, 0, 1)))
    assert partitions(responder.sent[-1])[0]["current_leader"] == dict(leader_id=0, leader_epoch=0)


def test_a_renewing_request_must_not_fetch(env):
    apis, responder = apis_for(env)
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, dict(share_fetch(0), is_renew_ack=True)))
    assert responder.sent[-1]["error_code"] == Errors.INVALID_REQUEST


def test_unknown_topic_ids_and_partitions_led_elsewhere(env):
    apis, responder = apis_for(env)
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(0, partitions=(0, 1))))
    elsewhere = partitions(responder.sent[-1])[1]
    assert elsewhere["error_code"] == Errors.NOT_LEADER_OR_FOLLOWER
    assert elsewhere["current_leader"] == dict(leader_id=2, leader_epoch=3)
    assert responder.sent[-1]["node_endpoints"] == [dict(node_id=2, host="localhost", port=9093,
                                                         rack="rack-2")]
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 2,
                                                  share_ack(1, 0, 0, 1, topic_id=uuid.uuid4())))
    [ack] = partitions(responder.sent[-1]).values()
    assert ack["error_code"] == Errors.UNKNOWN_TOPIC_ID


def test_bad_acknowledgement_batches_are_invalid_requests(env):
    apis, responder = apis_for(env)
    env.produce(b"a", b"b")
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 1, share_fetch(0)))
    # last before first; three types for two offsets; renew (4) in a v1 request
    for epoch, bad in enumerate((share_ack(0, 1, 0, 1), share_ack(0, 0, 1, 1, 1, 1), share_ack(0, 0, 1, 4)),
                                1):
        apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 1,
                                                      dict(bad, share_session_epoch=epoch)))
        assert partitions(responder.sent[-1])[0]["error_code"] == Errors.INVALID_REQUEST
    apis.handle_share_acknowledge_request(request(ApiKey.SHARE_ACKNOWLEDGE, 1, share_ack(4, 0, 1, 1)))
    assert partitions(responder.sent[-1])[0]["error_code"] == Errors.NONE


def test_a_long_poll_is_answered_from_the_purgatory(env):
    apis, responder = apis_for(env)
    # loads the share partition
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(0)))
    apis.handle_share_fetch_request(request(ApiKey.SHARE_FETCH, 2, share_fetch(1, max_wait_ms=5000)))
    assert len(responder.sent) == 1, "the request thread returned; the fetch waits"
    env.produce(b"late")
    assert len(responder.sent) == 2
    assert partitions(responder.sent[-1])[0]["acquired_records"][0]["first_offset"] == 0
