"""ClusterControlManager: the registered brokers and their fencing
(Kafka's org.apache.kafka.controller.ClusterControlManager).

Seed 004: brokers register with the controller and heartbeat to it. A registration writes a
RegisterBrokerRecord whose broker epoch is the offset it will have in the log, and the broker starts
fenced. It is unfenced (BrokerRegistrationChangeRecord fenced=-1) once a heartbeat shows it has
read the metadata log at least as far as its own registration: only then can it be trusted to know
what it should lead. It is fenced again when its session expires, and marked in controlled shutdown
when it asks to stop.

A registration is refused when it comes from another cluster (INCONSISTENT_CLUSTER_ID), from a
broker that cannot run the finalized metadata.version (UNSUPPORTED_VERSION), or while another
incarnation of the same broker id still serves with a live session (DUPLICATE_BROKER_REGISTRATION:
a broker restarted after a crash waits out its earlier self's session, as in Kafka).

A broker registers its log directories (their directory.id); from metadata.version 4.3-IV0 its heartbeats
say which are cordoned (KIP-1066, `cordoned.log.dirs`), a change written as a BrokerRegistrationChangeRecord.
A broker whose every directory is cordoned is not usable for new replicas (Kafka's usableBrokers asks
hasUncordonedDirs), though it keeps leading what it has. The controllers' own registrations, part of Kafka's
ClusterControlManager too, are kept by ControllerRegistrations (controller_registrations.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kafka.controller.broker_heartbeat_manager import BrokerHeartbeatManager
from kafka.controller.controller_registrations import ControllerRegistrations, Write
from kafka.controller.controller_result import ControllerResult
from kafka.controller.feature_control_manager import FeatureControlManager
from kafka.image.cluster_image import has_uncordoned_dirs
from kafka.image.metadata_version import is_cordoned_log_dirs_supported, register_broker_record_version
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import (
    BROKER_FENCED,
    BROKER_UNFENCED,
    ApiMessageAndVersion,
    MetadataRecordType,
    record,
    record_at,
)

T = MetadataRecordType


class StaleBrokerEpochError(Exception):
    """A request made for a broker incarnation the controller no longer knows (Kafka's
    StaleBrokerEpochException)."""

    error = Errors.STALE_BROKER_EPOCH


@dataclass(frozen=True)
class BrokerInfo:
    broker_id: int
    epoch: int
    incarnation_id: object
    rack: str | None
    fenced: bool
    in_controlled_shutdown: bool
    supported_features: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (min, max)
    directories: tuple = ()  # the log directories' ids
    cordoned_directories: tuple | None = None  # KIP-1066; None until a heartbeat says

    def has_uncordoned_dirs(self) -> bool:
        return has_uncordoned_dirs(self.directories, self.cordoned_directories)


def broker_registration_reply(error: Errors, broker_epoch: int = -1) -> dict:
    """A BrokerRegistrationResponse body."""
    return dict(throttle_time_ms=0, error_code=error, broker_epoch=broker_epoch)


class ClusterControlManager:
    def __init__(self, cluster_id: str, features: FeatureControlManager,
                 heartbeats: BrokerHeartbeatManager, write: Write | None = None) -> None:
        self.cluster_id = cluster_id
        self.features = features
        self.heartbeats = heartbeats  # the active controller's broker sessions
        # Kafka's BrokerShutdownHandler (ReplicationControlManager.handleBrokerShutdown): (broker id,
        # clean) -> the records that take a restarted broker out of ISRs (and ELRs, if unclean)
        self.broker_shutdown_handler = lambda broker_id, clean: []
        self.brokers: dict[int, BrokerInfo] = {}
        features.brokers_supported = self.supported_features  # Kafka's ClusterFeatureSupportDescriber
        # the controllers' registrations (KIP-919; UnregisterController from 4.4-IV2), in a file of their own
        self.controllers = ControllerRegistrations(features, write)

    def reset(self) -> None:
        self.brokers = {}
        self.controllers.reset()

    # ------------------------------------------------------------------ questions
    def usable_brokers(self) -> dict[int, str | None]:
        """Brokers that may be placed on: registered, unfenced, not shutting down, and (KIP-1066) with a log
        directory not cordoned (id -> rack)."""
        return {b.broker_id: b.rack for b in self.brokers.values() if not b.fenced
                and not b.in_controlled_shutdown and b.has_uncordoned_dirs()}

    def is_usable(self, broker_id: int) -> bool:
        b = self.brokers.get(broker_id)
        return b is not None and not b.fenced and not b.in_controlled_shutdown

    def check_broker_epoch(self, broker_id: int, broker_epoch: int) -> None:
        """Refuse a request from an incarnation that is not the registered one (Kafka's checkBrokerEpoch):
        a broker restarted since it sent it, or one that never registered, must not be acted for."""
        b = self.brokers.get(broker_id)
        if b is None:
            raise StaleBrokerEpochError(f"no broker registration found for broker id {broker_id}")
        if b.epoch != broker_epoch:
            raise StaleBrokerEpochError(f"expected broker epoch {b.epoch}, but got broker epoch "
                                        f"{broker_epoch}")

    def supported_features(self) -> dict[int, dict[str, tuple[int, int]]]:
        """Each registered broker's supported feature ranges: UpdateFeatures asks every broker can run a
        new level."""
        return {b.broker_id: b.supported_features for b in self.brokers.values()}

    def counts(self) -> tuple[int, int]:
        """(unfenced, fenced)."""
        fenced = sum(1 for b in self.brokers.values() if b.fenced)
        return len(self.brokers) - fenced, fenced

    # ------------------------------------------------------------------ BrokerRegistration
    def register_broker(self, request, broker_epoch: int, now: int) -> ControllerResult:
        """A broker registers (Kafka's registerBroker): its RegisterBrokerRecord, whose broker epoch is
        the offset that record will have in the log, or the refusal; a registration starts a session."""
        if request.cluster_id != self.cluster_id:
            return ControllerResult([], broker_registration_reply(Errors.INCONSISTENT_CLUSTER_ID))
        if not self.features.supports(request.features):
            return ControllerResult([], broker_registration_reply(Errors.UNSUPPORTED_VERSION))
        if self._held_by_another_live_incarnation(request, now):
            return ControllerResult([], broker_registration_reply(Errors.DUPLICATE_BROKER_REGISTRATION))
        records = [self.register_broker_record(request, broker_epoch)]
        existing = self.brokers.get(request.broker_id)
        if existing is None or existing.incarnation_id != request.incarnation_id:
            # A new process: clean if it ended the registered incarnation's epoch (KIP-966)
            clean = existing is not None and existing.epoch == request.get("previous_broker_epoch", -1)
            records += self.broker_shutdown_handler(request.broker_id, clean)
        self.heartbeats.touch(request.broker_id, now)
        return ControllerResult(records, broker_registration_reply(Errors.NONE, broker_epoch))

    def _held_by_another_live_incarnation(self, request, now: int) -> bool:
        """Does another process already serve as this broker (not fenced, not shutting down, its
        session alive)?"""
        existing = self.brokers.get(request.broker_id)
        if existing is None or existing.incarnation_id == request.incarnation_id:
            return False
        serving = not existing.fenced and not existing.in_controlled_shutdown
        return serving and self.heartbeats.has_valid_session(request.broker_id, now)

    # ------------------------------------------------------------------ records to write
    def register_broker_record(self, request, broker_epoch: int) -> ApiMessageAndVersion:
        return record_at(T.REGISTER_BROKER_RECORD,
                         register_broker_record_version(self.features.metadata_version),
                         broker_id=request.broker_id,
                      incarnation_id=request.incarnation_id,
                      broker_epoch=broker_epoch, rack=request.get("rack"), fenced=True,
                      end_points=[dict(name=listener.name, host=listener.host, port=listener.port,
                                       security_protocol=listener.security_protocol)
                                  for listener in request.listeners],
                      features=[dict(name=f.name, min_supported_version=f.min_supported_version,
                                     max_supported_version=f.max_supported_version)
                                     for f in request.features],
                      log_dirs=list(request.get("log_dirs") or []))

    def handle_directories_cordoned(self, request) -> list[ApiMessageAndVersion]:
        """A heartbeat's cordoned log directories (Kafka's handleDirectoriesCordoned, asked from 4.3-IV0):
        a BrokerRegistrationChangeRecord (version 3) when they differ from the registration's."""
        cordoned = request.get("cordoned_log_dirs")
        if cordoned is None or not is_cordoned_log_dirs_supported(self.features.metadata_version):
            return []
        b = self.brokers[request.broker_id]
        if b.cordoned_directories is not None and set(b.cordoned_directories) == set(cordoned):
            return []
        return [record_at(T.BROKER_REGISTRATION_CHANGE_RECORD, 3, broker_id=b.broker_id, broker_epoch=b.epoch,
                          cordoned_log_dirs=list(cordoned))]

    def fence_record(self, broker_id: int) -> ApiMessageAndVersion:
        b = self.brokers[broker_id]
        return record_at(T.BROKER_REGISTRATION_CHANGE_RECORD, 0, broker_id=broker_id, broker_epoch=b.epoch,
                         fenced=BROKER_FENCED)  # version 0, as Kafka's handleBrokerFenced

    def unfence_record(self, broker_id: int) -> ApiMessageAndVersion:
        b = self.brokers[broker_id]
        return record_at(T.BROKER_REGISTRATION_CHANGE_RECORD, 0, broker_id=broker_id, broker_epoch=b.epoch,
                         fenced=BROKER_UNFENCED)  # version 0, as Kafka's handleBrokerUnfenced

    def controlled_shutdown_record(self, broker_id: int) -> ApiMessageAndVersion:
        b = self.brokers[broker_id]
        return record(T.BROKER_REGISTRATION_CHANGE_RECORD, broker_id=broker_id, broker_epoch=b.epoch,
                      in_controlled_shutdown=1)

    # ------------------------------------------------------------------ replay
    def replay_register_broker(self, r) -> None:
        self.brokers[r.broker_id] = BrokerInfo(r.broker_id, r.broker_epoch, r.incarnation_id, r.rack,
                                               r.fenced, r.get("in_controlled_shutdown", False),
                                               {f["name"]: (f["min_supported_version"],
                                                            f["max_supported_version"])
                                                for f in r.get("features") or []},
                                               tuple(r.get("log_dirs") or ()),
                                               None if r.get("cordoned_log_dirs") is None
                                               else tuple(r.cordoned_log_dirs))

    def replay_unregister_broker(self, r) -> None:
        self.brokers.pop(r.broker_id, None)

    def replay_registration_change(self, r) -> None:
        b = self.brokers.get(r.broker_id)
        if b is None or b.epoch != r.broker_epoch:
            return
        if r.fenced == BROKER_FENCED:
            b = replace(b, fenced=True)
        elif r.fenced == BROKER_UNFENCED:
            b = replace(b, fenced=False)
        if r.get("in_controlled_shutdown", 0) == 1:
            b = replace(b, in_controlled_shutdown=True)
        if r.get("cordoned_log_dirs") is not None:
            b = replace(b, cordoned_directories=tuple(r.cordoned_log_dirs))
        self.brokers[r.broker_id] = b
