"""A client may send requests without waiting for responses (librdkafka does, up to
max.in.flight). The broker still handles one request per connection at a time, in order: the
channel is muted while a request is in flight and the bytes that came ahead wait in the socket."""

from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.header import decode_response, encode_request
from tests.helpers import wait_until
from tests.integration.test_long_poll import create, fetch_body, produce
from tests.wire import WireClient

FETCH, METADATA = APIS[ApiKey.FETCH], APIS[ApiKey.METADATA]


def test_requests_sent_behind_a_waiting_fetch_are_answered_after_it_in_order(broker):
    admin = WireClient(broker.port)
    create(admin, "ahead")
    client = WireClient(broker.port, timeout=20)
    client.send_frame(encode_request(FETCH, 12, 0, "pipelining", fetch_body("ahead", 0, 60_000)))
    purgatory = broker.server.replica_manager.delayed_fetch_purgatory
    wait_until(lambda: purgatory.watched() > 0, message="the fetch waiting in the purgatory")

    # Sent while the fetch is in flight: the muted channel is readable, so the network thread stops
    # watching it until the fetch's response is out.
    client.send_frame(b"".join(encode_request(METADATA, 9, i, "pipelining", {"topics": None})
                               for i in (1, 2, 3)))
    wait_until(lambda: not any(getattr(processor.selector.channel(connection_id), "interest", 0)
                               for processor in broker.server.socket_server.processors
                               for connection_id in list(processor.in_flight)),
               message="the muted connection no longer watched for reads")

    produce(admin, "ahead", b"answer")
    correlation_id, fetched = decode_response(FETCH, 12, client.read_frame())
    assert correlation_id == 0 and fetched.responses[0].partitions[0].high_watermark == 1
    for expected in (1, 2, 3):
        correlation_id, metadata = decode_response(METADATA, 9, client.read_frame())
        assert correlation_id == expected and metadata.brokers
    client.close()
    admin.close()
