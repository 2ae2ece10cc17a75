"""TransportLayer: how a KafkaChannel's bytes reach its socket (Kafka's common.network.TransportLayer
and PlaintextTransportLayer). It lives in kafka/security because both sides use it: the broker's
Selector (kafka/network) and the broker's own clients (kafka/clients).

A channel reads and writes through its transport and never touches the socket itself, so the same
channel, framing and Selector serve TCP and TLS. A transport is ready once its handshake is done
(TCP: at once); until then the Selector drives `handshake` from its poll, and the
connection's bytes are not frames yet.

    recv_into / send     raise BlockingIOError when the socket has nothing to give or take
    transfer_from        a slice of a segment file (a fetch response's records); zero-copy on TCP
    has_bytes_buffered   bytes already read off the socket but not handed out (TLS only)
    has_pending_writes   bytes taken by `send` but not yet by the socket (TLS only: once encrypted,
                         bytes cannot be handed back); `flush` writes them, and a send is complete
                         only when there are none (Kafka's hasPendingWrites)
"""

from __future__ import annotations

import socket

from kafka.protocol.response_send import TransferableRecords
from kafka.security.kafka_principal import ANONYMOUS, KafkaPrincipal


class TransportLayer:
    """The interface; PlaintextTransportLayer and SslTransportLayer implement it."""

    socket: socket.socket

    @property
    def ready(self) -> bool:
        return True

    def handshake(self) -> int:
        """Go on with the handshake; 0 once done, else the selector event it waits for."""
        return 0

    def recv_into(self, buffer, nbytes: int = 0) -> int:
        raise NotImplementedError

    def send(self, data) -> int:
        raise NotImplementedError

    def transfer_from(self, records: TransferableRecords, position: int) -> int:
        raise NotImplementedError

    def has_bytes_buffered(self) -> bool:
        return False

    def has_pending_writes(self) -> bool:
        return False

    def flush(self) -> bool:
        """Write what the transport holds for the socket; True once nothing is left."""
        return True

    def peer_principal(self) -> KafkaPrincipal:
        return ANONYMOUS

    def close(self) -> None:
        try:
            self.socket.close()
        except OSError:
            pass


class PlaintextTransportLayer(TransportLayer):
    def __init__(self, sock: socket.socket) -> None:
        self.socket = sock

    def recv_into(self, buffer, nbytes: int = 0) -> int:
        return self.socket.recv_into(buffer, nbytes)

    def send(self, data) -> int:
        return self.socket.send(data)

    def transfer_from(self, records: TransferableRecords, position: int) -> int:
        """os.sendfile: the records go from the page cache to the socket inside the kernel."""
        return records.write_to(self.socket, position)

