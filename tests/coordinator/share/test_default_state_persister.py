"""The DefaultStatePersister over the wire: its PersisterStateManager sends through a real
InterBrokerSendThread (NetworkClient, loopback socket) to a broker side that serves the share-group state
RPCs with the real ShareCoordinatorApis and ShareCoordinatorService (share_state_broker.py): how it finds
the share coordinator (the metadata cache, or FindCoordinator with key type SHARE), what it sends, and how
it retries a coordinator that is missing, moving or loading, with short backoffs. The wiring into
KafkaServer (the broker's own FindCoordinator for key type 2, __share_group_state's creation) is not
here: that is the lead's, after merging."""

from __future__ import annotations

import uuid

import pytest

from kafka.coordinator.share.share_partition_key import SHARE_GROUP_STATE_TOPIC_NAME, SharePartitionKey
from kafka.network.end_point import EndPoint
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.security.security_protocol import SecurityProtocol
from kafka.server.inter_broker_send_thread import InterBrokerSendThread
from kafka.server.metadata_cache import Broker, MetadataCache, PartitionState, TopicMetadata
from kafka.server.share.persister.default_state_persister import DefaultStatePersister
from kafka.server.share.persister.persister import PartitionStateKey, PersisterStateBatch
from kafka.server.share.persister.persister_state_manager import PersisterStateManager
from kafka.server.share.persister.share_coordinator_metadata_cache_helper import (
    ShareCoordinatorMetadataCacheHelperImpl,
)
from kafka.utils.time import SYSTEM
from kafka.utils.timer.system_timer import SystemTimer
from kafka.utils.timer.system_timer_reaper import SystemTimerReaper
from tests.coordinator.share.share_coordinator_harness import TOPIC_ID, ShareCoordinator
from tests.coordinator.share.share_state_broker import NODE_ID, ShareStateBroker

pytestmark = pytest.mark.fast

KEY = PartitionStateKey("g", TOPIC_ID, 0)
TIMEOUT_S = 15


class Persisting:
    """A broker's persister, aimed at `broker` through a metadata cache that knows it."""

    def __init__(self, broker: ShareStateBroker, max_attempts: int = 5, cache_knows_coordinator: bool = False,
                 port: int | None = None) -> None:
        self.metadata_cache = MetadataCache("cluster", Broker(2, ()))
        end_point = EndPoint("PLAINTEXT", broker.host, port or broker.port, SecurityProtocol.PLAINTEXT)
        topics = {}
        if cache_knows_coordinator:
            leader = PartitionState(0, NODE_ID, 0, (NODE_ID,), (NODE_ID,))
            topics[SHARE_GROUP_STATE_TOPIC_NAME] = TopicMetadata(SHARE_GROUP_STATE_TOPIC_NAME, uuid.uuid4(),
                                                                 1,
                                                                 partitions=(leader,))
        self.metadata_cache.set_snapshot(topics, {NODE_ID: Broker(NODE_ID, (end_point,))}, 1)
        self.channel = InterBrokerSendThread("persister-test", 2, 2000, SYSTEM)
        self.timer = SystemTimerReaper("persister-test-reaper", SystemTimer("persister-test", time=SYSTEM))
        helper = ShareCoordinatorMetadataCacheHelperImpl(self.metadata_cache,
                                                         lambda key: key.partition_for(1),
                                                         "PLAINTEXT")
        self.manager = PersisterStateManager(self.channel, helper, SYSTEM, self.timer, backoff_ms=10,
                                             backoff_max_ms=40, max_attempts=max_attempts)
        self.persister = DefaultStatePersister(self.manager)
        self.manager.start()

    def stop(self) -> None:
        self.persister.stop()
        self.timer.shutdown()


@pytest.fixture
def coordinator(replica_manager, time):
    c = ShareCoordinator(replica_manager, time, load_now=False)
    yield c
    c.shutdown()


@pytest.fixture
def broker(coordinator):
    b = ShareStateBroker(coordinator.service).start()
    yield b
    b.stop()


@pytest.fixture
def persisting(broker):
    p = Persisting(broker)
    yield p
    p.stop()


def loaded(coordinator: ShareCoordinator):
    coordinator.loader_executor.run_all()
    return coordinator


def test_the_five_calls_round_trip_through_the_share_coordinator(coordinator, broker, persisting):
    loaded(coordinator)
    persister = persisting.persister
    assert persister.initialize_state(KEY, 1, 10).result(TIMEOUT_S) == Errors.NONE
    batches = [PersisterStateBatch(10, 14, 2, 1), PersisterStateBatch(15, 19, 0, 2)]
    assert persister.write_state(KEY, 1, 0, 10, batches).result(TIMEOUT_S) == Errors.NONE
    read = persister.read_state(KEY, 3).result(TIMEOUT_S)
    assert (read.error_code, read.state_epoch, read.start_offset, read.state_batches) == (Errors.NONE, 1, 10,
                                                                                          batches)
    summary = persister.read_summary(KEY, 3).result(TIMEOUT_S)
    assert (summary.error_code, summary.state_epoch, summary.start_offset, summary.leader_epoch) == (
        Errors.NONE, 1, 10, 3)
    assert persister.delete_state(KEY).result(TIMEOUT_S) == Errors.NONE
    assert persister.read_summary(KEY, 3).result(TIMEOUT_S).start_offset == -1
    # the coordinator was found by FindCoordinator, key type SHARE, with the share partition's key
    [find, *_] = broker.served(ApiKey.FIND_COORDINATOR)
    key = SharePartitionKey("g", TOPIC_ID, 0).as_coordinator_key()
    assert (find.key_type, list(find.coordinator_keys)) == (2, [key])
    [write] = broker.served(ApiKey.WRITE_SHARE_GROUP_STATE)
    assert write.group_id == "g" and write.topics[0].partitions[0].start_offset == 10


def test_the_coordinators_refusal_is_the_answer(coordinator, broker, persisting):
    loaded(coordinator)
    persister = persisting.persister
    assert persister.initialize_state(KEY, 2, 0).result(TIMEOUT_S) == Errors.NONE
    assert persister.write_state(KEY, 1, 0, 0, []).result(TIMEOUT_S) == Errors.FENCED_STATE_EPOCH
    read = persister.read_state(PartitionStateKey("g", TOPIC_ID, 1), 0).result(TIMEOUT_S)
    assert read.error_code == Errors.INVALID_REQUEST and "uninitialized" in read.error_message
    assert len(broker.served(ApiKey.WRITE_SHARE_GROUP_STATE)) == 1  # not retried


def test_a_loading_coordinator_is_retried_until_it_answers(coordinator, broker, persisting):
    broker.after.append(lambda: loaded(coordinator))  # the load finishes once the first try is refused
    assert persisting.persister.initialize_state(KEY, 0, 5).result(TIMEOUT_S) == Errors.NONE
    assert len(broker.served(ApiKey.INITIALIZE_SHARE_GROUP_STATE)) == 2
    # the coordinator is looked up again before a retry
    assert len(broker.served(ApiKey.FIND_COORDINATOR)) == 2


def test_find_coordinator_is_retried_while_the_state_topic_is_created(coordinator, broker, persisting):
    loaded(coordinator)
    broker.find_coordinator_errors.extend([Errors.COORDINATOR_NOT_AVAILABLE,
                                           Errors.UNKNOWN_TOPIC_OR_PARTITION])
    assert persisting.persister.initialize_state(KEY, 0, 5).result(TIMEOUT_S) == Errors.NONE
    assert len(broker.served(ApiKey.FIND_COORDINATOR)) == 3


def test_retries_end_after_the_last_attempt(coordinator, broker):
    p = Persisting(broker, max_attempts=3)
    try:
        broker.find_coordinator_errors.extend([Errors.COORDINATOR_NOT_AVAILABLE] * 10)
        summary = p.persister.read_summary(KEY, 0).result(TIMEOUT_S)
        assert summary.error_code == Errors.COORDINATOR_NOT_AVAILABLE
        assert "Exhausted max retries" in summary.error_message
        assert len(broker.served(ApiKey.FIND_COORDINATOR)) == 3
    finally:
        p.stop()


def test_the_metadata_cache_names_the_coordinator_without_find_coordinator(coordinator, broker):
    loaded(coordinator)
    p = Persisting(broker, cache_knows_coordinator=True)
    try:
        assert p.persister.initialize_state(KEY, 0, 0).result(TIMEOUT_S) == Errors.NONE
        assert broker.served(ApiKey.FIND_COORDINATOR) == []
    finally:
        p.stop()


def test_a_broker_nobody_listens_on_fails_after_the_retries(coordinator, broker):
    p = Persisting(broker, max_attempts=2, cache_knows_coordinator=True, port=_closed_port())
    try:
        result = p.persister.write_state(KEY, 0, 0, 0, []).result(TIMEOUT_S)
        assert result == Errors.NETWORK_EXCEPTION
    finally:
        p.stop()


def test_a_call_without_a_group_id_is_refused_before_anything_is_sent(broker, persisting):
    assert persisting.persister.delete_state(PartitionStateKey("", TOPIC_ID, 0)).result(TIMEOUT_S) == \
        Errors.INVALID_REQUEST
    assert broker.requests == []


def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_persister_as_the_broker_builds_it(coordinator, broker):
    """DefaultStatePersister.instance: Kafka's backoffs, the send thread started and stopped with it."""
    loaded(coordinator)
    p = Persisting(broker, cache_knows_coordinator=True)
    persister = DefaultStatePersister.instance(InterBrokerSendThread("persister", 2, 2000, SYSTEM),
                                               p.manager.cache_helper, SYSTEM, p.timer)
    try:
        assert persister.initialize_state(KEY, 0, 0).result(TIMEOUT_S) == Errors.NONE
        assert persister.state_manager.backoff_ms == 1000 and persister.state_manager.max_attempts == 5
    finally:
        persister.stop()
        p.stop()
    assert not persister.state_manager.channel.is_alive()
