"""ControllerApis: the requests a controller answers on its own listener (Kafka's
kafka.server.ControllerApis).

Seed 002's control plane. Everything that reaches a controller arrives here, on the listener named
in controller.listener.names, with its own network threads, request queue and I/O threads, so a
flood of produce requests on the broker listener never delays an election:

    the quorum's own traffic   Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch, FetchSnapshot,
                               DescribeQuorum, and KIP-853's AddRaftVoter, RemoveRaftVoter,
                               UpdateRaftVoter -> the raft driver (KafkaRaftClient steps them)
    brokers talking to us      BrokerRegistration, BrokerHeartbeat, AlterPartition,
                               AllocateProducerIds (a block of producer ids, KIP-730); and the
                               controllers: ControllerRegistration (KIP-919)
    admin requests             CreateTopics, DeleteTopics, CreatePartitions, IncrementalAlterConfigs,
                               AlterClientQuotas, ElectLeaders, Alter/ListPartitionReassignments,
                               CreateAcls, DeleteAcls, UpdateFeatures, UnregisterController (4.4-IV2),
                               forwarded by brokers (or sent
                               here directly)
                               -> the QuorumController; DescribeAcls from this node's authoriser

The QuorumController answers with futures that complete once its records are committed in the
metadata log; the response is sent from whichever thread completes them, as a purgatory would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.controller.feature_control_manager import api_versions_features
from kafka.network.request_channel import Request
from kafka.protocol.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.acl_apis import describe_acls_response
from kafka.server.api_request_handler import ApiRequestHandler
from kafka.server.auth_helper import AuthHelper
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.server.sasl_apis import SaslApis

log = structlog.get_logger("kafka.server.ControllerApis")

# What a principal needs on the cluster to send each admin request straight to the controller; the
# rest (the quorum's traffic, broker registration and heartbeats, AlterPartition, AllocateProducerIds)
# need CLUSTER_ACTION. A broker forwarding an admin request holds CLUSTER_ACTION and has checked its
# client already (acl_apis.py). Kafka also accepts a topic-level grant for the topic APIs (docs/acls.md).
CLUSTER_OPERATIONS = {
    ApiKey.CREATE_TOPICS: AclOperation.CREATE, ApiKey.DELETE_TOPICS: AclOperation.DELETE,
    ApiKey.CREATE_PARTITIONS: AclOperation.ALTER,
    ApiKey.INCREMENTAL_ALTER_CONFIGS: AclOperation.ALTER_CONFIGS,
    ApiKey.ELECT_LEADERS: AclOperation.ALTER, ApiKey.ALTER_CLIENT_QUOTAS: AclOperation.ALTER_CONFIGS,
    ApiKey.ALTER_PARTITION_REASSIGNMENTS: AclOperation.ALTER,
    ApiKey.LIST_PARTITION_REASSIGNMENTS: AclOperation.DESCRIBE, ApiKey.DESCRIBE_QUORUM: AclOperation.DESCRIBE,
    ApiKey.CREATE_ACLS: AclOperation.ALTER, ApiKey.DELETE_ACLS: AclOperation.ALTER,
    ApiKey.DESCRIBE_ACLS: AclOperation.DESCRIBE,
    ApiKey.ADD_RAFT_VOTER: AclOperation.ALTER, ApiKey.REMOVE_RAFT_VOTER: AclOperation.ALTER,
    ApiKey.DESCRIBE_CLUSTER: AclOperation.DESCRIBE, ApiKey.UPDATE_FEATURES: AclOperation.ALTER,
    ApiKey.UNREGISTER_CONTROLLER: AclOperation.ALTER,
}
RAFT_APIS = (ApiKey.VOTE, ApiKey.BEGIN_QUORUM_EPOCH, ApiKey.END_QUORUM_EPOCH, ApiKey.FETCH,
             ApiKey.FETCH_SNAPSHOT, ApiKey.DESCRIBE_QUORUM,
             ApiKey.ADD_RAFT_VOTER, ApiKey.REMOVE_RAFT_VOTER, ApiKey.UPDATE_RAFT_VOTER)  # KIP-853


# A broker forwards without an Envelope (forwarding_manager.py), on its forwarding channel, whose client id
# (node_to_controller_channel_manager.py) says so: what Kafka's Request.isForwarded tells from the Envelope.
FORWARDING_CLIENT_ID = re.compile(r"broker-\d+-to-controller-forwarding")


def is_forwarded(request: Request) -> bool:
    return FORWARDING_CLIENT_ID.fullmatch(request.header.client_id or "") is not None


class ControllerApis(ApiRequestHandler):
    def __init__(self, request_helper: RequestHandlerHelper, auth_helper: AuthHelper, raft_driver,
                 controller) -> None:
        self.request_helper = request_helper  # no quotas on this listener: never throttled
        self.auth = auth_helper
        self.raft_driver = raft_driver
        self.controller = controller
        self.handlers: dict[int, Callable[[Request], None]] = {
            ApiKey.API_VERSIONS: self.handle_api_versions_request,
            # advertised so that a SASL client logs in; after login they answer ILLEGAL_SASL_STATE
            **{k: h for k, h in SaslApis(request_helper).handlers().items()
               if k in (ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE)},
            **{key: self.handle_raft_request for key in RAFT_APIS},
            ApiKey.BROKER_REGISTRATION: self._answer_with(lambda body: controller.register_broker(body)),
            ApiKey.BROKER_HEARTBEAT: self._answer_with(
                lambda body: controller.process_broker_heartbeat(body)),
            ApiKey.ALTER_PARTITION: self._answer_with(lambda body: controller.alter_partition(body)),
            ApiKey.ALLOCATE_PRODUCER_IDS: self._answer_with(
                lambda body: controller.allocate_producer_ids(body)),
            ApiKey.CREATE_TOPICS: self._answer_with(lambda body: controller.create_topics(body)),
            ApiKey.DELETE_TOPICS: self._answer_with(lambda body: controller.delete_topics(body)),
            ApiKey.CREATE_PARTITIONS: self._answer_with(lambda body: controller.create_partitions(body)),
            ApiKey.INCREMENTAL_ALTER_CONFIGS: self.handle_incremental_alter_configs,
            ApiKey.ELECT_LEADERS: self._answer_with(lambda body: controller.elect_leaders(body)),
            ApiKey.ALTER_CLIENT_QUOTAS: self._answer_with(lambda body: controller.alter_client_quotas(body)),
            ApiKey.ALTER_USER_SCRAM_CREDENTIALS: self._answer_with(
                lambda body: controller.alter_user_scram_credentials(body)),
            ApiKey.ALTER_PARTITION_REASSIGNMENTS: self._answer_with(
                lambda body: controller.alter_partition_reassignments(body)),
            ApiKey.LIST_PARTITION_REASSIGNMENTS: self._answer_with(
                lambda body: controller.list_partition_reassignments(body)),
            ApiKey.CREATE_ACLS: self._answer_with(lambda body: controller.create_acls(body)),
            ApiKey.DELETE_ACLS: self._answer_with(lambda body: controller.delete_acls(body)),
            ApiKey.DESCRIBE_ACLS: self.handle_describe_acls,
            ApiKey.DESCRIBE_CLUSTER: self.handle_describe_cluster,
            ApiKey.UPDATE_FEATURES: self.handle_update_features,
            # KIP-919: a controller registers; from metadata.version 4.4-IV2 a registration can be removed
            ApiKey.CONTROLLER_REGISTRATION: self._answer_with(
                lambda body: controller.cluster.controllers.register_controller(body)),
            ApiKey.UNREGISTER_CONTROLLER: self._answer_with(
                lambda body: controller.cluster.controllers.unregister_controller(body)),
        }
        # authorisation: every API of this listener needs a permission on the cluster (CLUSTER_ACTION
        # for the quorum's and the brokers' own requests); a broker forwards admin requests as itself
        for key in list(self.handlers):
            operation = CLUSTER_OPERATIONS.get(key, AclOperation.CLUSTER_ACTION)
            if key != ApiKey.API_VERSIONS:
                self.handlers[key] = self._authorized(operation, self.handlers[key])

    def _authorized(self, operation: AclOperation,
                    handler: Callable[[Request], None]) -> Callable[[Request], None]:
        def handle(request: Request) -> None:
            # a broker forwarding its client's request holds CLUSTER_ACTION (what Kafka asks of an Envelope)
            if not self.auth.authorize(request, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                                       CLUSTER_NAME, False):
                self.auth.authorize_cluster_operation(request, operation)
            if request.header.api_key in (ApiKey.CREATE_ACLS,
                                          ApiKey.DELETE_ACLS) and self.auth.authorizer is None:
                self.request_helper.send_error_response_maybe_throttle(request, Errors.SECURITY_DISABLED)
                return
            handler(request)
        return handle

    def api_versions_features(self, version: int) -> dict:
        """The controller's ApiVersions carries features too (what `kafka-features --bootstrap-controller
        describe` reads): the levels of the metadata this controller has committed, read from its committed
        image, which the controller thread replaces whole."""
        image = self.controller.committed_image
        levels = dict(image.features.finalized_versions)
        if (kraft := self.controller.features.kraft_version()) > 0:
            levels["kraft.version"] = kraft
        return api_versions_features(version, levels, image.provenance.last_contained_offset)

    def handle_describe_acls(self, request: Request) -> None:
        self.request_helper.send_response_maybe_throttle(request, describe_acls_response(self.auth.authorizer,
                                                                                         request.body))

    def handle_describe_cluster(self, request: Request) -> None:
        """DescribeCluster on the controller listener (KIP-919): the cluster id, the active controller, and
        the voters where they listen -- what `kafka-metadata-quorum --bootstrap-controller` asks first."""
        # as the raft thread last published it: no waiting for that thread
        quorum = self.raft_driver.published
        cluster_id, leader, voters = quorum.cluster_id, quorum.leader_id, quorum.voters
        body = dict(throttle_time_ms=0, error_code=Errors.NONE, error_message=None, cluster_id=cluster_id,
                    controller_id=-1 if leader is None else leader,
                    brokers=[dict(broker_id=i, host=host, port=port, rack=None)
                             for i, (host, port) in sorted(voters.endpoints("CONTROLLER").items())])
        if request.header.api_version >= 1:
            body["endpoint_type"] = 2  # controllers
        self.request_helper.send_response_maybe_throttle(request, body)

    def handle_update_features(self, request: Request) -> None:
        """UpdateFeatures (KIP-584): FeatureControlManager decides; the answer's shape depends on the version
        (results per feature up to version 1)."""
        future = self.controller.update_features(request.body, request.header.api_version)
        future.add_done_callback(lambda f: self._complete(request, f))

    def handle_incremental_alter_configs(self, request: Request) -> None:
        """IncrementalAlterConfigs: the controller is told whether a broker forwarded it (Kafka's
        Request.isForwarded), for what a broker has already checked (cordoned.log.dirs, KIP-1066)."""
        future = self.controller.incremental_alter_configs(request.body, is_forwarded(request))
        future.add_done_callback(lambda f: self._complete(request, f))

    def handle_raft_request(self, request: Request) -> None:
        """The raft thread answers when the core has stepped it (a leader may hold a Fetch a while)."""
        self.raft_driver.handle_request(request.header.api_key, request.body,
                                        lambda body: self.request_helper.send_response_maybe_throttle(request,
                                                                                                      body))

    def _answer_with(self, call: Callable[[object], Future]) -> Callable[[Request], None]:
        def handle(request: Request) -> None:
            future = call(request.body)
            future.add_done_callback(lambda f: self._complete(request, f))
        return handle

    def _complete(self, request: Request, future: Future) -> None:
        error = future.exception()
        if error is not None:  # a bug in the controller: answer, never leave the client hanging
            log.error("controller request failed", api=request.header.api_key, error=repr(error))
            self.request_helper.handle_error(request)
            return
        self.request_helper.send_response_maybe_throttle(request, future.result())
