"""Logging set-up: structlog events with bound context, readable on a terminal or as JSON lines
(the broker's log4j configuration, in Kafka's terms).

Every event names the component that logged it (`logger`, Kafka's log4j category such as
kafka.network.Processor) and the thread it ran on. Components bind what they know: a Processor its
listener and processor id, an I/O thread the request it is handling (listener, processor,
connection, client_id, correlation_id, api, version; see KafkaRequestHandler), managers the
topic-partition. So `grep correlation_id=7` follows one request through the broker.

The request an I/O thread is handling is one ContextVar, LOG_CONTEXT, set once per request and read
only when an event is written. Binding seven structlog contextvars instead cost 7 µs per request
(0.4 µs now), for log lines a healthy broker never writes.

    kafka-server-start config/server.properties --log-format json   # one JSON object per line
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TextIO

import structlog

FORMATS = ("console", "json")


class NamedPrintLogger(structlog.PrintLogger):
    """A PrintLogger that remembers the name it was asked for, so events can carry it."""

    def __init__(self, file: TextIO | None = None, name: str | None = None) -> None:
        super().__init__(file)
        self.name = name


class NamedPrintLoggerFactory:
    def __init__(self, file: TextIO | None = None) -> None:
        self._file = file

    def __call__(self, *args: Any) -> NamedPrintLogger:
        return NamedPrintLogger(self._file, str(args[0]) if args else None)


# Set by whoever handles a request (KafkaRequestHandler): a function naming it, called only for
# events that are written. ContextVar.set returns a token for the reset when the request is done.
LOG_CONTEXT: ContextVar[Callable[[], dict[str, Any]] | None] = ContextVar("kafka_log_context", default=None)


def merge_log_context(logger: Any, method_name: str, event_dict: dict) -> dict:
    """Add what LOG_CONTEXT names to the event; the event's own keys win."""
    describe = LOG_CONTEXT.get()
    if describe is not None:
        for key, value in describe().items():
            event_dict.setdefault(key, value)
    return event_dict


def add_logger_and_thread(logger: Any, method_name: str, event_dict: dict) -> dict:
    name = getattr(logger, "name", None)
    if name:
        event_dict.setdefault("logger", name)
    event_dict.setdefault("thread", threading.current_thread().name)
    return event_dict


class _StandardError:
    """sys.stderr as it is when a line is written, not as it was when logging was configured: a tool run
    inside a test (pytest's capsys) configures logging while sys.stderr is a capture that is closed
    after the test, and the broker threads of the next test must not die writing to it."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def configure_logging(fmt: str = "console", level: int = logging.INFO, stream: TextIO | None = None) -> None:
    """Console rendering (colours on a terminal) or JSON lines; fmt is 'console' or 'json'."""
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    stream = _StandardError() if stream is None or stream is sys.stderr else stream
    renderer = (structlog.processors.JSONRenderer() if fmt == "json"
                else structlog.dev.ConsoleRenderer(colors=stream.isatty()))
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            merge_log_context,
            structlog.processors.add_log_level,
            add_logger_and_thread,
            structlog.processors.TimeStamper(fmt="iso", utc=False),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=NamedPrintLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )


def configure_tool_logging() -> None:
    """A command-line tool's logging: client log lines to standard error, warnings and up, so standard
    output carries only the tool's tables. A tool run inside a process that already logs (a test, a
    notebook) leaves that logging alone: reconfiguring it would leave every logger first used afterwards
    (the in-process broker's too) filtering at WARNING, under a processor chain nobody else holds."""
    if not structlog.is_configured():
        configure_logging("console", logging.WARNING, sys.stderr)
