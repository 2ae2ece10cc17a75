"""SslTransportLayer: TLS on a non-blocking socket, the handshake driven by a selector loop
(Kafka's common.network.SslTransportLayer).

As Kafka's wraps an SSLEngine between two byte buffers, this one wraps an `ssl.SSLObject` between
two `ssl.MemoryBIO`s: `_net_in` holds the encrypted bytes read off the socket (Kafka's
netReadBuffer), `_net_out` the encrypted bytes waiting for the socket (netWriteBuffer). The socket
itself stays a plain one, and only this class reads or writes it:

    recv_into      fill _net_in with what the socket holds, NET_READ_SIZE bytes a recv, and let
                   the engine decrypt record after record into the caller's buffer
    send           encrypt into _net_out, then write what the socket takes; the rest is a pending
                   write (`has_pending_writes`), sent by `flush` before anything new
    handshake      engine steps, flushing _net_out and filling _net_in in between, until done; each
                   call says what it waits for next (read or write)

Reading through memory rather than letting OpenSSL read the socket matters because OpenSSL reads
each TLS record with two recv calls (its 5-byte header, then the body), and a client that writes
small records (librdkafka: about 2 KiB each for a produce of 1 KiB messages) then costs the broker
two system calls a record, nearly one a message. Here a recv takes every record the kernel holds.

The owner's selector loop calls `handshake` whenever the socket is ready; only then are frames
read. On the server side the peer's certificate, if it sent one the truststore vouched for, becomes
the principal through ssl.principal.mapping.rules; without one the connection is User:ANONYMOUS.

Zero-copy cannot cross TLS: the kernel would send the file's bytes unencrypted. A fetch response's
segment slices are read into memory a chunk at a time and encrypted like any other bytes.
"""

from __future__ import annotations

import selectors
import socket
import ssl

from kafka.protocol.response_send import TransferableRecords
from kafka.security.kafka_principal import ANONYMOUS, USER_TYPE, KafkaPrincipal
from kafka.security.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper, rfc2253_name
from kafka.security.transport_layer import TransportLayer

CHUNK = 64 * 1024  # plaintext encrypted per send: what may wait in _net_out is about this much
NET_READ_SIZE = 64 * 1024  # encrypted bytes taken off the socket per recv


class SslAuthenticationError(Exception):
    """The TLS handshake failed (Kafka's SslAuthenticationException): bad or untrusted certificate,
    a peer that does not speak TLS, a protocol or cipher in common with nobody."""


class SslTransportLayer(TransportLayer):
    def __init__(self, sock: socket.socket, context: ssl.SSLContext, server_side: bool,
                 server_hostname: str | None = None,
                 principal_mapper: SslPrincipalMapper | None = None) -> None:
        self.socket = sock
        self._net_in = ssl.MemoryBIO()
        self._net_out = ssl.MemoryBIO()
        self._engine: ssl.SSLObject = context.wrap_bio(self._net_in, self._net_out, server_side=server_side,
                                                       server_hostname=None if server_side
                                                       else server_hostname)
        self._pending_out = memoryview(b"")  # encrypted bytes the socket has not taken yet
        self._starved = False  # _net_in holds less than a record, and the socket had nothing more
        self._eof = False  # the socket said end of stream
        self.principal_mapper = principal_mapper
        self._ready = False

    @property
    def ready(self) -> bool:
        return self._ready

    def handshake(self) -> int:
        """Raises SslAuthenticationError when the handshake fails, ConnectionError (an OSError)
        when the peer simply went away during it (Kafka counts only the first as a failure)."""
        if not self.flush():
            return selectors.EVENT_WRITE
        while True:
            try:
                self._engine.do_handshake()
                done = True
            except ssl.SSLWantReadError:
                done = False
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError) as e:
                raise ConnectionError("closed by the client during the TLS handshake") from e
            except ssl.SSLError as e:
                self._flush_alert()
                detail = getattr(e, "verify_message", None)  # a certificate's fault: expired, unknown CA, ...
                reason = getattr(e, "reason", None) or str(e)
                raise SslAuthenticationError("TLS handshake failed: "
                                             f"{reason}{f' ({detail})' if detail else ''}") from e
            if not self.flush():
                return selectors.EVENT_WRITE  # our flight (or our Finished) waits for the socket to drain
            if done:
                self._ready = True
                return 0
            if not self._fill():
                if self._eof:
                    raise ConnectionError("closed by the client during the TLS handshake")
                return selectors.EVENT_READ

    def _flush_alert(self) -> None:
        """The alert OpenSSL wrote about a failed handshake goes out if the socket takes it at once."""
        try:
            self.flush()
        except OSError:
            pass

    @property
    def protocol(self) -> str | None:
        return self._engine.version()

    # ------------------------------------------------------------------ reading
    def _fill(self) -> bool:
        """Move what the socket holds into _net_in; False when it held nothing (or was at its end)."""
        try:
            data = self.socket.recv(NET_READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return False
        if not data:
            self._eof = True
            return False
        self._net_in.write(data)
        return True

    def recv_into(self, buffer, nbytes: int = 0) -> int:
        """Up to nbytes of plaintext: records are decrypted until the buffer is full or neither
        _net_in nor the socket holds a whole record more. Raises BlockingIOError when nothing was
        read; 0 at the end of the stream (a close_notify, or the socket closed)."""
        view = memoryview(buffer)
        wanted = nbytes or len(view)
        read = 0
        try:
            while read < wanted:
                try:
                    n = self._engine.read(wanted - read, view[read:wanted])
                except ssl.SSLWantReadError:
                    if self._fill():
                        continue
                    self._starved = not self._eof
                    break
                if n == 0:  # the peer's close_notify
                    self._eof = True
                    break
                read += n
                self._starved = False
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            self._eof = True  # close_notify, or the peer went away without one: 0 now, or on the next call
        finally:
            view.release()
        if self._net_out.pending:  # a post-handshake message of ours (a TLS 1.3 key update answer)
            self.flush()
        if read == 0 and not self._eof:
            raise BlockingIOError
        return read

    def has_bytes_buffered(self) -> bool:
        """Bytes already off the socket that the selector cannot see: decrypted ones OpenSSL holds, or
        encrypted records in _net_in (Kafka's hasBytesBuffered). A part of a record is not enough."""
        return self._ready and (self._engine.pending() > 0
                                or (self._net_in.pending > 0 and not self._starved))

    # ------------------------------------------------------------------ writing
    def flush(self) -> bool:
        """Write the pending encrypted bytes; True once none are left."""
        while True:
            if not self._pending_out:
                if not self._net_out.pending:
                    return True
                self._pending_out = memoryview(self._net_out.read())
            try:
                sent = self.socket.send(self._pending_out)
            except (BlockingIOError, InterruptedError):
                return False
            self._pending_out = self._pending_out[sent:]

    def has_pending_writes(self) -> bool:
        return len(self._pending_out) > 0 or self._net_out.pending > 0

    def send(self, data) -> int:
        """Encrypt up to CHUNK bytes of `data` and write them; the count of plaintext taken. Raises
        BlockingIOError while earlier bytes still wait for the socket."""
        if not self.flush():
            raise BlockingIOError
        return self._encrypt(memoryview(data)[:CHUNK])

    def _encrypt(self, plaintext) -> int:
        written = 0
        while written < len(plaintext):  # one record (16 KiB at most) a write
            written += self._engine.write(plaintext[written:])
        self.flush()  # what the socket does not take now goes before the next bytes
        return written

    def transfer_from(self, records: TransferableRecords, position: int) -> int:
        if not self.flush():
            raise BlockingIOError
        return self._encrypt(records.read_chunk(position, CHUNK))

    def close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass

    # ------------------------------------------------------------------ who is at the other end
    def peer_principal(self) -> KafkaPrincipal:
        """The client certificate's subject through the mapping rules; ANONYMOUS without one."""
        certificate = self._engine.getpeercert()
        if not certificate or not certificate.get("subject"):
            return ANONYMOUS
        mapper = self.principal_mapper or SslPrincipalMapper.from_rules("DEFAULT")
        try:
            return KafkaPrincipal(USER_TYPE, mapper.get_name(rfc2253_name(certificate["subject"])))
        except NoMatchingRule as e:
            raise SslAuthenticationError(str(e)) from e
