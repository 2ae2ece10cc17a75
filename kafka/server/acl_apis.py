"""AclApis: CreateAcls, DescribeAcls and DeleteAcls (Kafka's kafka.server.AclApis).

Creating or deleting ACLs needs ALTER on the cluster, describing them DESCRIBE on the cluster.
With no authoriser configured each answers SECURITY_DISABLED, as Kafka's brokers do.

CreateAcls and DeleteAcls are the controller's decision (its AclControlManager writes the records):
the broker checks the principal, then forwards the request as it came and answers when the
controller does, without holding an I/O thread. Kafka forwards inside an Envelope that carries the
client's principal so the controller checks it; this broker forwards the body alone, so it is the
broker that checks, before forwarding (docs/acls.md). DescribeAcls is answered from this broker's
authoriser, the ACLs of the last committed metadata it has applied; ControllerApis answers it on
the controller's listener with the same `describe_acls_response`.
"""

from __future__ import annotations

from collections.abc import Callable

from kafka.network.request_channel import Request
from kafka.protocol.acl import AclBindingFilter, AclOperation, PatternType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.auth_helper import AuthHelper
from kafka.server.error_responses import error_response
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.request_handler_helper import RequestHandlerHelper

FORWARD_TIMEOUT_MS = 30_000


class AclApis:
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper,
                 forwarding_manager: ForwardingManager) -> None:
        self.request_helper = request_helper
        self.auth = auth_helper  # and its authoriser, whose ACLs DescribeAcls reads
        self.forwarding_manager = forwarding_manager  # CreateAcls, DeleteAcls: the controller's decision

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {
            ApiKey.DESCRIBE_ACLS: self.handle_describe_acls,
            ApiKey.CREATE_ACLS: self.handle_create_acls,
            ApiKey.DELETE_ACLS: self.handle_delete_acls,
        }

    # ------------------------------------------------------------------ DescribeAcls
    def handle_describe_acls(self, request: Request) -> None:
        self.auth.authorize_cluster_operation(request, AclOperation.DESCRIBE)
        self.request_helper.send_response_maybe_throttle(
            request, describe_acls_response(self.auth.authorizer, request.body))

    # ------------------------------------------------------------------ CreateAcls, DeleteAcls
    def handle_create_acls(self, request: Request) -> None:
        self._alter(request, ApiKey.CREATE_ACLS)

    def handle_delete_acls(self, request: Request) -> None:
        self._alter(request, ApiKey.DELETE_ACLS)

    def _alter(self, request: Request, api_key: ApiKey) -> None:
        self.auth.authorize_cluster_operation(request, AclOperation.ALTER)
        version = request.header.api_version
        if self.auth.authorizer is None:
            body = _whole(api_key, version, request.body, Errors.SECURITY_DISABLED,
                          "No Authorizer is configured.")
            self.request_helper.send_response_maybe_throttle(request, body)
            return
        if api_key == ApiKey.CREATE_ACLS and any(_not_a_binding(c) for c in request.body.creations):
            # Kafka cannot build an AclBinding with ANY (or a MATCH pattern): the whole request fails,
            # unexplained
            self.request_helper.send_response_maybe_throttle(
                request, _whole(api_key, version, request.body, Errors.UNKNOWN_SERVER_ERROR, None))
            return

        def on_response(response, error: Errors) -> None:
            if response is not None and error == Errors.NONE:
                self.request_helper.send_response_maybe_throttle(request, response.to_dict())
            else:
                error = error if error != Errors.NONE else Errors.UNKNOWN_SERVER_ERROR
                self.request_helper.send_response_maybe_throttle(
                    request, error_response(api_key, version, request.body, error))

        self.forwarding_manager.forward_request(api_key, request.body.to_dict(), FORWARD_TIMEOUT_MS,
                                                on_response, max_version=version)


def describe_acls_response(authorizer, req) -> dict:
    """The DescribeAcls answer from an authoriser's ACLs, grouped by resource pattern (Kafka's
    DescribeAclsResponse.aclsResources); SECURITY_DISABLED without one."""
    if authorizer is None:
        return dict(throttle_time_ms=0, error_code=Errors.SECURITY_DISABLED,
                    error_message="No Authorizer is configured on the broker", resources=[])
    acl_filter = AclBindingFilter.of(req.resource_type_filter, req.resource_name_filter,
                                     req.get("pattern_type_filter", 3), req.principal_filter, req.host_filter,
                                     req.operation, req.permission_type)
    if acl_filter.is_unknown():
        return dict(throttle_time_ms=0, error_code=Errors.INVALID_REQUEST,
                    error_message="The filter contains UNKNOWN elements", resources=[])
    by_pattern: dict = {}
    for binding in authorizer.acls(acl_filter):
        e = binding.entry
        by_pattern.setdefault(binding.pattern, []).append(dict(
            principal=e.principal, host=e.host, operation=int(e.operation),
            permission_type=int(e.permission_type)))
    resources = [dict(resource_type=int(p.resource_type), resource_name=p.name,
                      pattern_type=int(p.pattern_type),
                      acls=acls) for p, acls in by_pattern.items()]
    return dict(throttle_time_ms=0, error_code=Errors.NONE, error_message=None, resources=resources)


def _whole(api_key: ApiKey, version: int, body, error: Errors, message: str | None) -> dict:
    """Every creation or filter answered with `error` and Kafka's `message` for it."""
    response = error_response(api_key, version, body, error)
    for result in response.get("results", response.get("filter_results", [])):
        result["error_message"] = message
    return response


def _not_a_binding(creation) -> bool:
    """ANY where a binding needs a value: Kafka's ResourcePattern and AccessControlEntry refuse to exist."""
    return (creation.get("resource_pattern_type", PatternType.LITERAL) in (PatternType.ANY, PatternType.MATCH)
            or AclOperation.ANY in (creation.operation, creation.resource_type, creation.permission_type))
