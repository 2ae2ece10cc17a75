"""SaslApis without a broker: a SaslHandshake that reaches the request handlers comes after the
connection's authentication (or on a listener without one) and is answered ILLEGAL_SASL_STATE, as
Kafka answers it; DescribeUserScramCredentials answers from the SCRAM credentials of the metadata
image (a real ScramPublisher fed UserScramCredentialRecords), mechanisms and iterations only."""

from __future__ import annotations

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, record
from kafka.security.credential_cache import CredentialCache
from kafka.server.metadata.scram_publisher import ScramPublisher
from kafka.server.sasl_apis import SaslApis
from tests.server.handler_harness import BrokerParts, IoThread, broker_registration

SCRAM_SHA_512 = 2


@pytest.fixture
def parts(tmp_path):
    parts = BrokerParts(tmp_path)
    parts.scram_publisher = ScramPublisher(CredentialCache())
    parts.install_publisher()
    parts.publishers.append(parts.scram_publisher)
    parts.publish(broker_registration(), record(
        MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD, name="alice", mechanism=SCRAM_SHA_512, salt=b"salt",
        stored_key=b"stored", server_key=b"server", iterations=8192))
    yield parts
    parts.close()


def sasl_apis(parts: BrokerParts) -> IoThread:
    return IoThread(parts.request_helper, SaslApis(parts.request_helper, parts.forwarding_manager,
                                                   parts.scram_publisher))


def test_a_handshake_after_authentication_is_an_illegal_sasl_state(parts):
    response = parts.call(sasl_apis(parts), ApiKey.SASL_HANDSHAKE, 1, dict(mechanism="PLAIN"))
    assert (response.error_code, response.mechanisms) == (Errors.ILLEGAL_SASL_STATE, [])


def test_describe_user_scram_credentials_shows_mechanisms_and_iterations_only(parts):
    response = parts.call(sasl_apis(parts), ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                          dict(users=[dict(name="alice")]))
    (alice,) = response.results
    assert (alice.user, alice.error_code) == ("alice", Errors.NONE)
    assert [(c.mechanism, c.iterations) for c in alice.credential_infos] == [(SCRAM_SHA_512, 8192)]
