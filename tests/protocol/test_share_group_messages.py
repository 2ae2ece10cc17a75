"""ShareGroupHeartbeat (76) and ShareGroupDescribe (77) at the one version Apache Kafka 4.4 serves (v1):
what this broker encodes is byte for byte what the 4.4 Java client's generated message classes encode
for the same values (captured with kafka-clients 4.4.0), and decoding gives the values back. The schema
round trip at every version is test_schemas.py's."""

from __future__ import annotations

import uuid

import pytest

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.types import ByteReader

pytestmark = pytest.mark.fast

TOPIC = uuid.UUID(int=5)
HEARTBEAT, DESCRIBE = APIS[ApiKey.SHARE_GROUP_HEARTBEAT], APIS[ApiKey.SHARE_GROUP_DESCRIBE]

CASES = [  # (api, side, value, the Java client's bytes)
    (HEARTBEAT, "request", dict(group_id="g", member_id="m", member_epoch=0, rack_id=None,
                                subscribed_topic_names=["orders"]),
     "0267026d000000000002076f726465727300"),
    (HEARTBEAT, "request",
     dict(group_id="g", member_id="m", member_epoch=3, rack_id="r1", subscribed_topic_names=None),
     "0267026d000000030372310000"),
    (HEARTBEAT, "response",
     dict(throttle_time_ms=0, error_code=0, error_message=None, member_id="m", member_epoch=2,
          heartbeat_interval_ms=5000, assignment=dict(topic_partitions=[
                                     dict(topic_id=TOPIC, partitions=[0, 1])])),
     "00000000000000026d0000000200001388010200000000000000000000000000000005030000000000000001000000"),
    (HEARTBEAT, "response", dict(throttle_time_ms=0, error_code=22, error_message="fenced", member_id=None,
                                 member_epoch=0, heartbeat_interval_ms=0, assignment=None),
     "0000000000160766656e636564000000000000000000ff00"),
    (DESCRIBE, "request", dict(group_ids=["g", "h"], include_authorized_operations=True), "03026702680100"),
    (DESCRIBE, "response", dict(throttle_time_ms=0, groups=[
        dict(error_code=0, error_message=None, group_id="g", group_state="Stable", group_epoch=4,
             assignment_epoch=4,
             assignor_name="simple", members=[dict(
                 member_id="m", rack_id=None, member_epoch=4, client_id="c", client_host="/h",
                 subscribed_topic_names=["orders"], assignment=dict(topic_partitions=[
                     dict(topic_id=TOPIC, topic_name="orders", partitions=[0, 1])]))],
             authorized_operations=-2147483648),
        dict(error_code=69, error_message="Group h not found.", group_id="h", group_state="", group_epoch=0,
             assignment_epoch=0, assignor_name="", members=[], authorized_operations=-2147483648)]),
     "0000000003000000026707537461626c6500000004000000040773696d706c6502026d00000000040263032f6802076f72646572730200"
     "000000000000000000000000000005076f7264657273030000000000000001000000800000000000451347726f75702068206e6f742066"
     "6f756e642e02680100000000000000000101800000000000"),
]


def test_kafka_4_4_serves_version_1_only():
    assert (HEARTBEAT.name, HEARTBEAT.min_version, HEARTBEAT.max_version) == ("ShareGroupHeartbeat", 1, 1)
    assert (DESCRIBE.name, DESCRIBE.min_version, DESCRIBE.max_version) == ("ShareGroupDescribe", 1, 1)
    assert HEARTBEAT.is_flexible(1) and DESCRIBE.is_flexible(1)


@pytest.mark.parametrize(("api", "side", "value", "java"), CASES)
def test_the_java_clients_bytes(api, side, value, java):
    schema = getattr(api, side)
    out = bytearray()
    schema.write(out, value, 1, True)
    assert out.hex() == java
    reader = ByteReader(bytes.fromhex(java))
    assert schema.read(reader, 1, True) == value and reader.remaining == 0
