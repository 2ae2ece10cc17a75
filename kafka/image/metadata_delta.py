"""MetadataDelta: records replayed on top of an image, giving the next image (Kafka's image.MetadataDelta).

`replay(record)` for each committed record, then `apply(provenance)`. A delta also says what kind of thing
changed (`topics_delta`, `cluster_delta`, `configs_delta`, `features_delta`, `producer_ids_delta`,
`client_quotas_delta`, `acls_delta`, `scram_delta`; None when nothing of that kind did), so a publisher skips
the work a NoOpRecord does not call for.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace

from kafka.image.acls_delta import AclsDelta
from kafka.image.client_quotas_image import ClientQuotasImage, quota_entity
from kafka.image.cluster_image import BrokerRegistration, ClusterImage, ControllerRegistration, Endpoint
from kafka.image.configuration_image import ConfigurationsImage
from kafka.image.features_image import FeaturesImage
from kafka.image.metadata_image import MetadataImage
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.image.producer_ids_image import ProducerIdsImage
from kafka.image.scram_image import ScramCredentialData, ScramImage
from kafka.image.topics_image import PartitionRegistration, TopicImage, TopicsImage
from kafka.protocol.metadata_records import (
    BROKER_FENCED,
    BROKER_UNFENCED,
    TOPIC_RESOURCE,
    ApiMessageAndVersion,
    MetadataRecordType,
)

T = MetadataRecordType


@dataclass
class TopicsDelta:
    """Which topics were created, changed or deleted by the records of one delta."""
    image: TopicsImage
    changed_topics: dict[uuid.UUID, TopicImage] = field(default_factory=dict)
    created_topic_ids: set[uuid.UUID] = field(default_factory=set)
    deleted_topic_ids: set[uuid.UUID] = field(default_factory=set)


class MetadataDelta:
    def __init__(self, image: MetadataImage) -> None:
        self.image = image
        self.features = dict(image.features.finalized_versions)
        self.brokers = dict(image.cluster.brokers)
        self.controllers = dict(image.cluster.controllers)
        self.topics_by_id = dict(image.topics.topics_by_id)
        self.configs = {k: dict(v) for k, v in image.configs.resources.items()}
        self.features_delta: set[str] | None = None
        self.cluster_delta: set[int] | None = None
        self.topics_delta: TopicsDelta | None = None
        self.configs_delta: set[tuple[int, str]] | None = None
        self.producer_ids_delta: int | None = None  # the new next_producer_id (Kafka's ProducerIdsDelta)
        self.client_quotas = {k: dict(v) for k, v in image.client_quotas.entities.items()}
        self.client_quotas_delta: set | None = None  # the entities whose quotas changed (ClientQuotasDelta)
        self.acls_delta: AclsDelta | None = None
        self.scram = {k: dict(v) for k, v in image.scram.mechanisms.items()}
        self.scram_delta: set[tuple[int, str]] | None = None  # (mechanism, user) changed (ScramDelta)

    # ------------------------------------------------------------------ replay
    def replay(self, message: ApiMessageAndVersion) -> None:
        handler = _HANDLERS.get(message.type)
        if handler is not None:
            handler(self, message.data)

    def _touch_topics(self) -> TopicsDelta:
        if self.topics_delta is None:
            self.topics_delta = TopicsDelta(self.image.topics)
        return self.topics_delta

    def _replay_feature_level(self, r) -> None:
        if r.feature_level == 0:  # level 0: the feature is no longer finalized (Kafka's FeaturesDelta)
            self.features.pop(r.name, None)
        else:
            self.features[r.name] = r.feature_level
        self.features_delta = (self.features_delta or set()) | {r.name}

    def _replay_register_broker(self, r) -> None:
        self.brokers[r.broker_id] = BrokerRegistration(
            id=r.broker_id, epoch=r.broker_epoch, incarnation_id=r.incarnation_id,
            listeners={e["name"]: Endpoint(e["name"], e["host"], e["port"], e["security_protocol"])
                       for e in r.end_points},
            supported_features={f["name"]: (f["min_supported_version"], f["max_supported_version"])
                                for f in r.features},
            rack=r.rack, fenced=r.fenced, in_controlled_shutdown=r.get("in_controlled_shutdown", False),
            directories=tuple(r.get("log_dirs") or ()), cordoned_directories=_optional_tuple(
                r.get("cordoned_log_dirs")))
        self.cluster_delta = (self.cluster_delta or set()) | {r.broker_id}

    def _replay_register_controller(self, r) -> None:
        self.controllers[r.controller_id] = ControllerRegistration(
            r.controller_id, r.incarnation_id,
            {e["name"]: Endpoint(e["name"], e["host"], e["port"], e["security_protocol"])
             for e in r.end_points},
            {f["name"]: (f["min_supported_version"], f["max_supported_version"]) for f in r.features})

    def _replay_unregister_controller(self, r) -> None:
        self.controllers.pop(r.controller_id, None)

    def _replay_unregister_broker(self, r) -> None:
        self.brokers.pop(r.broker_id, None)
        self.cluster_delta = (self.cluster_delta or set()) | {r.broker_id}

    def _change_broker(self, broker_id: int, epoch: int, **changes) -> None:
        broker = self.brokers.get(broker_id)
        if broker is None or broker.epoch != epoch:
            return  # a change for an incarnation that is gone
        self.brokers[broker_id] = replace(broker, **changes)
        self.cluster_delta = (self.cluster_delta or set()) | {broker_id}

    def _replay_fence_broker(self, r) -> None:
        self._change_broker(r.id, r.epoch, fenced=True)

    def _replay_unfence_broker(self, r) -> None:
        self._change_broker(r.id, r.epoch, fenced=False)

    def _replay_broker_registration_change(self, r) -> None:
        changes = {}
        if r.fenced == BROKER_FENCED:
            changes["fenced"] = True
        elif r.fenced == BROKER_UNFENCED:
            changes["fenced"] = False
        if r.get("in_controlled_shutdown", 0) == 1:
            changes["in_controlled_shutdown"] = True
        if r.get("cordoned_log_dirs") is not None:  # KIP-1066: null is no change
            changes["cordoned_directories"] = tuple(r.cordoned_log_dirs)
        self._change_broker(r.broker_id, r.broker_epoch, **changes)

    def _replay_topic(self, r) -> None:
        topic = TopicImage(r.name, r.topic_id, {})
        self.topics_by_id[r.topic_id] = topic
        delta = self._touch_topics()
        delta.changed_topics[r.topic_id] = topic
        delta.created_topic_ids.add(r.topic_id)

    def _set_partition(self, topic_id: uuid.UUID, index: int, partition: PartitionRegistration) -> None:
        topic = self.topics_by_id[topic_id]
        topic = replace(topic, partitions={**topic.partitions, index: partition})
        self.topics_by_id[topic_id] = topic
        self._touch_topics().changed_topics[topic_id] = topic

    def _replay_partition(self, r) -> None:
        if r.topic_id in self.topics_by_id:
            self._set_partition(r.topic_id, r.partition_id, PartitionRegistration.from_record(r))

    def _replay_partition_change(self, r) -> None:
        topic = self.topics_by_id.get(r.topic_id)
        if topic is not None and r.partition_id in topic.partitions:
            self._set_partition(r.topic_id, r.partition_id, topic.partitions[r.partition_id].merge(r))

    def _replay_remove_topic(self, r) -> None:
        topic = self.topics_by_id.pop(r.topic_id, None)
        if topic is None:
            return
        delta = self._touch_topics()
        delta.changed_topics.pop(r.topic_id, None)
        if r.topic_id in delta.created_topic_ids:
            delta.created_topic_ids.discard(r.topic_id)
        else:
            delta.deleted_topic_ids.add(r.topic_id)
        if self.configs.pop((TOPIC_RESOURCE, topic.name), None) is not None:  # Kafka drops its configs too
            self.configs_delta = (self.configs_delta or set()) | {(TOPIC_RESOURCE, topic.name)}

    def _replay_config(self, r) -> None:
        key = (r.resource_type, r.resource_name)
        configs = self.configs.setdefault(key, {})
        if r.value is None:
            configs.pop(r.name, None)
        else:
            configs[r.name] = r.value
        if not configs:
            del self.configs[key]
        self.configs_delta = (self.configs_delta or set()) | {key}

    def _replay_client_quota(self, r) -> None:
        entity = quota_entity((e["entity_type"], e["entity_name"]) for e in r.entity)
        values = self.client_quotas.setdefault(entity, {})
        if r.remove:
            values.pop(r.key, None)
        else:
            values[r.key] = r.value
        if not values:
            del self.client_quotas[entity]
        self.client_quotas_delta = (self.client_quotas_delta or set()) | {entity}

    def _touch_acls(self) -> AclsDelta:
        if self.acls_delta is None:
            self.acls_delta = AclsDelta(self.image.acls)
        return self.acls_delta

    def _replay_access_control_entry(self, r) -> None:
        self._touch_acls().replay_access_control_entry(r)

    def _replay_remove_access_control_entry(self, r) -> None:
        self._touch_acls().replay_remove_access_control_entry(r)

    def _replay_user_scram_credential(self, r) -> None:
        self.scram.setdefault(r.mechanism, {})[r.name] = ScramCredentialData(
            bytes(r.salt), bytes(r.stored_key), bytes(r.server_key), r.iterations)
        self.scram_delta = (self.scram_delta or set()) | {(r.mechanism, r.name)}

    def _replay_remove_user_scram_credential(self, r) -> None:
        self.scram.get(r.mechanism, {}).pop(r.name, None)
        self.scram_delta = (self.scram_delta or set()) | {(r.mechanism, r.name)}

    def _replay_producer_ids(self, r) -> None:
        self.producer_ids_delta = r.next_producer_id

    # ------------------------------------------------------------------ the next image
    def apply(self, provenance: MetadataProvenance) -> MetadataImage:
        topics = TopicsImage(dict(self.topics_by_id), {t.name: t for t in self.topics_by_id.values()})
        producer_ids = self.image.producer_ids if self.producer_ids_delta is None \
            else ProducerIdsImage(self.producer_ids_delta)
        client_quotas = self.image.client_quotas if self.client_quotas_delta is None \
            else ClientQuotasImage({k: dict(v) for k, v in self.client_quotas.items()})
        acls = self.image.acls if self.acls_delta is None else self.acls_delta.apply()
        scram = self.image.scram if self.scram_delta is None \
            else ScramImage({k: dict(v) for k, v in self.scram.items() if v})
        return MetadataImage(provenance, FeaturesImage(dict(self.features)), ClusterImage(dict(self.brokers),
                                                                                       dict(self.controllers)),
                             topics, ConfigurationsImage({k: dict(v) for k, v in self.configs.items()}),
                             producer_ids,
                             client_quotas, acls, scram)


_HANDLERS = {
    T.FEATURE_LEVEL_RECORD: MetadataDelta._replay_feature_level,
    T.REGISTER_BROKER_RECORD: MetadataDelta._replay_register_broker,
    T.UNREGISTER_BROKER_RECORD: MetadataDelta._replay_unregister_broker,
    T.FENCE_BROKER_RECORD: MetadataDelta._replay_fence_broker,
    T.UNFENCE_BROKER_RECORD: MetadataDelta._replay_unfence_broker,
    T.BROKER_REGISTRATION_CHANGE_RECORD: MetadataDelta._replay_broker_registration_change,
    T.REGISTER_CONTROLLER_RECORD: MetadataDelta._replay_register_controller,
    T.UNREGISTER_CONTROLLER_RECORD: MetadataDelta._replay_unregister_controller,
    T.TOPIC_RECORD: MetadataDelta._replay_topic,
    T.PARTITION_RECORD: MetadataDelta._replay_partition,
    T.PARTITION_CHANGE_RECORD: MetadataDelta._replay_partition_change,
    T.REMOVE_TOPIC_RECORD: MetadataDelta._replay_remove_topic,
    T.CONFIG_RECORD: MetadataDelta._replay_config,
    T.PRODUCER_IDS_RECORD: MetadataDelta._replay_producer_ids,
    T.CLIENT_QUOTA_RECORD: MetadataDelta._replay_client_quota,
    T.ACCESS_CONTROL_ENTRY_RECORD: MetadataDelta._replay_access_control_entry,
    T.REMOVE_ACCESS_CONTROL_ENTRY_RECORD: MetadataDelta._replay_remove_access_control_entry,
    T.USER_SCRAM_CREDENTIAL_RECORD: MetadataDelta._replay_user_scram_credential,
    T.REMOVE_USER_SCRAM_CREDENTIAL_RECORD: MetadataDelta._replay_remove_user_scram_credential,
    # NoOpRecord changes nothing in the image.
}


def _optional_tuple(values) -> tuple | None:
    return None if values is None else tuple(values)
