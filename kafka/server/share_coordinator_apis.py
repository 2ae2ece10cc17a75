"""The share coordinator's handlers: InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState,
DeleteShareGroupState and ReadShareGroupStateSummary (Kafka's KafkaApis.handle*ShareGroupStateRequest).

Brokers send these to each other: a share partition's leader, through its DefaultStatePersister, to the
broker leading the __share_group_state partition of the share partition's key. So each needs
CLUSTER_ACTION on the cluster (a refusal answers every partition CLUSTER_AUTHORIZATION_FAILED). The
request goes to the ShareCoordinatorService whole; its future completes, on whichever thread commits the
last record, with the answer, which goes back through the responder: the I/O thread never waits.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.share.share_group_state_responses import global_error_response
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors

log = structlog.get_logger("kafka.server.ShareCoordinatorApis")


class ShareCoordinatorApis:
    def __init__(self, share_coordinator: ShareCoordinatorService, auth_helper, responder) -> None:
        """`responder.send_response(request, body)` answers a request (the RequestHandlerHelper)."""
        self.share_coordinator = share_coordinator
        self.auth = auth_helper
        self.responder = responder

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.INITIALIZE_SHARE_GROUP_STATE: self.handle_initialize_share_group_state_request,
            ApiKey.READ_SHARE_GROUP_STATE: self.handle_read_share_group_state_request,
            ApiKey.WRITE_SHARE_GROUP_STATE: self.handle_write_share_group_state_request,
            ApiKey.DELETE_SHARE_GROUP_STATE: self.handle_delete_share_group_state_request,
            ApiKey.READ_SHARE_GROUP_STATE_SUMMARY: self.handle_read_share_group_state_summary_request,
        }

    def handle_initialize_share_group_state_request(self, request: Request) -> None:
        self._handle(request, self.share_coordinator.initialize_state)

    def handle_read_share_group_state_request(self, request: Request) -> None:
        self._handle(request, self.share_coordinator.read_state)

    def handle_write_share_group_state_request(self, request: Request) -> None:
        self._handle(request, self.share_coordinator.write_state)

    def handle_delete_share_group_state_request(self, request: Request) -> None:
        self._handle(request, self.share_coordinator.delete_state)

    def handle_read_share_group_state_summary_request(self, request: Request) -> None:
        self._handle(request, self.share_coordinator.read_state_summary)

    def _handle(self, request: Request, operation: Callable[[object], Future]) -> None:
        """Kafka's shape of all five: CLUSTER_ACTION or every partition refused; else the coordinator's
        answer once its future completes (a failure answers every partition with its error)."""
        if not self.auth.authorize(request, Op.CLUSTER_ACTION, Res.CLUSTER, CLUSTER_NAME):
            self.responder.send_response(request, global_error_response(request.body,
                                                                        Errors.CLUSTER_AUTHORIZATION_FAILED))
            return

        def respond(done: Future) -> None:
            error = done.exception()
            if error is None:
                self.responder.send_response(request, done.result())
                return
            code = getattr(error, "error", None)
            log.error("share coordinator operation failed", api=request.header.api_key, error=repr(error))
            self.responder.send_response(request, global_error_response(
                request.body, code if isinstance(code, Errors) else Errors.UNKNOWN_SERVER_ERROR))

        operation(request.body).add_done_callback(respond)
