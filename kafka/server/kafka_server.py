"""KafkaServer: one node of a KRaft cluster, its broker and controller halves (Kafka's KafkaRaftServer
and BrokerServer).

process.roles decides what runs. A combined node (the one-node default, `make run`) has both:

    storage         meta.properties in every log directory names the cluster and this node;
                    a one-voter quorum with empty directories formats itself, a real quorum
                    must be formatted with `kafka-storage format` first
    controller      ControllerServer: the CONTROLLER listener, ControllerApis, QuorumController
    shared          SharedServer: the metadata log, the raft client and its thread, the MetadataLoader
    broker          LogManager -> SocketServer -> MetadataCache, ReplicaManager, GroupCoordinator,
                    TransactionCoordinator (producer ids from blocks the controller allocates;
                    transactions in __transaction_state, markers over the inter-broker listener),
                    ShareCoordinator and its persister, SharePartitionManager (share groups, KIP-932)
                    -> BrokerMetadataPublisher (applies each committed metadata change to them)
                    -> BrokerLifecycleManager (registers, heartbeats; fenced until caught up)
                    -> KafkaApis and the I/O threads, once the broker has caught up with the log

Seed 004: the broker decides no metadata; it replays the log the controllers write. Start-up waits until the
broker has caught up with that log and the controller has unfenced it: the first request sees every topic.

Shutdown goes the other way, in Kafka's BrokerServer.shutdown order: a controlled shutdown first (the
controller moves this broker's leaderships away), then stop accepting and close connections, detach the
broker's metadata publishers, stop the I/O threads, the scheduler, the coordinators, the replica manager
and its purgatories, the channels to the controller, the cleaner, and flush and close every log; then the
controller, and last the raft client (a leader resigns so the others elect at once) and the metadata log.
"""

from __future__ import annotations

import socket
import threading
from concurrent.futures import Future

import structlog

from kafka.coordinator.group.group_config_manager import GroupConfigManager
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_records import GROUP_METADATA_TOPIC_NAME
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.coordinator.share.share_coordinator_config import ShareCoordinatorConfig
from kafka.coordinator.share.share_coordinator_service import ShareCoordinatorService
from kafka.coordinator.transaction.producer_id_manager import RPCProducerIdManager
from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.coordinator.transaction.transaction_log import TRANSACTION_STATE_TOPIC_NAME
from kafka.log.log_cleaner import LogCleaner
from kafka.log.log_manager import LogManager
from kafka.log.producer_state_manager import ProducerStateManagerConfig
from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.metrics.authorizer_metrics import AuthorizerMetrics
from kafka.network.end_point import EndPoint
from kafka.network.request_channel import RequestChannel
from kafka.network.socket_server import SocketServer, SocketServerConfig
from kafka.protocol.api_keys import ApiKey
from kafka.security.credential_cache import CredentialCache
from kafka.server.acl_apis import AclApis
from kafka.server.add_partitions_to_txn_manager import AddPartitionsToTxnManager
from kafka.server.admin_apis import AdminApis
from kafka.server.admin_manager import AdminManager
from kafka.server.alter_partition_manager import AlterPartitionManager
from kafka.server.auth_helper import AuthHelper
from kafka.server.auto_topic_creation_manager import AutoTopicCreationManager
from kafka.server.broker_lifecycle_manager import BrokerLifecycleManager
from kafka.server.client_metrics_apis import start_client_metrics
from kafka.server.client_quota_apis import ClientQuotaApis
from kafka.server.config_helper import ConfigHelper
from kafka.server.consumer_group_apis import ConsumerGroupApis
from kafka.server.controller_server import ControllerServer
from kafka.server.fetch_manager import FetchManager
from kafka.server.fetch_session import FetchSessionCache
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.group_apis import GroupApis
from kafka.server.inter_broker_send_thread import InterBrokerSendThread
from kafka.server.kafka_apis import KafkaApis
from kafka.server.kafka_config import KafkaConfig
from kafka.server.kafka_raft_server import initialize_log_dirs, storage_error
from kafka.server.kafka_request_handler import KafkaRequestHandlerPool
from kafka.server.metadata.acl_publisher import AclPublisher
from kafka.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka.server.metadata.client_quota_metadata_manager import ClientQuotaMetadataManager
from kafka.server.metadata.dynamic_config_publisher import DynamicConfigPublisher
from kafka.server.metadata.scram_publisher import ScramPublisher
from kafka.server.metadata_cache import Broker, MetadataCache
from kafka.server.metrics_endpoint import MetricsEndpoint
from kafka.server.node_to_controller_channel_manager import NodeToControllerChannelManager
from kafka.server.quota.quota_factory import QuotaManagers
from kafka.server.remote.remote_log_manager_builder import build_remote_log_manager
from kafka.server.replica_manager import ReplicaManager
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.server.sasl_apis import SaslApis
from kafka.server.server_log_configs import cleaner_config, default_log_config
from kafka.server.share.persister.default_state_persister import DefaultStatePersister
from kafka.server.share.persister.persister import PartitionStateKey
from kafka.server.share.persister.share_coordinator_metadata_cache_helper import (
    ShareCoordinatorMetadataCacheHelperImpl,
)
from kafka.server.share.share_partition_manager import SharePartitionManager
from kafka.server.share_apis import ShareApis
from kafka.server.share_coordinator_apis import ShareCoordinatorApis
from kafka.server.share_group_admin_apis import ShareGroupAdminApis
from kafka.server.share_group_apis import ShareGroupApis
from kafka.server.shared_server import SharedServer
from kafka.server.storage_apis import StorageApis
from kafka.server.transaction_apis import TransactionApis
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import SYSTEM, Time
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.system_timer_reaper import SystemTimerReaper

log = structlog.get_logger("kafka.server.KafkaServer")

STARTUP_WAIT_LOG_INTERVAL_S = 10.0
HANDLER_ERROR_LOG_INTERVAL_MS = 10_000  # the same handler failure (a lab's TODO every fetch hits): once


class StartupAborted(Exception):
    """A stop was asked for while the node was still waiting for its quorum."""


class KafkaServer:
    def __init__(self, config: KafkaConfig, time: Time = SYSTEM) -> None:
        self.config = config
        self.time = time
        self._shutdown_done = threading.Event()
        self._shutdown_lock = threading.Lock()
        self._stop_requested = threading.Event()
        self._started = False
        self.controller_server: ControllerServer | None = None
        self.shared: SharedServer | None = None
        self.credential_cache = CredentialCache()  # SCRAM users for every SASL listener of this node
        self.scram_publisher = ScramPublisher(self.credential_cache)

    # ------------------------------------------------------------------ start-up
    def startup(self) -> None:
        config = self.config
        self._started = True  # from here on, shutdown() stops whatever did start
        cluster_id = initialize_log_dirs(config)
        if config.is_controller:
            self.controller_server = ControllerServer(config, self.time, self.credential_cache)
            try:
                self.controller_server.bind()
            except OSError as e:
                raise OSError(f"listeners: {e}") from None
        self.shared = SharedServer(config, cluster_id, self._voter_end_points(), self.time)
        try:
            self.shared.open()
        except OSError as e:
            raise storage_error(config, e, [config.metadata_log_dir], "opening the metadata log") from None
        self.shared.loader.install_publishers([self.scram_publisher])
        if self.controller_server is not None:
            self.controller_server.startup(self.shared)
        if config.is_broker:
            self._startup_broker(cluster_id)
        self.shared.start()
        if config.is_broker:
            self._await_broker_ready()
            self.request_handler_pool.startup()
        controller = self.controller_server
        log.info("started", node_id=config.node_id, cluster_id=cluster_id, roles=sorted(config.process_roles),
                 listeners=[e.connection_string for e in self._advertised_end_points()],
                 controller_listener=(f"{config.controller_listener_name}://:{controller.bound_port()}"
                                      if controller else None))

    def _voter_end_points(self) -> dict[int, tuple[str, int]]:
        if voters := self.config.controller_quorum_voters:
            return {v.node_id: (v.host, v.port) for v in voters.values()}
        if self.config.controller_quorum_bootstrap_servers:  # KIP-853: the voters come from the metadata log
            return {}
        # The embedded default: this node alone, on the port its CONTROLLER listener was given.
        return {self.config.node_id: ("127.0.0.1", self.controller_server.bound_port())}

    def _controller_end_points(self) -> dict[int, tuple[str, int]]:
        """Where a broker first looks for the controllers: the static voters, else the bootstrap servers."""
        return self._voter_end_points() or {-2 - i: address for i, address
                                            in enumerate(self.config.controller_quorum_bootstrap_servers)}

    def _startup_broker(self, cluster_id: str) -> None:
        """Kafka's BrokerServer.startup, one step a function; each builds what the later ones use."""
        self._start_log_manager(cluster_id)
        self._start_socket_server()
        self._create_replica_manager(cluster_id)
        self._start_forwarding_manager()
        self._start_alter_partition_manager()
        self.admin_manager = AdminManager(self.config, self.metadata_cache, self.forwarding_manager,
                                          default_log_config(self.config), self.time)
        self._start_log_tasks()
        self._start_group_coordinator()
        self._start_transaction_coordinator()
        self._create_share_coordinator()
        # fetch sessions (KIP-227): the partitions each consumer and follower reads, between requests
        self.fetch_manager = FetchManager(
            self.time, FetchSessionCache(self.config.max_incremental_fetch_session_cache_slots))
        self.quota_managers = QuotaManagers.instantiate(self.config, self.time)  # docs/quotas.md
        self._start_metrics_endpoint()
        self._create_share_partition_manager()
        self._install_metadata_publishers()
        self._create_authorizer()
        self.apis = self._create_kafka_apis()
        self.request_handler_pool = KafkaRequestHandlerPool(
            self.request_channel, self.apis, self.config.num_io_threads,
            errors=RepeatedErrorLog(structlog.get_logger("kafka.server.KafkaRequestHandler"), self.time,
                                    interval_ms=HANDLER_ERROR_LOG_INTERVAL_MS))
        self._start_lifecycle_manager(cluster_id)

    def _start_log_manager(self, cluster_id: str) -> None:
        config = self.config
        # The coordinators' topics keep their descriptors (storage.md).
        reserved_partitions = {GROUP_METADATA_TOPIC_NAME: config.offsets_topic_num_partitions,
                               TRANSACTION_STATE_TOPIC_NAME: config.transaction_state_log_num_partitions}
        self.log_manager = LogManager(
            config.log_dirs, default_log_config(config), self.time, node_id=config.node_id,
            cluster_id=cluster_id,
            producer_state_manager_config=ProducerStateManagerConfig(config.producer_id_expiration_ms),
            producer_id_expiration_check_interval_ms=config.producer_id_expiration_check_interval_ms,
            reserved_partitions=reserved_partitions,
            remote_storage_system_enable=config.remote_log_storage_system_enable)
        try:
            self.log_manager.startup({})  # topic configs come from the metadata log, applied by the publisher
        except OSError as e:
            raise storage_error(config, e, config.log_dirs, "loading the logs") from None

    def _start_socket_server(self) -> None:
        config = self.config
        self.request_channel = RequestChannel(config.queued_max_requests)
        self.socket_server = SocketServer(config.broker_listeners,
                                          SocketServerConfig.from_kafka_config(config), self.request_channel,
                                          self.time, self.credential_cache)
        # Bind before anything else can fail late: a taken port stops start-up here.
        try:
            self.socket_server.startup(enable_request_processing=False)  # accepting once caught up (below)
        except OSError as e:
            raise OSError(f"listeners: {e}") from None

    def _create_replica_manager(self, cluster_id: str) -> None:
        config = self.config
        self.metadata_cache = MetadataCache(cluster_id, Broker(config.node_id, self._advertised_end_points()))
        self.metadata_cache.kraft_version = lambda: self.shared.raft_driver.published.kraft_version  # KIP-853
        rlm = build_remote_log_manager(config, self.log_manager, self.metadata_cache, self.time)  # KIP-405
        self.replica_manager = ReplicaManager(config, self.log_manager, self.metadata_cache, self.time,
                                              remote_log_manager=rlm)

    def _start_forwarding_manager(self) -> None:
        """The channel to the active controller, which admin requests are forwarded on (Kafka's
        clientToControllerChannelManager), and the scheduler (retention, flush, forwards that time out)."""
        config = self.config
        self.controller_channel = NodeToControllerChannelManager(
            config.node_id, self._controller_end_points(), self.shared.leader_id,
            config.controller_quorum_request_timeout_ms, config.controller_quorum_retry_backoff_ms, self.time,
            client_configs=config.client_configs(config.controller_listener_name))
        self.controller_channel.endpoint_of = self.shared.voter_endpoint  # KIP-853: voters can change
        self.controller_channel.start()
        self.kafka_scheduler = KafkaScheduler(self.time)
        self.kafka_scheduler.startup()
        self.forwarding_manager = ForwardingManager(self.controller_channel, self.kafka_scheduler)

    def _start_alter_partition_manager(self) -> None:
        """Replication: ISR changes go to the controller on a channel of their own (as in Kafka)."""
        config = self.config
        self.alter_partition_channel = NodeToControllerChannelManager(
            config.node_id, self._controller_end_points(), self.shared.leader_id,
            config.controller_quorum_request_timeout_ms, config.controller_quorum_retry_backoff_ms, self.time,
            name="alter-partition", client_configs=config.client_configs(config.controller_listener_name))
        self.alter_partition_channel.endpoint_of = self.shared.voter_endpoint
        self.alter_partition_channel.start()
        self.replica_manager.alter_partition_manager = AlterPartitionManager(
            self.alter_partition_channel, config.node_id, lambda: self.lifecycle_manager.broker_epoch)

    def _start_log_tasks(self) -> None:
        """ISR expiration, the LogManager's retention, flush and checkpoint tasks, the LogCleaner."""
        config = self.config
        self.replica_manager.startup(self.kafka_scheduler)  # isr-expiration
        self.log_manager.startup_tasks(
            self.kafka_scheduler, config.log_retention_check_interval_ms,
            config.log_flush_offset_checkpoint_interval_ms,
            config.log_flush_start_offset_checkpoint_interval_ms,
            config.replica_high_watermark_checkpoint_interval_ms, config.log_flush_scheduler_interval_ms)
        self.log_cleaner = LogCleaner(cleaner_config(config), self.log_manager.log_dirs,
                                      self.log_manager.all_logs, self.time)
        if self.log_cleaner.config.enable_cleaner:
            self.log_cleaner.startup()

    def _start_group_coordinator(self) -> None:
        """The group coordinator on Kafka 4's runtime: a shard per __consumer_offsets partition the
        publisher says we lead (its runtime metrics join the endpoint's group once that exists)."""
        group_coordinator_config = GroupCoordinatorConfig.from_kafka_config(self.config)
        self.group_config_manager = GroupConfigManager(group_coordinator_config)  # the publisher feeds it
        self.group_coordinator = GroupCoordinatorService.build(
            self.config.node_id, group_coordinator_config, self.replica_manager, self.time, None,
            self._topics_image, self.group_config_manager)
        self.group_coordinator.startup()

    def _start_transaction_coordinator(self) -> None:
        """Producer ids (KIP-730): blocks from the active controller, asked for on the forwarding
        channel with this broker's id and epoch, as Kafka's BrokerServer wires its RPCProducerIdManager.
        The marker channel's WriteTxnMarkers go to each partition leader's inter-broker listener."""
        config = self.config
        self.producer_id_manager = RPCProducerIdManager(
            config.node_id, self.time, lambda: self.lifecycle_manager.broker_epoch,
            lambda body, callback: self.controller_channel.send_request(
                ApiKey.ALLOCATE_PRODUCER_IDS, body, callback, config.controller_quorum_request_timeout_ms))
        self.txn_marker_send_thread = InterBrokerSendThread(
            f"TxnMarkerSenderThread-{config.node_id}", config.node_id, 30_000, self.time,
            config.client_configs(config.inter_broker_listener_name))
        self.txn_marker_send_thread.start()
        coordinator = TransactionCoordinator.build(
            config.node_id, config, self.replica_manager, self.producer_id_manager,
            lambda tp: self.metadata_cache.get_partition_leader_endpoint(
                tp, config.inter_broker_listener_name),
            lambda destination, body, callback: self.txn_marker_send_thread.send(
                destination, ApiKey.WRITE_TXN_MARKERS, body, callback),
            self.group_coordinator.partition_for, self.time)
        self.transaction_coordinator = coordinator
        self.transaction_coordinator.startup()

    def _create_share_coordinator(self) -> None:
        """Share groups (KIP-932), Kafka's createShareCoordinator and createShareStatePersister: the share
        coordinator over __share_group_state (the publisher starts it on the first image), and the
        DefaultStatePersister through which share partitions and the group coordinator reach it -- its
        requests go to the coordinator's broker on the inter-broker listener, even when that is this one."""
        config = self.config
        self.share_coordinator = ShareCoordinatorService.build(
            config.node_id, ShareCoordinatorConfig.from_kafka_config(config), self.replica_manager, self.time)
        listener = config.inter_broker_listener_name
        self.persister_timer = SystemTimerReaper(f"persister-state-manager-reaper-{config.node_id}",
                                                 SystemTimer("persister", time=self.time))
        sender = InterBrokerSendThread(f"PersisterStateManager-{config.node_id}", config.node_id, 30_000,
                                       self.time, config.client_configs(listener))
        coordinators = ShareCoordinatorMetadataCacheHelperImpl(self.metadata_cache,
                                                               self.share_coordinator.partition_for, listener)
        self.persister = DefaultStatePersister.instance(sender, coordinators, self.time, self.persister_timer)
        groups = self.group_coordinator  # a share partition's state exists before it is handed out
        groups.share_group_state_initializer = lambda g, t, p, e, s: self.persister.initialize_state(
            PartitionStateKey(g, t, p), e, s)
        offsets = groups.share_group_offsets  # the admin APIs and DeleteGroups read and delete the state
        offsets.share_group_state_summary_reader = lambda g, t, p: self.persister.read_summary(
            PartitionStateKey(g, t, p), 0)
        offsets.share_group_state_deleter = lambda g, t, p: self.persister.delete_state(
            PartitionStateKey(g, t, p))

    def _create_share_partition_manager(self) -> None:
        """The share partitions this broker leads (`SharePartitionManager.build`); a share session ends
        with its connection (the network layer tells the cache: Kafka's ConnectionDisconnectListener)."""
        self.share_partition_manager = SharePartitionManager.build(
            self.config.node_id, self.config, self.replica_manager, self.persister, self.time,
            self.metrics_endpoint.metrics.group, self.group_config_manager)
        sessions = self.share_partition_manager.cache
        self.request_channel.connection_disconnect_listeners.append(sessions.on_disconnect)

    def _share_groups_enabled(self) -> bool:
        """share.version is finalized at 1 or more: the share APIs answer (else UNSUPPORTED_VERSION)."""
        return self.metadata_cache.finalized_features.get("share.version", 0) >= 1

    def _install_metadata_publishers(self) -> None:
        """What applies each committed metadata change to this broker, and the client quotas it holds."""
        config = self.config
        self.metadata_publisher = BrokerMetadataPublisher(
            config, self.metadata_cache, self.replica_manager, self.log_manager, self.group_coordinator,
            default_log_config(config), self.transaction_coordinator, self.share_coordinator,
            self.share_partition_manager)
        self.metadata_publisher.add_update_listener(self.admin_manager.metadata_updated)
        # client quotas: what KafkaApis asks, fed by the metadata log (Kafka's DynamicClientQuotaPublisher)
        self.client_quota_metadata_manager = ClientQuotaMetadataManager(self.quota_managers)
        dynamic = DynamicConfigPublisher.for_broker(self)  # dynamic broker configs: docs/dynamic_configs.md
        self._broker_publishers = [self.metadata_publisher, self.client_quota_metadata_manager, dynamic]
        self.shared.loader.install_publishers(self._broker_publishers)

    def _start_metrics_endpoint(self) -> None:
        """The /metrics endpoint and the request trace."""
        purgatory_holders = [self.replica_manager, self.group_coordinator, self.admin_manager,
                             self.transaction_coordinator, self.forwarding_manager]
        self.metrics_endpoint = MetricsEndpoint(
            self.config, self.time, self.request_channel, self.socket_server, self.replica_manager,
            self.log_manager, self.fetch_manager.cache, purgatory_holders, self.transaction_coordinator,
            self.quota_managers,  # the I/O pool is made later: none until then
            io_thread_idle_ns=lambda: getattr(self.request_handler_pool, "idle_times_ns", list)(),
            controller_values=self._controller_metrics, raft_values=self._raft_metrics)
        self.metrics_endpoint.startup()
        self.socket_server.register_metrics(self.metrics_endpoint.metrics)
        groups = self.group_coordinator  # KIP-848: rebalances and assignment time, over its shards
        groups.on_assignment = self.metrics_endpoint.metrics.register_consumer_groups(
            groups.consumer_group_rebalance_count, groups.consumer_group_count_by_state)
        self.group_coordinator.runtime.metrics.register_with(self.metrics_endpoint.metrics.group)

    def _create_authorizer(self) -> None:
        """authorizer.class.name, fed the ACLs of the metadata log (docs/acls.md). Its metrics are
        exported without one too, at 0, so the dashboard's panel always has its series."""
        authorizer_metrics = AuthorizerMetrics(self.metrics_endpoint.metrics.group)
        self.authorizer = StandardAuthorizer.from_config(self.config, authorizer_metrics)
        authorizer_metrics.register_acl_count(lambda: self.authorizer.acl_count() if self.authorizer else 0)
        if self.authorizer is not None:
            self.shared.loader.install_publishers([AclPublisher(self.config.node_id, self.authorizer)])

    def _create_kafka_apis(self) -> KafkaApis:
        """Kafka's createKafkaApis: each handler family built with the collaborators it uses, all answering
        through one RequestHandlerHelper and asking one AuthHelper; KafkaApis keeps the data plane's."""
        config = self.config
        request_helper = RequestHandlerHelper(self.request_channel, self.quota_managers, self.time)
        auth_helper = AuthHelper(self.authorizer)
        auto_topic_creation_manager = AutoTopicCreationManager(config, self.admin_manager)
        client_metrics = start_client_metrics(  # KIP-714: the ClientMetricsManager and its APIs
            request_helper, auth_helper, config, self.time, self.shared.loader, self.metrics_endpoint.metrics,
            self.admin_manager, self.group_coordinator)
        config_helper = ConfigHelper(self.admin_manager, config, client_metrics.client_metrics_manager)
        families = [
            StorageApis(request_helper, auth_helper, self.replica_manager, self.metadata_cache,
                        config_helper),
            GroupApis(request_helper, auth_helper, self.group_coordinator, self.metadata_cache,
                      auto_topic_creation_manager, config, self.transaction_coordinator,
                      self.share_coordinator),
            ConsumerGroupApis(request_helper, auth_helper, self.group_coordinator, self.metadata_cache),
            # share groups (KIP-932): the group, its records on the partition leaders, and their state
            ShareGroupApis(request_helper, auth_helper, self.group_coordinator, self._share_groups_enabled),
            ShareApis(self.share_partition_manager, self.metadata_cache, auth_helper, request_helper,
                      self.share_partition_manager.config_provider,
                      config.group_share_record_lock_duration_ms,
                      share_groups_enabled=self._share_groups_enabled),
            ShareCoordinatorApis(self.share_coordinator, auth_helper, request_helper),
            ShareGroupAdminApis(request_helper, auth_helper, self.group_coordinator, self.metadata_cache,
                                self._share_groups_enabled),
            TransactionApis(request_helper, auth_helper, self.transaction_coordinator, self.metadata_cache),
            client_metrics,  # KIP-714: GetTelemetrySubscriptions, PushTelemetry, ListConfigResources
            AdminApis(request_helper, auth_helper, self.admin_manager, self.forwarding_manager,
                      self.metadata_cache, self.replica_manager, config_helper, config),
            ClientQuotaApis(request_helper, auth_helper, self.forwarding_manager,
                            self.client_quota_metadata_manager),
            AclApis(request_helper, auth_helper, self.forwarding_manager),
            SaslApis(request_helper, self.forwarding_manager, self.scram_publisher),
        ]
        add_partitions_to_txn_manager = AddPartitionsToTxnManager(  # Produce, TxnOffsetCommit (KIP-890)
            config, self.transaction_coordinator, self.replica_manager, self.txn_marker_send_thread)
        self.group_coordinator.transaction_verifier = add_partitions_to_txn_manager.verify_offsets_partition
        return KafkaApis(request_helper, auth_helper, self.replica_manager, self.metadata_cache,
                         self.fetch_manager, auto_topic_creation_manager, self.forwarding_manager, config,
                         families, group_coordinator=self.group_coordinator,
                         add_partitions_to_txn_manager=add_partitions_to_txn_manager)

    def _start_lifecycle_manager(self, cluster_id: str) -> None:
        """Register with the controller and heartbeat; fenced until caught up with the metadata log."""
        self.lifecycle_manager = BrokerLifecycleManager(
            self.config, self.time, self.controller_channel, cluster_id,
            highest_metadata_offset=lambda: self.metadata_cache.metadata_offset,
            features=BrokerMetadataPublisher.supported_features())
        self.lifecycle_manager.previous_broker_epoch = self.log_manager.previous_broker_epoch  # KIP-966
        self.lifecycle_manager.start([dict(name=e.listener_name, host=e.host, port=e.port,
                                           security_protocol=int(e.security_protocol))
                                      for e in self._advertised_end_points()])

    def _topics_image(self) -> dict:
        """name -> (topic id, partitions): what consumer groups' assignors and regexes read."""
        return {t.name: (t.topic_id, t.num_partitions) for t in self.metadata_cache.all_topics()}

    def _controller_metrics(self) -> dict[str, int]:
        return getattr(getattr(self.controller_server, "controller", None), "metrics_values", dict)()

    def _raft_metrics(self) -> dict[str, object]:
        driver = getattr(self.shared, "raft_driver", None)
        return dict(driver.published.raft_metrics) if driver is not None else {}

    def _await_broker_ready(self) -> None:
        """Kafka's BrokerServer waits for the metadata log and for the controller's unfencing."""
        self._await(self.lifecycle_manager.initial_catch_up_future, "catching up with the metadata log")
        # Kafka's enableRequestProcessing: from catching up on, so a restarted broker knows its SCRAM users
        self.socket_server.enable_request_processing()
        self._await(self.lifecycle_manager.initial_unfenced_future, "being unfenced by the controller")

    def _await(self, future: Future, what: str) -> None:
        waited = 0.0
        while not future.done():
            if self._stop_requested.is_set():
                raise StartupAborted(f"stopped while {what}")
            try:
                future.result(timeout=0.1)
            except TimeoutError:
                waited += 0.1
                if waited >= STARTUP_WAIT_LOG_INTERVAL_S:
                    waited = 0.0
                    log.info(f"still waiting: {what}", leader=self.shared.leader_id(),
                             voters=sorted(self._voter_end_points()))

    def _advertised_end_points(self) -> tuple[EndPoint, ...]:
        """advertised.listeners, with an empty host or port 0 filled in from what was bound."""
        end_points = []
        for e in self.config.advertised_listeners:
            port = e.port or self.socket_server.bound_port(e.listener_name)
            host = e.host if e.host not in ("", "0.0.0.0", "::") else socket.getfqdn()
            end_points.append(EndPoint(e.listener_name, host, port, e.security_protocol))
        return tuple(end_points)

    def bound_port(self, listener_name: str = "PLAINTEXT") -> int:
        if listener_name in self.config.controller_listener_names and self.controller_server is not None:
            return self.controller_server.bound_port()
        return self.socket_server.bound_port(listener_name)

    # ------------------------------------------------------------------ shutdown
    def request_stop(self) -> None:
        """From a signal handler: make a start-up that is still waiting for its quorum give up."""
        self._stop_requested.set()

    # What start-up builds, each None until it has (Kafka's BrokerServer fields): a failed start stops those.
    lifecycle_manager: BrokerLifecycleManager | None = None
    socket_server: SocketServer | None = None
    metrics_endpoint: MetricsEndpoint | None = None
    metadata_publisher: BrokerMetadataPublisher | None = None
    client_quota_metadata_manager: ClientQuotaMetadataManager | None = None
    request_handler_pool: KafkaRequestHandlerPool | None = None
    admin_manager: AdminManager | None = None
    kafka_scheduler: KafkaScheduler | None = None
    transaction_coordinator: TransactionCoordinator | None = None
    txn_marker_send_thread: InterBrokerSendThread | None = None
    group_coordinator: GroupCoordinatorService | None = None
    share_coordinator: ShareCoordinatorService | None = None
    replica_manager: ReplicaManager | None = None
    share_partition_manager: SharePartitionManager | None = None
    persister: DefaultStatePersister | None = None
    persister_timer: SystemTimerReaper | None = None
    alter_partition_channel: NodeToControllerChannelManager | None = None
    forwarding_manager: ForwardingManager | None = None
    controller_channel: NodeToControllerChannelManager | None = None
    log_cleaner: LogCleaner | None = None
    log_manager: LogManager | None = None

    def shutdown(self) -> None:
        """Kafka's KafkaRaftServer.shutdown: the broker first (its controlled shutdown needs the
        controller), then the controller, then what both share: the raft client and the metadata log."""
        with self._shutdown_lock:  # a second Ctrl-C while stopping must not stop twice
            if not self._started or self._shutdown_done.is_set():
                return
            log.info("shutting down")
            self._stop_requested.set()
            self._shutdown_broker()
            if self.controller_server is not None:
                self.controller_server.shutdown()
            if self.shared is not None:
                self.shared.shutdown()
            self._shutdown_done.set()
            log.info("shut down completed")

    def _shutdown_broker(self) -> None:
        """Kafka's BrokerServer.shutdown, step by step in its order."""
        if self.lifecycle_manager is not None:
            self._controlled_shutdown()
        # Stop accepting connections and requests (Kafka's stopProcessingRequests and shutdown, in one step)
        if self.socket_server is not None:
            self.socket_server.shutdown()
        if self.metrics_endpoint is not None:  # /metrics and /requests: our other listener
            self.metrics_endpoint.shutdown()
        self._remove_metadata_publishers()
        if self.request_handler_pool is not None:
            self.request_handler_pool.shutdown()
        if self.admin_manager is not None:  # KafkaApis' own (Kafka's dataPlaneRequestProcessor.close)
            self.admin_manager.shutdown()
        # The scheduler early: its retention, flush and checkpoint tasks must not touch the logs closed below.
        if self.kafka_scheduler is not None:
            self.kafka_scheduler.shutdown()
        if self.transaction_coordinator is not None:
            self.transaction_coordinator.shutdown()
        if self.txn_marker_send_thread is not None:  # Kafka's TransactionCoordinator stops its marker channel
            self.txn_marker_send_thread.shutdown()
        if self.group_coordinator is not None:
            self.group_coordinator.shutdown()
        if self.share_coordinator is not None:
            self.share_coordinator.shutdown()
        if self.replica_manager is not None:
            self.replica_manager.shutdown()
        if self.share_partition_manager is not None:  # then the persister its share partitions write through
            self.share_partition_manager.shutdown()
        if self.persister is not None:
            self.persister.stop()
            self.persister_timer.shutdown()
        if self.alter_partition_channel is not None:
            self.alter_partition_channel.shutdown()
        if self.forwarding_manager is not None:  # answers every forward still waiting on the controller
            self.forwarding_manager.shutdown()
        # the lifecycle manager before controller_channel, which it heartbeats on (Kafka's: last, on its own)
        if self.lifecycle_manager is not None:
            self.lifecycle_manager.close()
        if self.controller_channel is not None:
            self.controller_channel.shutdown()
        if self.log_cleaner is not None:  # Kafka's LogManager.shutdown stops its cleaner first
            self.log_cleaner.shutdown()
        if self.log_manager is not None:  # the epoch this run ends, for the next registration (KIP-966)
            self.log_manager.shutdown(self.lifecycle_manager.broker_epoch if self.lifecycle_manager else -1)

    def _remove_metadata_publishers(self) -> None:
        """Kafka's loader.removeAndClosePublisher for the publishers that feed the broker's components, so
        that no metadata change reaches one being stopped (the raft client runs until the shared server
        stops, last). The ACL and SCRAM publishers feed only in-memory caches: they go with the loader."""
        for publisher in getattr(self, "_broker_publishers", ()):
            if publisher is not None:
                self.shared.loader.remove_and_close_publisher(publisher)

    def _controlled_shutdown(self) -> None:
        """Ask the controller to move our leaderships away first, for at most a session timeout."""
        self.lifecycle_manager.begin_controlled_shutdown()
        try:
            self.lifecycle_manager.controlled_shutdown_future.result(
                timeout=self.config.broker_session_timeout_ms / 1000)
        except TimeoutError:
            log.warning("controlled shutdown did not finish in time; stopping anyway")
