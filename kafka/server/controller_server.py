"""ControllerServer: the controller half of a node (Kafka's kafka.server.ControllerServer).

Seed 002: "the control plane" has its own listener. A node with process.roles including controller
binds the listener named in controller.listener.names with a SocketServer, request queue and I/O
threads of its own. Its threads, as a thread dump names them:

    data-plane-kafka-socket-acceptor-CONTROLLER   accepts connections on the controller listener
    data-plane-kafka-network-thread-0             its one Processor (Kafka names both data-plane too)
    control-plane-kafka-request-handler-0, -1     ControllerApis: raft traffic, broker registrations
                                                  and heartbeats, forwarded admin requests
    quorum-controller-<node.id>-event-handler     QuorumController's event queue: every decision and
                                                  every replayed record, one at a time (it decides only
                                                  on the node that leads the quorum)

The metadata log and its raft client (thread kafka-<node.id>-raft-io-thread) are shared with the
broker half of a combined node (SharedServer): there is one quorum member per process, whatever its
roles.
"""

from __future__ import annotations

import structlog

from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.network.request_channel import RequestChannel
from kafka.network.socket_server import SocketServer, SocketServerConfig
from kafka.server.auth_helper import AuthHelper
from kafka.server.bootstrap_directory import read_bootstrap_records
from kafka.server.controller_apis import ControllerApis
from kafka.server.controller_configuration_validator import ControllerConfigurationValidator
from kafka.server.controller_metrics_endpoint import ControllerMetricsEndpoint
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka.server.metadata.acl_publisher import AclPublisher
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.server.server_log_configs import default_log_config
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.ControllerServer")

CONTROLLER_IO_THREADS = 2  # Kafka's num.io.threads does not apply here; its controller uses a small pool too


class ControllerServer:
    def __init__(self, config, time: Time, credential_cache=None) -> None:
        self.config = config
        self.time = time
        self.credential_cache = credential_cache  # SCRAM users of a SASL controller listener
        self.controller: QuorumController | None = None
        self.metrics_endpoint: ControllerMetricsEndpoint | None = None
        self.socket_server: SocketServer | None = None  # bind() and startup() build these; shutdown() stops
        self.request_handler_pool: KafkaRequestHandlerPool | None = None  # only what they built

    def bind(self) -> None:
        """Bind the control-plane listener early: a combined one-node quorum needs its port to know itself."""
        config = self.config
        self.request_channel = RequestChannel(config.queued_max_requests)
        self.socket_server = SocketServer(config.controller_listeners,
                                          SocketServerConfig.from_kafka_config(config, num_network_threads=1),
                                          self.request_channel, self.time, self.credential_cache)
        self.socket_server.startup()

    def bound_port(self) -> int:
        return self.socket_server.bound_port(self.config.controller_listener_name)

    def startup(self, shared) -> None:
        """Start the controller on the shared raft client, then serve the control-plane listener."""
        config = self.config
        self.controller = QuorumController(
            node_id=config.node_id, raft_client=shared.raft_driver, time=self.time,
            cluster_id=shared.cluster_id,
            config=QuorumControllerConfig.from_kafka_config(config),
            config_validator=ControllerConfigurationValidator(
                GroupCoordinatorConfig.from_kafka_config(config), default_log_config(config),
                config.remote_log_storage_system_enable))
        # --add-scram's users
        self.controller.bootstrap_records = read_bootstrap_records(config.metadata_log_dir)
        shared.register_raft_listener(self.controller)
        self.controller.startup()
        # the controller's own authoriser (Kafka gives ControllerServer one too), fed by the same metadata log
        self.authorizer = StandardAuthorizer.from_config(config)
        if self.authorizer is not None:
            shared.loader.install_publishers([AclPublisher(config.node_id, self.authorizer)])
        # no quotas on the control plane
        request_helper = RequestHandlerHelper(self.request_channel, None, self.time)
        self.apis = ControllerApis(request_helper, AuthHelper(self.authorizer), shared.raft_driver,
                                   self.controller)
        self.request_handler_pool = KafkaRequestHandlerPool(self.request_channel, self.apis,
                                                            CONTROLLER_IO_THREADS,
                                                            plane="control-plane")
        self.request_handler_pool.startup()
        if not config.is_broker:  # a combined node's broker half exports the controller's gauges with its own
            self._start_metrics_endpoint(shared)
        log.info("controller started", node_id=config.node_id, listener=f"{config.controller_listener_name}:"
                 f"{self.bound_port()}")

    def _start_metrics_endpoint(self, shared) -> None:
        pool = self.request_handler_pool
        self.metrics_endpoint = ControllerMetricsEndpoint(
            self.config, self.time, self.request_channel, self.socket_server,
            handler_idle_ns=lambda: [h.idle_time_ns for h in pool.handlers],
            controller_values=self.controller.metrics_values,
            raft_values=lambda: dict(shared.raft_driver.published.raft_metrics))
        self.metrics_endpoint.startup()

    def shutdown(self) -> None:
        """Kafka's ControllerServer.shutdown, in its order: the listener, the request handlers, the
        controller's event queue, then its metrics."""
        if self.socket_server is not None:
            self.socket_server.shutdown()
        if self.request_handler_pool is not None:
            self.request_handler_pool.shutdown()
        if self.controller is not None:
            self.controller.shutdown()
        if self.metrics_endpoint is not None:
            self.metrics_endpoint.shutdown()
