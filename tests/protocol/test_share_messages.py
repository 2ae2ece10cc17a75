"""ShareFetch and ShareAcknowledge against Apache Kafka 4.4's own encoding: bodies its kafka-clients
generated classes wrote (tests/protocol/data/kafka44_share_messages.txt, both versions 4.4 serves)
decode to the values written and re-encode byte for byte. The schema round trip at every version is
in test_schemas.py."""

from __future__ import annotations

import pathlib
import uuid

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import ProtocolEncodeError
from kafka.protocol.record_batch import iter_batches
from kafka.protocol.types import ByteReader

DATA = pathlib.Path(__file__).parent / "data" / "kafka44_share_messages.txt"
TOPIC_ID = uuid.UUID("0123456789abcdef0fedcba987654321")
BODIES = dict(line.split() for line in DATA.read_text().splitlines() if line and not line.startswith("#"))


def decode(name: str):
    api_name, side, version = name.rsplit("_", 2)
    api = APIS[ApiKey.SHARE_FETCH if api_name == "share_fetch" else ApiKey.SHARE_ACKNOWLEDGE]
    schema, v = getattr(api, side), int(version[1:])
    body = bytes.fromhex(BODIES[name])
    reader = ByteReader(body)
    value = schema.read(reader, v, api.is_flexible(v))
    assert reader.remaining == 0
    out = bytearray()
    schema.write(out, value, v, api.is_flexible(v))
    assert bytes(out) == body, f"{name} re-encodes differently"
    return value


@pytest.mark.parametrize("name", sorted(BODIES))
def test_kafka_bodies_decode_and_reencode_byte_for_byte(name: str) -> None:
    decode(name)


def test_share_fetch_request_fields() -> None:
    for version in (1, 2):
        req = decode(f"share_fetch_request_v{version}")
        assert (req.group_id, req.member_id, req.share_session_epoch) == ("g1", "m-1", 3)
        assert (req.max_wait_ms, req.min_bytes, req.max_bytes, req.max_records, req.batch_size) == (500, 1,
                                                                                                    1048576,
                                                                                                    500,
                                                                                                    100)
        assert req.share_acquire_mode == (1 if version == 2 else 0)
        [topic] = req.topics
        assert topic.topic_id == TOPIC_ID
        [batch] = topic.partitions[0].acknowledgement_batches
        assert (batch.first_offset, batch.last_offset, batch.acknowledge_types) == (10, 12, [1, 2, 3])
        assert req.forgotten_topics_data[0].partitions == [5]


def test_share_fetch_response_fields() -> None:
    resp = decode("share_fetch_response_v2")
    assert resp.acquisition_lock_timeout_ms == 30000
    [with_data, with_error] = resp.responses[0].partitions
    [batch] = list(iter_batches(bytes(with_data.records)))
    assert (batch.base_offset, batch.records_count) == (0, 1)
    assert [(a.first_offset, a.last_offset, a.delivery_count) for a in with_data.acquired_records] == [(0, 0,
                                                                                                        1)]
    assert (with_error.error_code, with_error.acknowledge_error_code,
            with_error.acknowledge_error_message) == \
        (6, 121, "bad")
    assert (with_error.current_leader.leader_id, with_error.current_leader.leader_epoch) == (2, 7)
    assert [(n.node_id, n.host, n.port, n.rack) for n in resp.node_endpoints] == [(2, "localhost", 9093,
                                                                                   None)]


def test_share_acknowledge_fields() -> None:
    assert decode("share_acknowledge_request_v2").is_renew_ack is True
    batch = decode("share_acknowledge_request_v1").topics[0].partitions[0].acknowledgement_batches[0]
    assert batch.acknowledge_types == [1]
    assert decode("share_acknowledge_response_v2").acquisition_lock_timeout_ms == 30000
    assert decode("share_acknowledge_response_v1").responses[0].partitions[0].error_code == 121


def test_renew_cannot_be_written_before_v2_as_kafka_refuses() -> None:
    api = APIS[ApiKey.SHARE_FETCH]
    with pytest.raises(ProtocolEncodeError):
        api.request.write(bytearray(), dict(group_id="g", member_id="m", share_session_epoch=0, max_wait_ms=0,
                                            min_bytes=0, max_bytes=0, max_records=0, batch_size=0,
                                            is_renew_ack=True,
                                            topics=[], forgotten_topics_data=[]), 1, True)
