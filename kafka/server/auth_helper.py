"""AuthHelper: the questions the request handlers ask the authoriser (Kafka's kafka.server.AuthHelper).

KafkaServer builds one and hands it to KafkaApis and to every handler family beside it
(ControllerServer builds the controller's). Every handler that Kafka authorises asks here, in one
line, before it does the work: may this request's principal, from its client address, do this
operation on this resource? With no authoriser configured (`authorizer.class.name` empty) every
answer is yes, as in Kafka.

`authorize_cluster_operation` raises ClusterAuthorizationError, which ApiRequestHandler turns into
the request's error response with CLUSTER_AUTHORIZATION_FAILED (Kafka's handleError does the same
with its ClusterAuthorizationException). When the request trace is on, each decision is noted on
the request's journey, so /requests shows who asked what and what the authoriser said.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.metadata.authorizer.standard_authorizer_data import ALLOWED
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclOperation, ResourceType, to_32bit_field
from kafka.protocol.errors import Errors

Op, Res = AclOperation, ResourceType
AUTHORIZED_OPERATIONS_OMITTED = -(2**31)  # INT32_MIN: the schema's default, "not asked for"
# The messages Kafka's brokers put beside an authorisation error code (its Errors descriptions)
AUTHORIZATION_MESSAGES = {
    Errors.TOPIC_AUTHORIZATION_FAILED: "Topic authorization failed.",
    Errors.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    Errors.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
    Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "Transactional Id authorization failed.",
}


class AuthorizationError(Exception):
    """A request refused as a whole: answered with its error response carrying `error`."""

    def __init__(self, error: Errors, message: str = "") -> None:
        super().__init__(message or error.message)
        self.error = error


class ClusterAuthorizationError(AuthorizationError):
    def __init__(self, message: str = "") -> None:
        super().__init__(Errors.CLUSTER_AUTHORIZATION_FAILED, message)


class AuthHelper:
    def __init__(self, authorizer: StandardAuthorizer | None) -> None:
        self.authorizer = authorizer

    def authorize(self, request: Request, operation: AclOperation, resource_type: ResourceType, name: str,
                  log_if_denied: bool = True) -> bool:
        """`log_if_denied=False` where a denial is an expected answer, not a refusal (Kafka's logIfDenied):
        the topics an all-topics Metadata leaves out, a check with a fallback."""
        if self.authorizer is None:
            return True
        rule = self.authorizer.authorize(str(request.principal), request.client_address, operation,
                                         resource_type,
                                         name, log_if_denied=log_if_denied)
        if request.journey is not None:
            request.mark(f"authorize {request.principal} {operation.name} "
                         f"{resource_type.name}:{name} -> {rule}")
        return rule.result == ALLOWED

    def require(self, request: Request, operation: AclOperation, resource_type: ResourceType, name: str,
                error: Errors) -> None:
        """Refuse the whole request with `error` unless allowed (its error response answers every part)."""
        if not self.authorize(request, operation, resource_type, name):
            raise AuthorizationError(error)

    def authorize_cluster_operation(self, request: Request, operation: AclOperation) -> None:
        if not self.authorize(request, operation, Res.CLUSTER, CLUSTER_NAME):
            raise ClusterAuthorizationError(f"Request from {request.principal} is not authorized.")

    def filter_by_authorized(self, request: Request, operation: AclOperation, resource_type: ResourceType,
                             names: Iterable[str], log_if_denied: bool = True) -> set[str]:
        """The names (each asked once) the principal may do `operation` on."""
        if self.authorizer is None:  # the produce and fetch path without an authoriser: no per-name calls
            return set(names)
        return {name for name in set(names)
                if self.authorize(request, operation, resource_type, name, log_if_denied)}

    def authorize_by_resource_type(self, request: Request, operation: AclOperation,
                                   resource_type: ResourceType) -> bool:
        if self.authorizer is None:
            return True
        allowed = self.authorizer.authorize_by_resource_type(str(request.principal), request.client_address,
                                                             operation, resource_type)
        if request.journey is not None:
            request.mark(f"authorize {request.principal} {operation.name} any {resource_type.name} -> "
                         f"{'ALLOWED' if allowed else 'DENIED'}")
        return allowed

    def authorized_operations(self, request: Request, resource_type: ResourceType, name: str) -> int:
        """The authorized_operations bit field of Metadata, DescribeCluster and DescribeGroups."""
        if self.authorizer is None:
            return to_32bit_field(SUPPORTED_OPERATIONS[resource_type])
        return to_32bit_field(self.authorizer.authorized_operations(str(request.principal),
                                                                    request.client_address,
                                                                    resource_type, name))

    def cluster_authorized_operations(self, request: Request, include: bool) -> int:
        """Kafka's rule: INT32_MIN when not asked, 0 without DESCRIBE on the cluster, else the bits."""
        if not include:
            return AUTHORIZED_OPERATIONS_OMITTED
        if not self.authorize(request, Op.DESCRIBE, Res.CLUSTER, CLUSTER_NAME):
            return 0
        return self.authorized_operations(request, Res.CLUSTER, CLUSTER_NAME)
