"""What the handler-family tests (tests/server/test_*_apis.py) build instead of a broker.

A family (StorageApis, GroupApis, AdminApis, ...) is built as KafkaServer builds it, with the
collaborators it uses, all real: a LogManager and ReplicaManager on a temporary directory and a
mock clock, a MetadataCache that the BrokerMetadataPublisher fills from a real MetadataImage (the
records the controller would have committed, replayed through a MetadataDelta), a RequestChannel,
and the RequestHandlerHelper and AuthHelper every family answers and authorises through.

A request goes in as a client sends it (an encoded frame), through ApiRequestHandler.handle (the
body decoded, the family's handler called, an AuthorizationError answered), and its response
comes out of the RequestChannel as the Processor would take it: encoded bytes, decoded here to be
checked. No socket, no thread of the broker's, no broker.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from kafka.coordinator.common.runtime.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka.coordinator.common.runtime.coordinator_partition_writer import CoordinatorPartitionWriter
from kafka.coordinator.common.runtime.coordinator_runtime import CoordinatorRuntime
from kafka.coordinator.common.runtime.coordinator_runtime_metrics import CoordinatorRuntimeMetrics
from kafka.coordinator.common.runtime.direct_event_processor import DirectEventProcessor
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.coordinator.group.group_coordinator_record_serde import GroupCoordinatorRecordSerde
from kafka.coordinator.group.group_coordinator_service import GroupCoordinatorService
from kafka.coordinator.group.group_coordinator_shard import GroupCoordinatorShard
from kafka.coordinator.transaction.producer_id_manager import RPCProducerIdManager
from kafka.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafka.coordinator.transaction.transaction_marker_channel_manager import (
    MarkerDestination,
    TransactionMarkerChannelManager,
)
from kafka.coordinator.transaction.transaction_state_manager import TransactionConfig, TransactionStateManager
from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.log.log_config import LogConfig
from kafka.log.log_manager import LogManager
from kafka.metadata.authorizer.standard_authorizer import StandardAuthorizer
from kafka.network.end_point import EndPoint
from kafka.network.request_channel import Request, RequestChannel, Response
from kafka.protocol.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafka.protocol.api_keys import APIS
from kafka.protocol.errors import Errors
from kafka.protocol.header import decode_response, encode_request, parse_request_header
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record
from kafka.protocol.schema import Record
from kafka.purgatory.delayed_operation_purgatory import DelayedOperationPurgatory
from kafka.security.kafka_principal import ANONYMOUS, KafkaPrincipal
from kafka.server.admin_manager import AdminManager
from kafka.server.api_request_handler import ApiRequestHandler
from kafka.server.auth_helper import AuthHelper
from kafka.server.forwarding_manager import ForwardingManager
from kafka.server.kafka_config import KafkaConfig
from kafka.server.metadata.acl_publisher import AclPublisher
from kafka.server.metadata.broker_metadata_publisher import BrokerMetadataPublisher
from kafka.server.metadata_cache import Broker, MetadataCache
from kafka.server.node_to_controller_channel_manager import NodeToControllerChannelManager
from kafka.server.quota.quota_factory import QuotaManagers
from kafka.server.replica_manager import ReplicaManager
from kafka.server.request_handler_helper import RequestHandlerHelper
from kafka.utils.kafka_scheduler import KafkaScheduler
from kafka.utils.time import MockTime
from kafka.utils.timer.system_timer import SystemTimer
from tests.coordinator.runtime.runtime_fixture import QueuedExecutor

T = MetadataRecordType
NODE_ID = 1
LISTENER = "PLAINTEXT"
HOST, PORT = "127.0.0.1", 9092
CLUSTER_ID = "handler-test-cluster"
CONTROLLER_ID = 3000


def wire_bytes(response: Response) -> bytes:
    """What the Processor writes: the buffer, with the bytes of any file slice (a fetch's records) in
    place."""
    payload = response.payload
    parts = payload.parts() if hasattr(payload, "parts") else [memoryview(payload)]
    return b"".join(bytes(p) if isinstance(p, memoryview) else p.read_chunk(0, len(p)) for p in parts)


class ProcessorSide:
    """The network thread's end of the RequestChannel: keeps each response the handlers put there."""

    id = 0

    def __init__(self) -> None:
        self.responses: list[Response] = []

    def enqueue_response(self, response: Response, wake: bool = True) -> None:
        self.responses.append(response)

    def wakeup(self) -> None:
        pass


class IoThread(ApiRequestHandler):
    """The I/O thread's view of one or more families: their tables behind ApiRequestHandler.handle."""

    def __init__(self, request_helper: RequestHandlerHelper, *families) -> None:
        self.request_helper = request_helper
        self.handlers = {}
        for family in families:
            self.handlers.update(family.handlers())


def broker_registration(node_id: int = NODE_ID, port: int = PORT) -> ApiMessageAndVersion:
    return record(T.REGISTER_BROKER_RECORD, broker_id=node_id, incarnation_id=uuid.UUID(int=node_id),
                  broker_epoch=1,
                  end_points=[dict(name=LISTENER, host=HOST, port=port, security_protocol=0)], fenced=False)


def topic_records(name: str, partitions: int, leader: int = NODE_ID, leader_epoch: int = 0,
                  topic_id: uuid.UUID | None = None) -> list[ApiMessageAndVersion]:
    """A topic as the controller creates it: its TopicRecord, then one PartitionRecord a partition."""
    topic_id = topic_id or uuid.uuid5(uuid.NAMESPACE_OID, name)
    return [record(T.TOPIC_RECORD, name=name, topic_id=topic_id),
            *(record(T.PARTITION_RECORD, partition_id=p, topic_id=topic_id, replicas=[leader], isr=[leader],
                     leader=leader, leader_epoch=leader_epoch) for p in range(partitions))]


def allow(principal: KafkaPrincipal, operation: AclOperation, resource_type: ResourceType, name: str) -> dict:
    """An ACL as an AccessControlEntryRecord carries it: ALLOW, a LITERAL name, any host."""
    return dict(resource_type=resource_type, resource_name=name, pattern_type=PatternType.LITERAL,
                principal=str(principal), host="*", operation=operation,
                permission_type=AclPermissionType.ALLOW)


class BrokerParts:
    """One broker's collaborators of the request handlers, built without the broker."""

    def __init__(self, data_dir: Path, overrides: dict[str, str] | None = None) -> None:
        self.time = MockTime()
        self.config = KafkaConfig({"node.id": str(NODE_ID), "log.dirs": str(data_dir), **(overrides or {})})
        self.log_manager = LogManager([str(data_dir)], LogConfig(), self.time, node_id=NODE_ID)
        self.log_manager.startup()
        self.metadata_cache = MetadataCache(CLUSTER_ID, Broker(NODE_ID, (EndPoint(LISTENER, HOST, PORT),)))
        self.replica_manager = ReplicaManager(
            self.config, self.log_manager, self.metadata_cache, self.time,
            produce_purgatory=DelayedOperationPurgatory("Produce", reaper_enabled=False, time=self.time),
            fetch_purgatory=DelayedOperationPurgatory("Fetch", reaper_enabled=False, time=self.time))
        self.publishers: list = []  # the BrokerMetadataPublisher first (install_publisher), then others
        self.image = EMPTY_IMAGE
        self.request_channel = RequestChannel(queue_size=16)
        self.processor = ProcessorSide()
        self.request_channel.add_processor(self.processor)
        self.quotas = QuotaManagers.instantiate(self.config, self.time)
        self.request_helper = RequestHandlerHelper(self.request_channel, self.quotas, self.time)
        self.auth_helper = AuthHelper(None)
        # the control plane as a broker sees it before the controller answers: the channel is built
        # and never started, so each forward waits in it until controller_gone() answers them all
        self.controller_channel = NodeToControllerChannelManager(
            NODE_ID, {CONTROLLER_ID: (HOST, 1)}, lambda: CONTROLLER_ID, request_timeout_ms=30_000,
            retry_backoff_ms=100, time=self.time)
        self.forwarding_manager = ForwardingManager(self.controller_channel, KafkaScheduler(self.time))
        self.admin_manager = AdminManager(self.config, self.metadata_cache, self.forwarding_manager,
                                          LogConfig(),
                                          self.time)
        self._correlation_id = 0

    # ------------------------------------------------------------------ the metadata log
    def install_publisher(self, group_coordinator: GroupCoordinatorService | None = None) -> None:
        """The BrokerMetadataPublisher, telling the group coordinator which offsets partitions it leads."""
        self.publishers.insert(0,
                               BrokerMetadataPublisher(self.config, self.metadata_cache, self.replica_manager,
                                                       self.log_manager, group_coordinator, LogConfig()))

    def publish(self, *records: ApiMessageAndVersion) -> None:
        """Commit these records: the next image, applied by the publishers as the MetadataLoader would."""
        if not self.publishers:
            self.install_publisher()
        delta = MetadataDelta(self.image)
        for r in records:
            delta.replay(r)
        offset = self.image.provenance.last_contained_offset + len(records)
        self.image = delta.apply(MetadataProvenance(offset, 1, self.time.milliseconds()))
        for publisher in self.publishers:
            publisher.on_metadata_update(delta, self.image)

    def with_authorizer(self, *acls: dict) -> AuthHelper:
        """A StandardAuthorizer fed these ACLs by the metadata log (AccessControlEntryRecords)."""
        authorizer = StandardAuthorizer()
        self.publishers.append(AclPublisher(NODE_ID, authorizer))
        self.publish(*(record(T.ACCESS_CONTROL_ENTRY_RECORD, **{"id": uuid.uuid4(), **acl}) for acl in acls))
        self.auth_helper = AuthHelper(authorizer)
        return self.auth_helper

    # ------------------------------------------------------------------ coordinators
    def group_coordinator(self) -> tuple[GroupCoordinatorService, SystemTimer]:
        """The GroupCoordinatorService on Kafka 4's runtime, as KafkaServer builds it, except that its
        events run on the calling thread (DirectEventProcessor) and its timer fires when the test
        says (timer.advance_clock): every answer is there, or not yet, when the request returns."""
        config = GroupCoordinatorConfig.from_kafka_config(self.config)
        timer = SystemTimer("group-coordinator", time=self.time)
        serde = GroupCoordinatorRecordSerde()

        def topics() -> dict:  # what KafkaServer._topics_image gives the assignors
            return {t.name: (t.topic_id, t.num_partitions) for t in self.metadata_cache.all_topics()}

        runtime = CoordinatorRuntime(
            log_prefix="handler-test", time=self.time, timer=timer, processor=DirectEventProcessor(),
            partition_writer=CoordinatorPartitionWriter(self.replica_manager),
            loader=CoordinatorLoaderImpl(self.replica_manager.read_partition_log, serde, self.time,
                                         executor=QueuedExecutor(immediate=True)),
            coordinator_shard_builder=GroupCoordinatorShard.builder(config, topics, lambda ms: None),
            serde=serde, metrics=CoordinatorRuntimeMetrics(self.time),
            default_write_timeout_ms=config.offset_commit_timeout_ms)
        service = GroupCoordinatorService(config, runtime, self.time)
        service.startup()
        return service, timer

    def transaction_coordinator(self) -> TransactionCoordinator:
        """The TransactionCoordinator over a TransactionStateManager on our ReplicaManager. Two of its
        edges stand for other nodes: the controller's AllocateProducerIds answers a block at once, and
        the WriteTxnMarkers it would send stay in `marker_requests` (its sender thread is never started)."""
        self.marker_requests: list = []

        def allocate_producer_ids(body, callback) -> None:
            callback(Record(error_code=Errors.NONE, producer_id_start=1000, producer_id_len=1000),
                     Errors.NONE)

        producer_ids = RPCProducerIdManager(NODE_ID, self.time, lambda: 1, allocate_producer_ids)
        state_manager = TransactionStateManager(NODE_ID, TransactionConfig.from_kafka_config(self.config),
                                                self.replica_manager, self.time)
        markers = TransactionMarkerChannelManager(
            NODE_ID, state_manager, lambda tp: MarkerDestination(NODE_ID, HOST, PORT),
            lambda destination, body, callback: self.marker_requests.append(body), self.time)
        coordinator = TransactionCoordinator(producer_ids, state_manager, markers, time=self.time,
                                             group_partition_for=lambda group_id: 0)
        coordinator.is_active.set()
        return coordinator

    # ------------------------------------------------------------------ a request in, its response out
    def request(self, api_key: int, version: int, body: dict,
                principal: KafkaPrincipal = ANONYMOUS) -> Request:
        """A request as the Processor hands it over: its frame read, its header parsed, its body not yet."""
        self._correlation_id += 1
        frame = memoryview(encode_request(APIS[api_key], version, self._correlation_id, "handler-test",
                                          body)[4:])
        request = Request(ProcessorSide.id, "conn-1", LISTENER, HOST, parse_request_header(frame), frame,
                          principal=principal)
        request.request_dequeue_time_ns = request.start_time_ns
        return request

    def send(self, io_thread: IoThread, api_key: int, version: int, body: dict,
             principal: KafkaPrincipal = ANONYMOUS) -> Request:
        request = self.request(api_key, version, body, principal)
        io_thread.handle(request)
        return request

    def response(self, request: Request) -> Record:
        """The request's response, decoded from the bytes the Processor would write."""
        (response,) = [r for r in self.processor.responses if r.request is request]
        assert response.payload is not None, "no bytes: closed or a no-op"
        header = request.header
        correlation_id, body = decode_response(APIS[header.api_key], header.api_version,
                                               wire_bytes(response)[4:])
        assert correlation_id == header.correlation_id
        return body

    def answered(self, request: Request) -> bool:
        return any(r.request is request for r in self.processor.responses)

    def call(self, io_thread: IoThread, api_key: int, version: int, body: dict,
             principal: KafkaPrincipal = ANONYMOUS) -> Record:
        """Send one request and return its response, which must have been answered on the I/O thread."""
        return self.response(self.send(io_thread, api_key, version, body, principal))

    def controller_gone(self) -> None:
        """The broker stops before the controller answered: every forward waiting is answered
        BROKER_NOT_AVAILABLE, on this thread (the one stopping the broker)."""
        self.controller_channel.shutdown()

    def close(self, *also: Callable[[], None]) -> None:
        for stop in also:
            stop()
        self.controller_gone()
        self.admin_manager.shutdown()
        self.replica_manager.shutdown()
        self.log_manager.shutdown()
