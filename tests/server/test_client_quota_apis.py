"""ClientQuotaApis without a broker: DescribeClientQuotas answers from the quotas of the metadata
image this broker applied (a real ClientQuotaMetadataManager, fed ClientQuotaRecords); an
AlterClientQuotas is the controller's to decide, forwarded and answered when its outcome comes;
a principal without ALTER_CONFIGS on the cluster is refused before anything is forwarded."""

from __future__ import annotations

import pytest

from kafka.protocol.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.security.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka.server.client_quota_apis import ClientQuotaApis
from kafka.server.metadata.client_quota_metadata_manager import ClientQuotaMetadataManager
from tests.server.handler_harness import BrokerParts, IoThread, allow, broker_registration

ALICE = KafkaPrincipal(USER_TYPE, "alice")
EXACT = 0  # DescribeClientQuotas' match_type


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.quota_manager = ClientQuotaMetadataManager(parts.quotas)
    parts.install_publisher()
    parts.publishers.append(parts.quota_manager)
    parts.publish(broker_registration(),
                  record(MetadataRecordType.CLIENT_QUOTA_RECORD, key="producer_byte_rate",
                         value=1024.0,
                         entity=[dict(entity_type="user", entity_name="alice")]))
    yield parts
    parts.close()


def client_quota_apis(parts: BrokerParts) -> IoThread:
    family = ClientQuotaApis(parts.request_helper, parts.auth_helper, parts.forwarding_manager,
                             parts.quota_manager)
    return IoThread(parts.request_helper, family)


def alter_alice(rate: float) -> dict:
    return dict(validate_only=False, entries=[dict(entity=[dict(entity_type="user", entity_name="alice")],
                                                   ops=[dict(key="producer_byte_rate", value=rate,
                                                             remove=False)])])


def test_describe_client_quotas_reads_the_image(parts):
    response = parts.call(client_quota_apis(parts), ApiKey.DESCRIBE_CLIENT_QUOTAS, 1, dict(
        components=[dict(entity_type="user", match_type=EXACT, match="alice")], strict=False))
    assert response.error_code == Errors.NONE
    assert [([(e.entity_type, e.entity_name) for e in entry.entity], [(v.key, v.value) for v in entry.values])
            for entry in response.entries] == [([("user", "alice")], [("producer_byte_rate", 1024.0)])]


def test_alter_client_quotas_is_forwarded_and_answered_when_the_controller_is_gone(parts):
    request = parts.send(client_quota_apis(parts), ApiKey.ALTER_CLIENT_QUOTAS, 1, alter_alice(2048.0))
    assert not parts.answered(request)

    parts.controller_gone()

    (entry,) = parts.response(request).entries
    assert (entry.error_code, entry.error_message) == (Errors.BROKER_NOT_AVAILABLE,
                                                       "the active controller did not answer")


def test_alter_client_quotas_needs_alter_configs_on_the_cluster(parts):
    parts.with_authorizer(allow(ALICE, AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME))

    response = parts.call(client_quota_apis(parts), ApiKey.ALTER_CLIENT_QUOTAS, 1, alter_alice(1.0),
                          principal=ALICE)

    assert [e.error_code for e in response.entries] == [Errors.CLUSTER_AUTHORIZATION_FAILED]
    assert parts.forwarding_manager.pending_count == 0, "nothing forwarded"
