"""BrokerLifecycleManager: a broker's registration with, and heartbeats to, the active controller
(Kafka's kafka.server.BrokerLifecycleManager, KIP-631).

Seed 004's KRaft brokers "passively read" the metadata log; what they tell the controller travels
the other way, in two requests on the control plane:

    BrokerRegistration  once at start-up: my id, an incarnation id new to this process, where my
                        listeners are. The answer is a broker epoch (the offset of my registration
                        record), which names this incarnation in everything that follows.
    BrokerHeartbeat     every broker.heartbeat.interval.ms: my epoch and how far I have read the
                        metadata log. A broker starts FENCED: no partition leadership is given to it
                        until a heartbeat shows it has caught up with the log. A broker whose
                        heartbeats stop for broker.session.timeout.ms is fenced again, and the
                        controller moves its leaderships away.

Both carry the broker's log directories (their directory.id): the registration every one, the
heartbeats, from metadata.version 4.3-IV0, the cordoned ones (KIP-1066, `cordoned.log.dirs`), so that the
controller places no new replica on a broker whose every directory is cordoned.

On SIGTERM the broker asks for a controlled shutdown (want_shut_down): the controller moves
leadership off it first, and answers should_shut_down once that is done, so producers and
consumers lose no time waiting for a session timeout.

States, as in Kafka's BrokerState: STARTING -> RECOVERY (registered, fenced, catching up) ->
RUNNING (unfenced) -> PENDING_CONTROLLED_SHUTDOWN -> SHUTTING_DOWN.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from enum import Enum

import structlog

from kafka.image.metadata_version import is_cordoned_log_dirs_supported
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.exponential_backoff import ExponentialBackoff
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.BrokerLifecycleManager")


class BrokerState(Enum):
    NOT_RUNNING = 0
    STARTING = 1
    RECOVERY = 2
    RUNNING = 3
    PENDING_CONTROLLED_SHUTDOWN = 6
    SHUTTING_DOWN = 7


class BrokerLifecycleManager:
    def __init__(self, config, time: Time, channel, cluster_id: str,
                 highest_metadata_offset: Callable[[], int], features: list[dict]) -> None:
        self.config = config
        self.time = time
        self.channel = channel  # a NodeToControllerChannelManager
        self.cluster_id = cluster_id
        self.highest_metadata_offset = highest_metadata_offset
        self.features = features
        self.node_id = config.node_id
        self.incarnation_id = uuid.uuid4()
        self.previous_broker_epoch = -1  # KIP-966: the epoch the last clean shutdown ended (LogManager's)
        self.log_dirs: list[uuid.UUID] = []  # the log directories' ids, registered
        self.cordoned_log_dirs: list[uuid.UUID] | None = None  # KIP-1066: None until the log manager says
        self.cordoned_log_dirs_supported: Callable[[], bool] = lambda: False  # metadata.version >= 4.3-IV0
        self.state = BrokerState.NOT_RUNNING
        self.broker_epoch = -1
        self.initial_catch_up_future: Future = Future()
        self.initial_unfenced_future: Future = Future()
        self.controlled_shutdown_future: Future = Future()
        self._wake = threading.Event()
        self._in_flight = False
        self._running = False
        self._thread = threading.Thread(target=self._run, name=f"kafka-{self.node_id}-broker-lifecycle",
                                        daemon=True)
        self._failed_attempts = 0  # registrations or heartbeats in a row that got no answer, or an error
        # Kafka's resendExponentialBackoff: 100 ms doubling up to half a session timeout (a broker that
        # waited longer would be fenced the moment its controller came back), 2 % jitter
        self.resend_backoff = ExponentialBackoff(100, 2, config.broker_session_timeout_ms // 2, 0.02)
        self._next_attempt_ms = 0

    def use_log_dirs(self, log_manager, metadata_cache) -> None:
        """What the log directories tell the controller: the epoch the last clean shutdown ended (KIP-966),
        each directory's id, and the cordoned ones (KIP-1066), sent once the finalized metadata.version
        (the metadata cache's) is 4.3-IV0 or later."""
        self.previous_broker_epoch = log_manager.previous_broker_epoch
        self.log_dirs = log_manager.directory_ids()
        self.cordoned_log_dirs = log_manager.cordoned_directory_ids()
        self.cordoned_log_dirs_supported = lambda: is_cordoned_log_dirs_supported(
            metadata_cache.finalized_features.get("metadata.version", 0))

    def propagate_directory_cordoned(self, directory_ids: list[uuid.UUID]) -> None:
        """Kafka's propagateDirectoryCordoned: cordoned.log.dirs changed; the next heartbeat, sent now if
        registered, says so."""
        if not self.cordoned_log_dirs_supported():
            return
        self.cordoned_log_dirs = list(directory_ids)
        if self.broker_epoch >= 0:
            self._next_attempt_ms = 0
            self._wake.set()

    def start(self, listeners: list[dict]) -> None:
        self.listeners = listeners
        self.state = BrokerState.STARTING
        self._running = True
        self._thread.start()

    # ------------------------------------------------------------------ the loop
    def _run(self) -> None:
        interval_s = self.config.broker_heartbeat_interval_ms / 1000
        while self._running:
            if not self._in_flight and self.time.milliseconds() >= self._next_attempt_ms:
                self._in_flight = True
                if self.broker_epoch < 0:
                    self._send_broker_registration()
                else:
                    self._send_broker_heartbeat()
            # A broker that has not caught up yet heartbeats quickly, as Kafka's does, so that it
            # is unfenced as soon as it has read the log rather than one interval later.
            wait = interval_s if self.state == BrokerState.RUNNING else min(interval_s, 0.1)
            self._wake.wait(wait)
            self._wake.clear()

    def _send_broker_registration(self) -> None:
        body = dict(broker_id=self.node_id, cluster_id=self.cluster_id, incarnation_id=self.incarnation_id,
                    listeners=self.listeners, features=self.features, rack=None, is_migrating_zk_broker=False,
                    log_dirs=list(self.log_dirs), previous_broker_epoch=self.previous_broker_epoch)
        self.channel.send_request(ApiKey.BROKER_REGISTRATION, body, self._on_registration,
                                  self.config.controller_quorum_request_timeout_ms * 5)

    def _on_registration(self, response, error: Errors) -> None:
        self._in_flight = False
        if error == Errors.NONE:
            error = Errors.for_code(response.error_code)
        if error != Errors.NONE:
            backoff_ms = self._schedule_after_failure()
            # One line per attempt: with the backoff that is a few lines a minute, never a flood.
            reason = None
            if error == Errors.REQUEST_TIMED_OUT:
                reason = ("no controller answered in time "
                          "(are the controllers of controller.quorum.voters running and reachable?)")
            log.warning("broker registration failed, retrying", error=error.name,
                        attempts=self._failed_attempts, backoff_ms=backoff_ms, reason=reason)
            return
        self._failed_attempts = 0
        self.broker_epoch = response.broker_epoch
        self.state = BrokerState.RECOVERY
        log.info("registered with the controller", broker_epoch=self.broker_epoch,
                 incarnation_id=str(self.incarnation_id))
        self._wake.set()

    def _send_broker_heartbeat(self) -> None:
        body = dict(broker_id=self.node_id, broker_epoch=self.broker_epoch,
                    current_metadata_offset=self.highest_metadata_offset(), want_fence=False,
                    want_shut_down=self.state in (BrokerState.PENDING_CONTROLLED_SHUTDOWN,
                                                  BrokerState.SHUTTING_DOWN),
                    offline_log_dirs=[])
        if self.cordoned_log_dirs is not None and self.cordoned_log_dirs_supported():
            body["cordoned_log_dirs"] = list(self.cordoned_log_dirs)
        self.channel.send_request(ApiKey.BROKER_HEARTBEAT, body, self._on_heartbeat,
                                  self.config.broker_session_timeout_ms)

    def _on_heartbeat(self, response, error: Errors) -> None:
        self._in_flight = False
        if error == Errors.NONE:
            error = Errors.for_code(response.error_code)
        if error in (Errors.STALE_BROKER_EPOCH, Errors.BROKER_ID_NOT_REGISTERED):
            log.warning("the controller does not know this broker epoch any more; registering again",
                        error=error.name, broker_epoch=self.broker_epoch)
            self.broker_epoch = -1
            self._wake.set()
            return
        if error != Errors.NONE:
            backoff_ms = self._schedule_after_failure()
            # The first failure says so; the retries after it only at debug, until one is answered.
            (log.warning if self._failed_attempts == 1 else log.debug)(
                "broker heartbeat failed, retrying", error=error.name, attempts=self._failed_attempts,
                backoff_ms=backoff_ms)
            return
        if self._failed_attempts:
            log.info("broker heartbeats answered again", after_failed_attempts=self._failed_attempts)
            self._failed_attempts = 0
        if response.is_caught_up and not self.initial_catch_up_future.done():
            log.info("caught up with the metadata log", offset=self.highest_metadata_offset())
            self.initial_catch_up_future.set_result(None)
        if self.state == BrokerState.RECOVERY and not response.is_fenced:
            self.state = BrokerState.RUNNING
            log.info("unfenced: the controller may now make this broker a leader")
            if not self.initial_unfenced_future.done():
                self.initial_unfenced_future.set_result(None)
        if self.state == BrokerState.PENDING_CONTROLLED_SHUTDOWN and response.should_shut_down:
            self.state = BrokerState.SHUTTING_DOWN
            log.info("controlled shutdown done: the controller moved this broker's leaderships away")
            if not self.controlled_shutdown_future.done():
                self.controlled_shutdown_future.set_result(None)

    def _schedule_after_failure(self) -> int:
        """Kafka's scheduleNextCommunicationAfterFailure: the next registration or heartbeat after an
        exponential backoff, so an unreachable controller is not asked again every loop."""
        backoff_ms = self.resend_backoff.backoff(self._failed_attempts)
        self._failed_attempts += 1
        self._next_attempt_ms = self.time.milliseconds() + backoff_ms
        return backoff_ms

    # ------------------------------------------------------------------ shutdown
    def begin_controlled_shutdown(self) -> None:
        if self.state in (BrokerState.RECOVERY, BrokerState.RUNNING):
            self.state = BrokerState.PENDING_CONTROLLED_SHUTDOWN
            self._wake.set()
        elif not self.controlled_shutdown_future.done():
            self.controlled_shutdown_future.set_result(None)  # never registered: nothing to move

    def close(self) -> None:
        self._running = False
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
