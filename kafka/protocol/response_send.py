"""ResponseSend: a response frame whose records may stay in files until the socket takes them
(Kafka's MultiRecordsSend, with TransferableRecords inside it).

A fetch response is mostly record bytes that already sit in segment files. The encoder writes the
frame as usual, except that a records field holding a transferable slice (a FileRecords) gets only
its length prefix in the buffer; the slice is remembered with the position where its bytes belong.
The network thread then sends: buffer bytes up to that position, the slice with os.sendfile, the
next buffer bytes, and so on, resuming after partial writes like any other send.
"""

from __future__ import annotations

import socket
from typing import Protocol


class TransferableRecords(Protocol):
    """Records a socket can be given without reading them into Python (kafka.log.FileRecords)."""

    def __len__(self) -> int: ...

    def write_to(self, sock: socket.socket, offset: int) -> int: ...

    def read_chunk(self, offset: int, length: int) -> bytes: ...

    def close(self) -> None: ...


def is_transferable(value: object) -> bool:
    return hasattr(value, "write_to")


class ResponseSend(bytearray):
    """The frame's bytes, plus (position, records) for every slice whose bytes go in at position."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.transfers: list[tuple[int, TransferableRecords]] = []

    @property
    def size(self) -> int:
        """The whole frame's size on the wire: the buffer and every slice."""
        return len(self) + sum(len(records) for _, records in self.transfers)

    def parts(self) -> list[memoryview | TransferableRecords]:
        """What to write, in order: buffer pieces and slices."""
        view = memoryview(self)
        parts: list[memoryview | TransferableRecords] = []
        start = 0
        for position, records in self.transfers:
            if position > start:
                parts.append(view[start:position])
            parts.append(records)
            start = position
        if start < len(self):
            parts.append(view[start:])
        return parts

    def release(self) -> None:
        """The response will not be sent (its connection is gone): give the slices' files back."""
        for _, records in self.transfers:
            records.close()


def release(payload: object) -> None:
    if isinstance(payload, ResponseSend):
        payload.release()
