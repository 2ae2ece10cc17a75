"""SCRAM credentials in the metadata: ScramControlManager's decisions, the ScramImage the records
build, and the ScramPublisher filling the CredentialCache (fast, no broker)."""

from __future__ import annotations

from types import SimpleNamespace as NS

from kafka.controller.scram_control_manager import ScramControlManager
from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import MetadataRecordType, deserialize, serialize
from kafka.security.credential_cache import CredentialCache
from kafka.security.scram_formatter import ScramFormatter
from kafka.security.scram_mechanism import ScramMechanism
from kafka.security.scram_sasl_client import ScramSaslClient
from kafka.security.scram_sasl_server import ScramSaslServer
from kafka.server.metadata.scram_publisher import ScramPublisher

SHA512 = ScramMechanism.SCRAM_SHA_512


def upsertion(name: str, mechanism: int = 2, iterations: int = 8192, password: str = "secret"):
    salt = b"salt-" + name.encode()
    m = ScramMechanism.from_type(mechanism) or SHA512
    return NS(name=name, mechanism=mechanism, iterations=iterations, salt=salt,
              salted_password=ScramFormatter(m).salted_password(password, salt, max(iterations, 1)))


def apply(manager: ScramControlManager, image, records):
    delta = MetadataDelta(image)
    for r in records:
        r = deserialize(serialize(r))  # as the log carries it
        manager.replay(r)
        delta.replay(r)
    return delta.apply(MetadataProvenance(len(records), 1, 0))


def test_an_upsertion_writes_keys_and_never_the_salted_password():
    manager = ScramControlManager()
    records, results = manager.alter_credentials([], [upsertion("alice")])
    assert results == [dict(user="alice", error_code=Errors.NONE, error_message=None)]
    (r,) = records
    assert r.type == MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD
    assert upsertion("alice").salted_password not in serialize(r)
    image = apply(manager, EMPTY_IMAGE, records)
    assert image.scram.describe(["alice"]) == [dict(user="alice", error_code=Errors.NONE, error_message=None,
                                                    credential_infos=[dict(mechanism=2, iterations=8192)])]
    assert [x.type for x in image.write()] == [MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD]


def test_a_login_with_the_published_credential_succeeds():
    manager = ScramControlManager()
    image = apply(manager, EMPTY_IMAGE, manager.alter_credentials([], [upsertion("alice")])[0])
    cache = CredentialCache()
    ScramPublisher(cache).on_metadata_update(None, image)
    client, server = ScramSaslClient(SHA512, "alice", "secret"), ScramSaslServer(SHA512, cache)
    final = client.evaluate_challenge(server.evaluate_response(client.evaluate_challenge(b"")))
    assert client.evaluate_challenge(server.evaluate_response(final)) is None
    assert server.authorization_id == "alice"


def test_each_users_alterations_stand_or_fall_together():
    manager = ScramControlManager()
    image = apply(manager, EMPTY_IMAGE, manager.alter_credentials([], [upsertion("alice")])[0])
    records, results = manager.alter_credentials(
        [NS(name="alice", mechanism=2), NS(name="bob", mechanism=1), NS(name="", mechanism=2)],
        [upsertion("carol", iterations=100), upsertion("dave", iterations=20000),
         upsertion("erin", mechanism=9),
         upsertion("frank"), upsertion("frank"), upsertion("bob")])
    errors = {r["user"]: (r["error_code"], r["error_message"]) for r in results}
    assert errors == {
        "alice": (Errors.NONE, None),
        "bob": (Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"),
        "": (Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"),
        "carol": (Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations (minimum 4096)"),
        "dave": (Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations (maximum 16384)"),
        "erin": (Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"),
        "frank": (Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request")}
    assert [(r.type, r.data.name) for r in records] == [
        (MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD, "alice")]
    image = apply(manager, image, records)
    assert image.scram.is_empty()
    assert image.scram.describe(["alice", "alice"])[0]["error_code"] == Errors.DUPLICATE_RESOURCE
    assert image.scram.describe(["zed"])[0]["error_code"] == Errors.RESOURCE_NOT_FOUND
