"""SslTransportLayer: TLS on a non-blocking socket, the handshake driven by a selector loop
(Kafka's common.network.SslTransportLayer).

The socket is wrapped with the listener's (or client's) SSLContext without a handshake; the owner's
selector loop calls `handshake` whenever the socket is ready, and each call does what the socket
allows and says what it waits for next (read or write). Only then are frames read. On the server
side the peer's certificate, if it sent one the truststore vouched for, becomes the principal
through ssl.principal.mapping.rules; without one the connection is User:ANONYMOUS, as in Kafka.

Zero-copy cannot cross TLS: the kernel would send the file's bytes unencrypted. A fetch response's
segment slices are read into memory a chunk at a time and encrypted like any other bytes.

OpenSSL asks that a write which could not finish be retried with the same bytes: a chunk of a file
slice that was refused is kept until the socket takes it.
"""

from __future__ import annotations

import selectors
import socket
import ssl

from kafka.protocol.response_send import TransferableRecords
from kafka.security.kafka_principal import ANONYMOUS, USER_TYPE, KafkaPrincipal
from kafka.security.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper, rfc2253_name
from kafka.security.transport_layer import TransportLayer

CHUNK = 64 * 1024  # bytes of a segment slice encrypted per write


class SslAuthenticationError(Exception):
    """The TLS handshake failed (Kafka's SslAuthenticationException): bad or untrusted certificate,
    a peer that does not speak TLS, a protocol or cipher in common with nobody."""


class SslTransportLayer(TransportLayer):
    def __init__(self, sock: socket.socket, context: ssl.SSLContext, server_side: bool,
                 server_hostname: str | None = None, principal_mapper: SslPrincipalMapper | None = None) -> None:
        self.socket: ssl.SSLSocket = context.wrap_socket(sock, server_side=server_side,
                                                         server_hostname=None if server_side else server_hostname,
                                                         do_handshake_on_connect=False)
        self.principal_mapper = principal_mapper
        self._ready = False
        self._pending_chunk: tuple[int, bytes] | None = None  # (position in the slice, refused bytes)

    @property
    def ready(self) -> bool:
        return self._ready

    def handshake(self) -> int:
        """Raises SslAuthenticationError when the handshake fails, ConnectionError (an OSError)
        when the peer simply went away during it (Kafka counts only the first as a failure)."""
        try:
            self.socket.do_handshake()
        except ssl.SSLWantReadError:
            return selectors.EVENT_READ
        except ssl.SSLWantWriteError:
            return selectors.EVENT_WRITE
        except (ssl.SSLEOFError, ssl.SSLZeroReturnError) as e:
            raise ConnectionError("closed by the client during the TLS handshake") from e
        except ssl.SSLError as e:
            if getattr(e, "reason", None) == "UNEXPECTED_EOF_WHILE_READING":  # the peer hung up: no failure
                raise ConnectionError("closed by the client during the TLS handshake") from e
            detail = getattr(e, "verify_message", None)  # a certificate's fault: expired, unknown CA, ...
            reason = getattr(e, "reason", None) or str(e)
            raise SslAuthenticationError(f"TLS handshake failed: {reason}{f' ({detail})' if detail else ''}") from e
        self._ready = True
        return 0

    @property
    def protocol(self) -> str | None:
        return self.socket.version()

    # ------------------------------------------------------------------ reading and writing
    def recv_into(self, buffer, nbytes: int = 0) -> int:
        """Up to nbytes of plaintext. One SSL read gives at most one TLS record (16 KiB), where a plain
        recv gives whatever the kernel holds; so this reads records until the buffer is full or the
        socket has no whole record left, and a 1 MB produce request costs one trip round the
        Selector's poll, not sixty-four."""
        view = memoryview(buffer)
        wanted = nbytes or len(view)
        read = 0
        try:
            while read < wanted:
                n = self.socket.recv_into(view[read:wanted])
                if n == 0:
                    break
                read += n
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            if read == 0:
                raise BlockingIOError from None
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            pass  # close_notify, or the peer went away without one: 0 now, or on the next call
        finally:
            view.release()
        return read

    def send(self, data) -> int:
        try:
            return self.socket.send(data[:CHUNK])
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise BlockingIOError from None

    def transfer_from(self, records: TransferableRecords, position: int) -> int:
        if self._pending_chunk is not None and self._pending_chunk[0] == position:
            chunk = self._pending_chunk[1]
        else:
            chunk = records.read_chunk(position, CHUNK)
        try:
            sent = self.socket.send(chunk)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            self._pending_chunk = (position, chunk)
            raise BlockingIOError from None
        self._pending_chunk = None
        return sent

    def has_bytes_buffered(self) -> bool:
        """Decrypted bytes OpenSSL holds that the selector cannot see (Kafka's hasBytesBuffered)."""
        return self._ready and self.socket.pending() > 0

    # ------------------------------------------------------------------ who is at the other end
    def peer_principal(self) -> KafkaPrincipal:
        """The client certificate's subject through the mapping rules; ANONYMOUS without one."""
        certificate = self.socket.getpeercert()
        if not certificate or not certificate.get("subject"):
            return ANONYMOUS
        mapper = self.principal_mapper or SslPrincipalMapper.from_rules("DEFAULT")
        try:
            return KafkaPrincipal(USER_TYPE, mapper.get_name(rfc2253_name(certificate["subject"])))
        except NoMatchingRule as e:
            raise SslAuthenticationError(str(e)) from e
