"""Controller registration (KIP-919) and, from metadata.version 4.4-IV2, unregistration on a
QuorumController over real records: a RegisterControllerRecord that the standby and the MetadataImage
replay (and a snapshot of the image rebuilds), UnregisterController refused below 4.4-IV2 and for a
controller that is not registered with Kafka's codes and words, and accepted with an
UnregisterControllerRecord from it."""

from __future__ import annotations

import uuid

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, deserialize
from tests.controller.metadata_version_cluster import ClusterAt
from tests.controller.test_acl_control_manager import image_of
from tests.controller.test_quorum_controller import record

BELOW, AT = 32, 33  # 4.4-IV1, 4.4-IV2


def register(cluster, controller_id: int) -> dict:
    request = record(controller_id=controller_id, incarnation_id=uuid.uuid4(), zk_migration_ready=False,
                     listeners=[record(name="CONTROLLER", host="127.0.0.1", port=9093 + controller_id,
                                       security_protocol=0)],
                     features=[record(name="metadata.version", min_supported_version=7,
                                      max_supported_version=33)])
    return cluster.call(cluster.active.cluster.controllers.register_controller(request))


def unregister(cluster, controller_id: int) -> tuple:
    response = cluster.call(cluster.active.cluster.controllers.unregister_controller(
        record(controller_id=controller_id)))
    return response["error_code"], response["error_message"]


def test_a_registered_controller_is_in_the_image_and_survives_a_snapshot():
    cluster = ClusterAt(AT)
    assert register(cluster, 3)["error_code"] == Errors.NONE
    image = image_of(cluster)
    registration = image.cluster.controllers[3]
    assert registration.listeners["CONTROLLER"].port == 9096
    assert registration.supported_features == {"metadata.version": (7, 33)}
    assert set(cluster.standby.cluster.controllers.registrations) == {3}
    rebuilt = MetadataDelta(EMPTY_IMAGE)
    for r in image.write():
        rebuilt.replay(r)
    assert rebuilt.apply(image.provenance).cluster.controllers == image.cluster.controllers


def test_unregistration_needs_4_4_iv2():
    cluster = ClusterAt(BELOW)
    register(cluster, 3)
    assert unregister(cluster, 3) == (Errors.UNSUPPORTED_VERSION,
                                      "The current MetadataVersion is too old to support controller "
                                      "unregistration.")
    assert 3 in image_of(cluster).cluster.controllers


def test_from_4_4_iv2_a_registered_controller_is_unregistered_and_an_unknown_one_refused():
    cluster = ClusterAt(AT)
    register(cluster, 3)
    assert unregister(cluster, 3) == (Errors.NONE, None)
    written = [r.type for r in map(deserialize, cluster.raft.entries[:cluster.raft.committed])]
    assert written[-1] == MetadataRecordType.UNREGISTER_CONTROLLER_RECORD
    assert image_of(cluster).cluster.controllers == {}
    assert cluster.standby.cluster.controllers.registrations == {}
    assert unregister(cluster, 3) == (Errors.CONTROLLER_ID_NOT_REGISTERED,
                                      "Controller ID 3 is not currently registered.")
