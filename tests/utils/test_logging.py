"""Log events written while an I/O thread handles a request name that request (kafka/utils/logging.py's
LOG_CONTEXT, set by KafkaRequestHandler), and only while it is handled."""

from __future__ import annotations

import io
import json
import threading

import structlog

from kafka.network.request_channel import Request, RequestChannel
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.header import RequestHeader
from kafka.server.kafka_request_handler import KafkaRequestHandler
from kafka.utils.logging import configure_logging


class LoggingApis:
    """Stands in for KafkaApis: logs one event per request, as a manager deep in a handler would."""

    def __init__(self) -> None:
        self.handled = threading.Event()

    def handle(self, request: Request) -> None:
        structlog.get_logger("kafka.cluster.Partition").warning("shrinking ISR", topic="t", correlation_id=-1)
        raise RuntimeError("a bug in a handler")

    def handle_error(self, request: Request) -> None:
        self.handled.set()


def test_an_event_logged_while_a_request_is_handled_names_the_request():
    out = io.StringIO()
    configure_logging("json", stream=out)
    try:
        channel = RequestChannel(10)
        apis = LoggingApis()
        handler = KafkaRequestHandler(0, channel, apis)
        handler.start()
        header = RequestHeader(ApiKey.PRODUCE, 9, 42, "lab-student", header_size=0)
        channel.send_request(Request(1, "127.0.0.1:9092-127.0.0.1:5000-3", "PLAINTEXT", "127.0.0.1", header,
                                     memoryview(b"")))
        assert apis.handled.wait(10)
        handler.stop()
        channel.wake_handlers(1)
        handler.join(10)
        structlog.get_logger("kafka.test").info("after the request")
    finally:
        configure_logging("console")
    shrink, error, after = [json.loads(line) for line in out.getvalue().splitlines()]
    assert shrink["event"] == "shrinking ISR" and shrink["topic"] == "t"
    assert {k: shrink[k]
            for k in ("listener", "processor", "connection", "client_id", "api", "version")} == dict(
        listener="PLAINTEXT", processor=1, connection="127.0.0.1:9092-127.0.0.1:5000-3",
        client_id="lab-student",
        api="Produce", version=9)
    assert shrink["correlation_id"] == -1  # the event's own key wins over the request's
    assert error["event"] == "error handling request" and error["correlation_id"] == 42
    assert "exception" in error
    assert "correlation_id" not in after and "client_id" not in after  # the context ends with the request
