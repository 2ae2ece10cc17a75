"""The client-quota part of KafkaApis: AlterClientQuotas and DescribeClientQuotas (KIP-546).

Kafka keeps these handlers in kafka.server.KafkaApis itself; here they sit beside it (as AdminApis
does), built by KafkaServer with what they use. AlterClientQuotas is the controller's decision: it
is forwarded as it came and answered when the controller answers, without holding an I/O thread,
as IncrementalAlterConfigs is.
DescribeClientQuotas is answered from this broker's ClientQuotasImage, the quotas of the last
committed metadata, as Kafka's brokers answer it.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.image.client_quotas_image import ClientQuotasImage, InvalidQuotaFilterError
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.metadata.client_quota_metadata_manager import ClientQuotaMetadataManager
from kafka.server.request_handler_helper import RequestHandlerHelper


class ClientQuotaApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 forwarding_manager: ForwardingManager,
                 client_quota_metadata_manager: ClientQuotaMetadataManager | None = None) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper
        self.forwarding_manager = forwarding_manager  # AlterClientQuotas: the controller's decision
        self.client_quota_metadata_manager = client_quota_metadata_manager  # DescribeClientQuotas: its image

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.ALTER_CLIENT_QUOTAS: self.handle_alter_client_quotas_request,
            ApiKey.DESCRIBE_CLIENT_QUOTAS: self.handle_describe_client_quotas_request,
        }

    # ------------------------------------------------------------------ AlterClientQuotas
    def handle_alter_client_quotas_request(self, request: Request) -> None:
        req = request.body
        if not self.auth.authorize(request, AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, entries=[
                dict(error_code=Errors.CLUSTER_AUTHORIZATION_FAILED, error_message=None,
                     entity=[dict(entity_type=e.entity_type, entity_name=e.entity_name)
                             for e in entry.entity])
                for entry in req.entries]))
            return

        def on_response(response, error: Errors) -> None:
            if response is not None and error == Errors.NONE:
                self.request_helper.send_response_maybe_throttle(request, response.to_dict())
                return
            error = error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR
            self.request_helper.send_response_maybe_throttle(request, dict(throttle_time_ms=0, entries=[
                dict(error_code=error, error_message="the active controller did not answer",
                     entity=[dict(entity_type=e.entity_type, entity_name=e.entity_name)
                             for e in entry.entity])
                for entry in req.entries]))

        self.forwarding_manager.forward_request(ApiKey.ALTER_CLIENT_QUOTAS, req.to_dict(), 30_000,
                                                on_response, max_version=request.header.api_version)

    # ------------------------------------------------------------------ DescribeClientQuotas
    def handle_describe_client_quotas_request(self, request: Request) -> None:
        req = request.body
        if not self.auth.authorize(request, AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER,
                                   CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=Errors.CLUSTER_AUTHORIZATION_FAILED, error_message=None,
                entries=None))
            return
        manager = self.client_quota_metadata_manager
        image = manager.image if manager else ClientQuotasImage()
        try:
            described = image.describe([(c.entity_type, c.match_type, c.match) for c in req.components],
                                       req.strict)
        except InvalidQuotaFilterError as e:
            self.request_helper.send_response_maybe_throttle(request, dict(
                throttle_time_ms=0, error_code=e.error, error_message=str(e), entries=None))
            return
        entries = [dict(entity=[dict(entity_type=t, entity_name=n) for t, n in entity],
                        values=[dict(key=k, value=v) for k, v in sorted(values.items())])
                   for entity, values in described]
        self.request_helper.send_response_maybe_throttle(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, error_message=None, entries=entries))
