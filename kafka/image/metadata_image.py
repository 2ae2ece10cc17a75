"""MetadataImage: the whole cluster at one offset of the metadata log (Kafka's image.MetadataImage).

Immutable: a publisher may keep one while the loader builds the next. `write()` turns an image back
into the records that rebuild it, which is what a snapshot of the metadata log holds (KIP-630) and
how a controller that loses leadership resets itself to what is committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka.image.acls_image import AclsImage
from kafka.image.client_quotas_image import ClientQuotasImage
from kafka.image.cluster_image import ClusterImage
from kafka.image.configuration_image import ConfigurationsImage
from kafka.image.features_image import FeaturesImage
from kafka.image.metadata_provenance import EMPTY_PROVENANCE, MetadataProvenance
from kafka.image.metadata_version import register_broker_record_version
from kafka.image.producer_ids_image import ProducerIdsImage
from kafka.image.scram_image import ScramImage
from kafka.image.topics_image import TopicsImage
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record, record_at

T = MetadataRecordType


@dataclass(frozen=True)
class MetadataImage:
    provenance: MetadataProvenance = EMPTY_PROVENANCE
    features: FeaturesImage = field(default_factory=FeaturesImage)
    cluster: ClusterImage = field(default_factory=ClusterImage)
    topics: TopicsImage = field(default_factory=TopicsImage)
    configs: ConfigurationsImage = field(default_factory=ConfigurationsImage)
    producer_ids: ProducerIdsImage = field(default_factory=ProducerIdsImage)
    client_quotas: ClientQuotasImage = field(default_factory=ClientQuotasImage)
    acls: AclsImage = field(default_factory=AclsImage)
    scram: ScramImage = field(default_factory=ScramImage)

    def is_empty(self) -> bool:
        return (not self.features.finalized_versions and not self.cluster.brokers
                and not self.topics.topics_by_id
                and not self.configs.resources and self.producer_ids.is_empty()
                and self.client_quotas.is_empty()
                and self.acls.is_empty() and self.scram.is_empty())

    def write(self) -> list[ApiMessageAndVersion]:
        """The records that rebuild this image from an empty one (Kafka's ImageWriter)."""
        out = [record(T.FEATURE_LEVEL_RECORD, name=name, feature_level=level)
               for name, level in sorted(self.features.finalized_versions.items())]
        register_version = register_broker_record_version(self.features.metadata_version)  # Kafka's
        for broker in sorted(self.cluster.brokers.values(), key=lambda b: b.id):
            out.append(record_at(
                T.REGISTER_BROKER_RECORD, register_version, broker_id=broker.id,
                incarnation_id=broker.incarnation_id,
                broker_epoch=broker.epoch, rack=broker.rack, fenced=broker.fenced,
                in_controlled_shutdown=broker.in_controlled_shutdown,
                end_points=[dict(name=e.name, host=e.host, port=e.port, security_protocol=e.security_protocol)
                            for e in broker.listeners.values()],
                features=[dict(name=n, min_supported_version=lo, max_supported_version=hi)
                          for n, (lo, hi) in sorted(broker.supported_features.items())],
                log_dirs=list(broker.directories),
                cordoned_log_dirs=None if broker.cordoned_directories is None
                else list(broker.cordoned_directories)))
        for controller in sorted(self.cluster.controllers.values(), key=lambda c: c.id):
            out.append(record(
                T.REGISTER_CONTROLLER_RECORD, controller_id=controller.id,
                incarnation_id=controller.incarnation_id,
                end_points=[dict(name=e.name, host=e.host, port=e.port, security_protocol=e.security_protocol)
                            for e in controller.listeners.values()],
                features=[dict(name=n, min_supported_version=lo, max_supported_version=hi)
                          for n, (lo, hi) in sorted(controller.supported_features.items())]))
        for topic in sorted(self.topics.topics_by_id.values(), key=lambda t: t.name):
            out.append(record(T.TOPIC_RECORD, name=topic.name, topic_id=topic.id))
            for index, p in sorted(topic.partitions.items()):
                out.append(record(T.PARTITION_RECORD, partition_id=index, topic_id=topic.id,
                                  replicas=list(p.replicas),
                                  isr=list(p.isr), leader=p.leader, leader_epoch=p.leader_epoch,
                                  partition_epoch=p.partition_epoch,
                                  leader_recovery_state=p.leader_recovery_state,
                                  removing_replicas=list(p.removing_replicas),
                                  adding_replicas=list(p.adding_replicas),
                                  eligible_leader_replicas=list(p.elr) if p.elr else None,
                                  last_known_elr=list(p.last_known_elr) if p.last_known_elr else None))
        for (resource_type, name), configs in sorted(self.configs.resources.items()):
            for key, value in sorted(configs.items()):
                out.append(record(T.CONFIG_RECORD, resource_type=resource_type, resource_name=name, name=key,
                                  value=value))
        out += self.producer_ids.write()
        out += self.client_quotas.write()
        out += self.acls.write()
        out += self.scram.write()
        return out


EMPTY_IMAGE = MetadataImage()
