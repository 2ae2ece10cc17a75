"""A broker's share-coordinator side on a real socket, for the persister's tests: a listener on a free
loopback port that reads Kafka frames, answers ApiVersions and FindCoordinator itself (this broker is
every key's coordinator, unless the test scripts errors), and serves the five share-group state RPCs
through the real ShareCoordinatorApis, over a real ShareCoordinatorService (the harness's).

One thread serves each connection, one request at a time, and it alone touches the coordinator: a test
that must change the coordinator between two requests hands the change to `after` (run on that thread
once the next share-group state RPC is answered). KafkaApis' wiring is not involved.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from collections import deque

from kafka.network.request_channel import Request
from kafka.protocol.api_keys import APIS, ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_request, encode_response, parse_request_header
from kafka.server.auth_helper import AuthHelper
from kafka.server.share_coordinator_apis import ShareCoordinatorApis

NODE_ID = 1
SERVED = (ApiKey.API_VERSIONS, ApiKey.FIND_COORDINATOR, ApiKey.INITIALIZE_SHARE_GROUP_STATE,
          ApiKey.READ_SHARE_GROUP_STATE, ApiKey.WRITE_SHARE_GROUP_STATE, ApiKey.DELETE_SHARE_GROUP_STATE,
          ApiKey.READ_SHARE_GROUP_STATE_SUMMARY)


class _Connection(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        broker: ShareStateBroker = self.server.broker
        while True:
            size = self._read(4)
            if size is None:
                return
            frame = self._read(struct.unpack(">i", size)[0])
            if frame is None:
                return
            broker.serve(self.request, frame, self.client_address[0])

    def _read(self, n: int) -> bytes | None:
        data = b""
        while len(data) < n:
            chunk = self.request.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class ShareStateBroker:
    def __init__(self, share_coordinator_service) -> None:
        self.apis = ShareCoordinatorApis(share_coordinator_service, AuthHelper(None), self)
        self.requests: list[tuple[ApiKey, int, object]] = []  # (api, version, body) of every request served
        self.find_coordinator_errors: deque[Errors] = deque()  # answered, in order, before the real answer
        self.after: deque = deque()  # actions run after the next share-group state RPCs are answered
        self._sockets: dict[int, socket.socket] = {}
        self._lock = threading.Lock()
        self.server = _Server(("127.0.0.1", 0), _Connection)
        self.server.broker = self
        self.host, self.port = self.server.server_address
        # serve_forever looks for a shutdown every poll_interval: 50 ms, not its 0.5 s, so stop() is quick
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                        name="share-state-broker", daemon=True)

    def start(self) -> ShareStateBroker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def served(self, api_key: ApiKey) -> list:
        with self._lock:
            return [body for key, _, body in self.requests if key == api_key]

    # ------------------------------------------------------------------ one request
    def serve(self, sock: socket.socket, frame: bytes, client_address: str) -> None:
        header = parse_request_header(frame)
        api = APIS[header.api_key]
        body = decode_request(api, header.api_version, frame, header.header_size)
        with self._lock:
            self.requests.append((ApiKey(header.api_key), header.api_version, body))
        request = Request(0, "test", "PLAINTEXT", client_address, header, memoryview(frame))
        request.body = body
        self._sockets[id(request)] = sock
        if header.api_key == ApiKey.API_VERSIONS:
            self.send_response(request, dict(error_code=Errors.NONE, throttle_time_ms=0, api_keys=[
                dict(api_key=key, min_version=APIS[key].min_version, max_version=APIS[key].max_version)
                for key in SERVED]))
        elif header.api_key == ApiKey.FIND_COORDINATOR:
            self.send_response(request, self.find_coordinator(body, header.api_version))
        else:
            self.apis.handlers()[header.api_key](request)  # answered through send_response
            if self.after:
                self.after.popleft()()

    def find_coordinator(self, body, version: int) -> dict:
        error = self.find_coordinator_errors.popleft() if self.find_coordinator_errors else Errors.NONE
        found = dict(node_id=NODE_ID if error == Errors.NONE else -1, host=self.host if error == Errors.NONE
                     else "",
                     port=self.port if error == Errors.NONE else -1, error_code=error, error_message=None)
        if version >= 4:
            return dict(throttle_time_ms=0,
                        coordinators=[dict(key=k, **found) for k in body.coordinator_keys])
        return dict(throttle_time_ms=0, **found)

    # ------------------------------------------------------------------ the responder
    def send_response(self, request: Request, body: dict) -> None:
        header = request.header
        payload = encode_response(APIS[header.api_key], header.api_version, header.correlation_id, body)
        self._sockets.pop(id(request)).sendall(bytes(payload))
