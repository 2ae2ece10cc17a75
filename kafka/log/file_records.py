"""FileRecords: a range of bytes of a segment file, sent to a socket without passing through Python
(Kafka's org.apache.kafka.common.record.FileRecords, its slice and writeTo).

Seed 002, fetch handling: "In Kafka, we use zero copy transfer in the network thread to transfer
the range of bytes from the underlying file directly to the remote socket." A fetch does not read
the records: the log returns (file, position, size), the FetchResponse carries that slice in place
of the bytes, and the network thread's KafkaChannel hands it to os.sendfile, which copies from the
page cache to the socket inside the kernel.

The slice owns a duplicate of the segment's file descriptor, so the segment may roll, be deleted by
retention or have its topic deleted while the response waits or is half sent: the file stays
readable until the slice is closed. Closing happens when the send completes, when the connection
or the response is dropped, and as a last resort when the object is garbage collected.
"""

from __future__ import annotations

import os
import socket
import weakref


class FileRecords:
    def __init__(self, fd: int, position: int, size: int) -> None:
        """Take ownership of `fd` (already duplicated for this slice)."""
        self.position = position
        self.size = size
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)

    @classmethod
    def slice_of(cls, segment_fd: int, position: int, size: int) -> FileRecords:
        return cls(os.dup(segment_fd), position, size)

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def read_all(self) -> bytes:
        """The bytes themselves, for a reader in this process (the group coordinator, tests)."""
        data = os.pread(self._fd, self.size, self.position)
        if len(data) < self.size:
            raise OSError(f"segment file truncated: {len(data)} of {self.size} bytes at {self.position}")
        return data

    def write_to(self, sock: socket.socket, offset: int) -> int:
        """Send from `offset` within the slice; returns how many bytes the socket took (0 if it is
        full). A file that has become shorter than the slice (truncated under us) is an error."""
        sent = os.sendfile(sock.fileno(), self._fd, self.position + offset, self.size - offset)
        if sent == 0 and offset < self.size:
            raise OSError(f"segment file truncated while sending {self.size} bytes at {self.position}")
        return sent

    def close(self) -> None:
        self._closer()

    @property
    def closed(self) -> bool:
        return not self._closer.alive

    def __repr__(self) -> str:
        return f"FileRecords(fd={self._fd}, position={self.position}, size={self.size})"
