"""The records of the KRaft metadata log (Kafka's metadata/src/main/resources/common/metadata/*.json and
MetadataRecordSerde).

Seed 004: in KRaft "the metadata is stored as a log of events". Each event is one of these records,
written by the active controller and replayed by every controller and broker into a MetadataImage:

    RegisterBrokerRecord   a broker (one incarnation of it) registered; its epoch is this record's offset
    TopicRecord            a topic exists, with its id
    PartitionRecord        a partition's replicas, ISR, ELR (KIP-966), leader, leader epoch
    PartitionChangeRecord  what changed for a partition (a new leader, ISR or ELR); -2 = "leader unchanged"
    ConfigRecord           a topic or broker config was set (or removed: value None)
    BrokerRegistrationChangeRecord  a broker was fenced, unfenced, or began a controlled shutdown
    RemoveTopicRecord      a topic was deleted
    FeatureLevelRecord     metadata.version (what the cluster speaks)
    ClientQuotaRecord      a quota of a user, client id or IP was set (or removed: remove=True)
    ProducerIdsRecord      a block of producer ids went to a broker; the next block starts at next_producer_id
    AccessControlEntryRecord        an ACL was created, with its id (kafka/protocol/acl.py for the codes)
    RemoveAccessControlEntryRecord  the ACL with that id was deleted
    NoOpRecord             nothing: the active controller's heartbeat in the log
    UserScramCredentialRecord        a user's SCRAM salt, StoredKey, ServerKey, iterations for one mechanism
    RemoveUserScramCredentialRecord  that credential was deleted
    RegisterControllerRecord    a controller (one incarnation) registered: where it listens, what it runs
    UnregisterControllerRecord  a controller's registration was removed (metadata.version 4.4-IV2)

Each is described once, as a Schema with Kafka's field names, and framed as Kafka frames them: an
unsigned varint frame version (1), the record's type (its apiKey), its version, then the body as a
flexible message. The raft layer stores these bytes as record values and never looks inside.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from kafka.protocol.schema import Array, Field, Record, Schema
from kafka.protocol.types import (
    Boolean,
    ByteReader,
    Bytes,
    Float64,
    Int8,
    Int16,
    Int32,
    Int64,
    String,
    UInt16,
    UnsignedVarInt,
    Uuid,
)


class MetadataRecordType(IntEnum):
    REGISTER_BROKER_RECORD = 0
    UNREGISTER_BROKER_RECORD = 1
    TOPIC_RECORD = 2
    PARTITION_RECORD = 3
    CONFIG_RECORD = 4
    PARTITION_CHANGE_RECORD = 5
    FENCE_BROKER_RECORD = 7
    UNFENCE_BROKER_RECORD = 8
    REMOVE_TOPIC_RECORD = 9
    USER_SCRAM_CREDENTIAL_RECORD = 11
    FEATURE_LEVEL_RECORD = 12
    CLIENT_QUOTA_RECORD = 14
    PRODUCER_IDS_RECORD = 15
    BROKER_REGISTRATION_CHANGE_RECORD = 17
    ACCESS_CONTROL_ENTRY_RECORD = 18
    REMOVE_ACCESS_CONTROL_ENTRY_RECORD = 19
    NO_OP_RECORD = 20
    REMOVE_USER_SCRAM_CREDENTIAL_RECORD = 22
    REGISTER_CONTROLLER_RECORD = 27
    UNREGISTER_CONTROLLER_RECORD = 29


NO_LEADER = -1
NO_LEADER_CHANGE = -2  # PartitionChangeRecord.leader: keep the current leader
TOPIC_RESOURCE, BROKER_RESOURCE, GROUP_RESOURCE = 2, 4, 32  # ConfigRecord.resource_type (ConfigResource.Type)
FRAME_VERSION = 1

_ENDPOINT = Schema("BrokerEndpoint", Field("name", String, "0+"), Field("host", String, "0+"),
                   Field("port", UInt16, "0+"), Field("security_protocol", Int16, "0+", default=0))
_FEATURE = Schema("BrokerFeature", Field("name", String, "0+"), Field("min_supported_version", Int16, "0+"),
                  Field("max_supported_version", Int16, "0+"))
# ClientQuotaRecord.entity: user, client-id or ip, with a null name for the default entity
_QUOTA_ENTITY = Schema("EntityData", Field("entity_type", String, "0+"),
                       Field("entity_name", String, "0+", nullable_versions="0+", default=None))

SCHEMAS: dict[MetadataRecordType, tuple[Schema, int]] = {
    MetadataRecordType.REGISTER_BROKER_RECORD: (Schema(
        "RegisterBrokerRecord",
        Field("broker_id", Int32, "0+"),
        Field("is_migrating_zk_broker", Boolean, "2+", default=False),
        Field("incarnation_id", Uuid, "0+"),
        Field("broker_epoch", Int64, "0+"),
        Field("end_points", Array(_ENDPOINT), "0+", default=[]),
        Field("features", Array(_FEATURE), "0+", default=[]),
        Field("rack", String, "0+", nullable_versions="0+", default=None),
        Field("fenced", Boolean, "0+", default=True),
        Field("in_controlled_shutdown", Boolean, "1+", default=False),
        # the broker's log directories (meta.properties directory.id), and (KIP-1066) the cordoned ones: null
        # until the broker's first heartbeat says
        Field("log_dirs", Array(Uuid), "3+", default=[], tagged_versions="3+", tag=0),
        Field("cordoned_log_dirs", Array(Uuid), "4+", nullable_versions="4+", default=None,
              tagged_versions="4+", tag=1),
    ), 1),  # versions 0-4: the controller writes the one its metadata.version names (record_at)
    MetadataRecordType.UNREGISTER_BROKER_RECORD: (Schema(
        "UnregisterBrokerRecord", Field("broker_id", Int32, "0+"), Field("broker_epoch", Int64, "0+"),
    ), 0),
    MetadataRecordType.TOPIC_RECORD: (Schema(
        "TopicRecord", Field("name", String, "0+"), Field("topic_id", Uuid, "0+"),
    ), 0),
    MetadataRecordType.PARTITION_RECORD: (Schema(
        "PartitionRecord",
        Field("partition_id", Int32, "0+"),
        Field("topic_id", Uuid, "0+"),
        Field("replicas", Array(Int32), "0+"),
        Field("isr", Array(Int32), "0+"),
        Field("removing_replicas", Array(Int32), "0+", default=[]),
        Field("adding_replicas", Array(Int32), "0+", default=[]),
        Field("leader", Int32, "0+", default=NO_LEADER),
        Field("leader_recovery_state", Int8, "0+", default=0, tagged_versions="0+", tag=0),  # 1: recovering
        Field("leader_epoch", Int32, "0+", default=0),
        Field("partition_epoch", Int32, "0+", default=0),
        # KIP-858: each replica's log directory; empty (ours: no directory assignment), which Kafka reads as
        # "migrating", every replica's directory unknown
        Field("directories", Array(Uuid), "1+", default=[]),
        # KIP-966: the replicas out of the ISR that still have every committed record (tagged, as Kafka's)
        Field("eligible_leader_replicas", Array(Int32), "2+", nullable_versions="2+", default=None,
              tagged_versions="2+", tag=1),
        Field("last_known_elr", Array(Int32), "2+", nullable_versions="2+", default=None,
              tagged_versions="2+", tag=2),
    ), 2),  # versions 0-2: Kafka writes 2 from metadata.version 4.0-IV1 (partitionRecordVersion)
    MetadataRecordType.CONFIG_RECORD: (Schema(
        "ConfigRecord",
        Field("resource_type", Int8, "0+"),
        Field("resource_name", String, "0+"),
        Field("name", String, "0+"),
        Field("value", String, "0+", nullable_versions="0+", default=None),
    ), 0),
    MetadataRecordType.PARTITION_CHANGE_RECORD: (Schema(
        "PartitionChangeRecord",
        Field("partition_id", Int32, "0+"),
        Field("topic_id", Uuid, "0+"),
        # every change is a tagged field, as Kafka's: what did not change (null, -2, -1) is left out
        Field("isr", Array(Int32), "0+", nullable_versions="0+", default=None, tagged_versions="0+", tag=0),
        Field("leader", Int32, "0+", default=NO_LEADER_CHANGE, tagged_versions="0+", tag=1),
        Field("replicas", Array(Int32), "0+", nullable_versions="0+", default=None,
              tagged_versions="0+", tag=2),
        Field("removing_replicas", Array(Int32), "0+", nullable_versions="0+", default=None,
              tagged_versions="0+", tag=3),
        Field("adding_replicas", Array(Int32), "0+", nullable_versions="0+", default=None,
              tagged_versions="0+", tag=4),
        Field("leader_recovery_state", Int8, "0+", default=-1, tagged_versions="0+", tag=5),
        Field("directories", Array(Uuid), "1+", nullable_versions="1+", default=None,
              tagged_versions="1+", tag=8),  # KIP-858; we never assign directories, so never write it
        Field("eligible_leader_replicas", Array(Int32), "2+", nullable_versions="2+", default=None,
              tagged_versions="2+", tag=6),
        Field("last_known_elr", Array(Int32), "2+", nullable_versions="2+", default=None,
              tagged_versions="2+", tag=7),
    ), 2),  # versions 0-2: Kafka writes 2 from metadata.version 4.0-IV1 (partitionChangeRecordVersion)
    MetadataRecordType.FENCE_BROKER_RECORD: (Schema(
        "FenceBrokerRecord", Field("id", Int32, "0+"), Field("epoch", Int64, "0+"),
    ), 0),
    MetadataRecordType.UNFENCE_BROKER_RECORD: (Schema(
        "UnfenceBrokerRecord", Field("id", Int32, "0+"), Field("epoch", Int64, "0+"),
    ), 0),
    MetadataRecordType.REMOVE_TOPIC_RECORD: (Schema(
        "RemoveTopicRecord", Field("topic_id", Uuid, "0+"),
    ), 0),
    MetadataRecordType.FEATURE_LEVEL_RECORD: (Schema(
        "FeatureLevelRecord", Field("name", String, "0+"), Field("feature_level", Int16, "0+"),
    ), 0),
    MetadataRecordType.CLIENT_QUOTA_RECORD: (Schema(
        "ClientQuotaRecord",
        Field("entity", Array(_QUOTA_ENTITY), "0+"),
        Field("key", String, "0+"),
        Field("value", Float64, "0+", default=0.0),
        Field("remove", Boolean, "0+", default=False),
    ), 0),
    MetadataRecordType.PRODUCER_IDS_RECORD: (Schema(
        "ProducerIdsRecord", Field("broker_id", Int32, "0+"), Field("broker_epoch", Int64, "0+"),
        Field("next_producer_id", Int64, "0+"),
    ), 0),
    MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD: (Schema(
        "BrokerRegistrationChangeRecord",
        Field("broker_id", Int32, "0+"),
        Field("broker_epoch", Int64, "0+"),
        # both tagged, as Kafka's: 0 (unchanged) is left out of the record
        Field("fenced", Int8, "0+", default=0, tagged_versions="0+", tag=0),  # 1: fence, -1: unfence
        Field("in_controlled_shutdown", Int8, "1+", default=0, tagged_versions="1+", tag=1),  # 1: stopping
        Field("log_dirs", Array(Uuid), "2+", default=[], tagged_versions="2+", tag=2),
        # KIP-1066: the cordoned log directories now, or null: no change
        Field("cordoned_log_dirs", Array(Uuid), "3+", nullable_versions="3+", default=None,
              tagged_versions="3+", tag=3),
    ), 1),  # versions 0-3: 0 to fence or unfence, 1 for a shutdown, 3 for cordoned directories, as Kafka
    MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD: (Schema(
        "AccessControlEntryRecord",
        Field("id", Uuid, "0+"),
        Field("resource_type", Int8, "0+"),
        Field("resource_name", String, "0+"),
        Field("pattern_type", Int8, "0+"),
        Field("principal", String, "0+"),
        Field("host", String, "0+"),
        Field("operation", Int8, "0+"),
        Field("permission_type", Int8, "0+"),
    ), 0),
    MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD: (Schema(
        "RemoveAccessControlEntryRecord", Field("id", Uuid, "0+"),
    ), 0),
    MetadataRecordType.NO_OP_RECORD: (Schema("NoOpRecord"), 0),
    # SCRAM (KIP-554): a user's credential for one mechanism, keys only, never the password
    MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD: (Schema(
        "UserScramCredentialRecord",
        Field("name", String, "0+"),
        Field("mechanism", Int8, "0+"),
        Field("salt", Bytes, "0+"),
        Field("stored_key", Bytes, "0+"),
        Field("server_key", Bytes, "0+"),
        Field("iterations", Int32, "0+"),
    ), 0),
    MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD: (Schema(
        "RemoveUserScramCredentialRecord", Field("name", String, "0+"), Field("mechanism", Int8, "0+"),
    ), 0),
    # KIP-919: the controllers register too (ControllerRegistration), and from 4.4-IV2 can be unregistered
    MetadataRecordType.REGISTER_CONTROLLER_RECORD: (Schema(
        "RegisterControllerRecord",
        Field("controller_id", Int32, "0+"),
        Field("incarnation_id", Uuid, "0+"),
        Field("zk_migration_ready", Boolean, "0+", default=False),
        Field("end_points", Array(Schema("ControllerEndpoint", Field("name", String, "0+"),
                                         Field("host", String, "0+"), Field("port", UInt16, "0+"),
                                         Field("security_protocol", Int16, "0+"))), "0+", default=[]),
        Field("features", Array(Schema("ControllerFeature", Field("name", String, "0+"),
                                       Field("min_supported_version", Int16, "0+"),
                                       Field("max_supported_version", Int16, "0+"))), "0+", default=[]),
    ), 0),
    MetadataRecordType.UNREGISTER_CONTROLLER_RECORD: (Schema(
        "UnregisterControllerRecord", Field("controller_id", Int32, "0+"),
    ), 0),
}

BROKER_FENCED, BROKER_UNFENCED = 1, -1  # BrokerRegistrationChangeRecord.fenced


@dataclass(frozen=True)
class ApiMessageAndVersion:
    """One metadata record and the version it is written at (Kafka's ApiMessageAndVersion)."""

    type: MetadataRecordType
    version: int
    data: Record

    def __repr__(self) -> str:
        return f"{SCHEMAS[self.type][0].name}(v{self.version}) {self.data.to_dict()}"


def record(type: MetadataRecordType, **fields: Any) -> ApiMessageAndVersion:
    """A record at its latest version; fields not given take their defaults."""
    schema, version = SCHEMAS[type]
    return ApiMessageAndVersion(type, version, schema.new(**fields))


def record_at(type: MetadataRecordType, version: int, **fields: Any) -> ApiMessageAndVersion:
    """A record at the version the finalized metadata.version writes it at (Kafka's
    MetadataVersion.registerBrokerRecordVersion and kin): the fields of later versions are left out."""
    schema, _ = SCHEMAS[type]
    return ApiMessageAndVersion(type, version, schema.new(**fields))


def serialize(message: ApiMessageAndVersion) -> bytes:
    schema, _ = SCHEMAS[message.type]
    out = bytearray()
    UnsignedVarInt.write(out, FRAME_VERSION)
    UnsignedVarInt.write(out, int(message.type))
    UnsignedVarInt.write(out, message.version)
    schema.write(out, message.data, message.version, True)
    return bytes(out)


def deserialize(data: bytes | memoryview) -> ApiMessageAndVersion:
    reader = ByteReader(data)
    frame = UnsignedVarInt.read(reader)
    if frame != FRAME_VERSION:
        raise ValueError(f"unknown metadata record frame version {frame}")
    type_ = MetadataRecordType(UnsignedVarInt.read(reader))
    version = UnsignedVarInt.read(reader)
    schema, _ = SCHEMAS[type_]
    return ApiMessageAndVersion(type_, version, schema.read(reader, version, True))
