"""ControllerRegistrations: the controllers' registrations in the metadata log, and their removal (the
controller half of Kafka's org.apache.kafka.controller.ClusterControlManager: registerController,
unregisterController and its controllerRegistrations; KIP-919).

A controller registers as a broker does, though it gets no epoch: ControllerRegistration carries its id,
its incarnation, where it listens and which feature levels it can run, and the active controller writes
a RegisterControllerRecord (from metadata.version 3.7-IV0). A controller removed from the voter set
(`kafka-metadata-quorum remove-controller`) stays registered; from 4.4-IV2 an UnregisterController
removes the registration with an UnregisterControllerRecord (`remove-controller --unregister`):

    below 4.4-IV2       UNSUPPORTED_VERSION "The current MetadataVersion is too old to support
                        controller unregistration."
    not registered      CONTROLLER_ID_NOT_REGISTERED "Controller ID N is not currently registered."

ClusterControlManager holds it; QuorumController gives it its write path (a callback: decide on the
controller thread, answer once committed) and replays the two records into it, as into every manager.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

from kafka.controller.controller_result import ControllerResult
from kafka.image.cluster_image import ControllerRegistration, Endpoint
from kafka.image.metadata_version import is_controller_unregistration_supported
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record

T = MetadataRecordType
IBP_3_7_IV0 = 15  # Kafka's isControllerRegistrationSupported
TOO_OLD_TO_REGISTER = "The current MetadataVersion is too old to support controller registrations."
TOO_OLD_TO_UNREGISTER = "The current MetadataVersion is too old to support controller unregistration."

# QuorumController._write: (name, operation returning a ControllerResult, the answer if not active) -> Future
Write = Callable[[str, Callable[[], ControllerResult], dict], Future]


def _reply(error: Errors = Errors.NONE, message: str | None = None) -> dict:
    """A ControllerRegistrationResponse or UnregisterControllerResponse body: the two have one shape."""
    return dict(throttle_time_ms=0, error_code=error, error_message=message)


class ControllerRegistrations:
    def __init__(self, features, write: Write | None) -> None:
        self.features = features  # the FeatureControlManager: the finalized metadata.version
        self.write = write
        self.registrations: dict[int, ControllerRegistration] = {}

    def reset(self) -> None:
        self.registrations = {}

    # ------------------------------------------------------------------ requests
    def register_controller(self, request) -> Future:
        return self.write("register_controller", lambda: self.register_controller_result(request),
                          _reply(Errors.NOT_CONTROLLER))

    def unregister_controller(self, request) -> Future:
        return self.write("unregister_controller",
                          lambda: self.unregister_controller_result(request.controller_id),
                          _reply(Errors.NOT_CONTROLLER))

    # ------------------------------------------------------------------ decisions
    def register_controller_result(self, request) -> ControllerResult:
        """Kafka's registerController: a RegisterControllerRecord, from 3.7-IV0."""
        if self.features.metadata_version < IBP_3_7_IV0:
            return ControllerResult([], _reply(Errors.UNSUPPORTED_VERSION, TOO_OLD_TO_REGISTER))
        return ControllerResult([record(
            T.REGISTER_CONTROLLER_RECORD, controller_id=request.controller_id,
            incarnation_id=request.incarnation_id, zk_migration_ready=False,
            end_points=[dict(name=e.name, host=e.host, port=e.port, security_protocol=e.security_protocol)
                        for e in request.listeners],
            features=[dict(name=f.name, min_supported_version=f.min_supported_version,
                           max_supported_version=f.max_supported_version) for f in request.features])],
            _reply())

    def unregister_controller_result(self, controller_id: int) -> ControllerResult:
        """Kafka's unregisterController: an UnregisterControllerRecord, from 4.4-IV2, for a controller that
        is registered."""
        if not is_controller_unregistration_supported(self.features.metadata_version):
            return ControllerResult([], _reply(Errors.UNSUPPORTED_VERSION, TOO_OLD_TO_UNREGISTER))
        if controller_id not in self.registrations:
            return ControllerResult([], _reply(Errors.CONTROLLER_ID_NOT_REGISTERED,
                                               f"Controller ID {controller_id} is not currently registered."))
        return ControllerResult([record(T.UNREGISTER_CONTROLLER_RECORD, controller_id=controller_id)],
                                _reply())

    # ------------------------------------------------------------------ replay
    def replayers(self) -> dict:
        return {T.REGISTER_CONTROLLER_RECORD: self.replay_register,
                T.UNREGISTER_CONTROLLER_RECORD: self.replay_unregister}

    def replay_register(self, r) -> None:
        self.registrations[r.controller_id] = ControllerRegistration(
            r.controller_id, r.incarnation_id,
            {e["name"]: Endpoint(e["name"], e["host"], e["port"], e["security_protocol"])
             for e in r.end_points},
            {f["name"]: (f["min_supported_version"], f["max_supported_version"]) for f in r.features})

    def replay_unregister(self, r) -> None:
        self.registrations.pop(r.controller_id, None)
