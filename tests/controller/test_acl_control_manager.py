"""AclControlManager on a QuorumController (Kafka's AclControlManagerTest): CreateAcls validated and
written as AccessControlEntryRecords, duplicates written once, DeleteAcls filters removing what they
match, a standby and the MetadataImage (AclsImage, as every broker builds it) agreeing, and a
snapshot of the image rebuilding the same ACLs."""

from __future__ import annotations

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import deserialize
from tests.controller.test_quorum_controller import Cluster, record

TOPIC, GROUP, CLUSTER_RES, ANY = 2, 3, 4, 1
LITERAL, PREFIXED, MATCH, ANY_PATTERN = 3, 4, 2, 1
READ, WRITE, ALL = 3, 4, 2
ALLOW, DENY = 3, 2


def creation(name="orders", principal="User:alice", op=WRITE, perm=ALLOW, res=TOPIC, pattern=LITERAL,
             host="*"):
    return record(resource_type=res, resource_name=name, resource_pattern_type=pattern, principal=principal,
                  host=host, operation=op, permission_type=perm)


def acl_filter(res=ANY, name=None, pattern=ANY_PATTERN, principal=None, op=1, perm=1):
    return record(resource_type_filter=res, resource_name_filter=name, pattern_type_filter=pattern,
                  principal_filter=principal, host_filter=None, operation=op, permission_type=perm)


def create(cluster: Cluster, *creations):
    return cluster.call(cluster.active.create_acls(record(creations=list(creations))))["results"]


def delete(cluster: Cluster, *filters):
    return cluster.call(cluster.active.delete_acls(record(filters=list(filters))))["filter_results"]


def image_of(cluster: Cluster):
    delta = MetadataDelta(EMPTY_IMAGE)
    for value in cluster.raft.entries[:cluster.raft.committed]:
        delta.replay(deserialize(value))
    return delta.apply(MetadataProvenance(cluster.raft.committed - 1, 1, 0))


def test_created_acls_reach_the_standby_and_the_image():
    cluster = Cluster()
    results = create(cluster, creation(), creation("billing", op=READ, res=GROUP),
                     creation("ord", pattern=PREFIXED))
    assert [r["error_code"] for r in results] == [Errors.NONE] * 3
    assert len(cluster.active.acls.id_to_acl) == 3
    assert cluster.standby.acls.id_to_acl == cluster.active.acls.id_to_acl
    image = image_of(cluster)
    assert image.acls.acls == cluster.active.acls.id_to_acl
    # a snapshot of the image rebuilds the same ACLs, ids and all
    rebuilt = MetadataDelta(EMPTY_IMAGE)
    for r in image.write():
        rebuilt.replay(r)
    assert rebuilt.apply(image.provenance).acls == image.acls


def test_an_acl_that_exists_already_succeeds_and_is_written_once():
    cluster = Cluster()
    create(cluster, creation())
    written = cluster.raft.committed
    assert [r["error_code"] for r in create(cluster, creation(), creation())] == [Errors.NONE, Errors.NONE]
    assert cluster.raft.committed == written and len(cluster.active.acls.id_to_acl) == 1


def test_invalid_acls_get_invalid_request_and_write_nothing():
    cluster = Cluster()
    results = create(cluster, creation(res=ANY), creation(pattern=MATCH), creation(op=1), creation(perm=1),
                     creation(name=""), creation(res=CLUSTER_RES, name="my-cluster"),
                     creation(principal="alice"),
                     creation(res=CLUSTER_RES, name="kafka-cluster", op=9))
    assert [r["error_code"] for r in results] == [Errors.INVALID_REQUEST] * 7 + [Errors.NONE]
    assert "The only valid name for the CLUSTER resource is kafka-cluster" in results[5]["error_message"]
    assert len(cluster.active.acls.id_to_acl) == 1


def test_delete_removes_what_each_filter_matches():
    cluster = Cluster()
    create(cluster, creation(), creation(principal="User:bob"), creation("ord", pattern=PREFIXED),
           creation("*", op=READ), creation("billing", op=READ, res=GROUP))
    [by_principal] = delete(cluster, acl_filter(principal="User:bob"))
    assert [(a["resource_name"], a["principal"]) for a in by_principal["matching_acls"]] == [("orders",
                                                                                              "User:bob")]
    # MATCH: every pattern that applies to the topic named "orders": literal, * and the prefix
    [matched] = delete(cluster, acl_filter(res=TOPIC, name="orders", pattern=MATCH))
    assert sorted(a["resource_name"] for a in matched["matching_acls"]) == ["*", "ord", "orders"]
    assert [a.resource_name for a in cluster.active.acls.id_to_acl.values()] == ["billing"]
    assert cluster.standby.acls.id_to_acl == cluster.active.acls.id_to_acl
    assert image_of(cluster).acls.acls == cluster.active.acls.id_to_acl


def test_a_filter_with_unknown_codes_is_refused_alone():
    cluster = Cluster()
    create(cluster, creation())
    bad, good = delete(cluster, acl_filter(pattern=0), acl_filter())
    assert bad["error_code"] == Errors.INVALID_REQUEST and bad["error_message"] == "Unknown patternFilter."
    assert good["error_code"] == Errors.NONE and len(good["matching_acls"]) == 1


def test_a_standby_answers_not_controller():
    cluster = Cluster()
    response = cluster.call(cluster.standby.create_acls(record(creations=[creation()])))
    assert response["results"][0]["error_code"] == Errors.NOT_CONTROLLER
