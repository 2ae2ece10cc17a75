"""Dynamic broker configs on the controller (KIP-226): IncrementalAlterConfigs on a BROKER resource (type 4)
for one broker ("1") or the cluster default (""), written as ConfigRecords of resource type 4 and replayed
by a standby; the values were checked by the broker that forwarded them (DynamicBrokerConfig), so the
controller checks only that the resource names a node; validate_only writes nothing."""

from __future__ import annotations

import pytest

from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import BROKER_RESOURCE
from tests.controller.test_group_configs import DELETE, SET, Controllers
from tests.controller.test_quorum_controller import record

pytestmark = pytest.mark.fast


def alter(controllers: Controllers, name: str, *ops, validate_only: bool = False) -> dict:
    request = record(resources=[record(resource_type=BROKER_RESOURCE, resource_name=name, configs=[
        record(name=k, config_operation=op, value=v) for k, op, v in ops])], validate_only=validate_only)
    future = controllers.active.incremental_alter_configs(request)
    controllers.step()
    controllers.step()
    return future.result()["responses"][0]


def configs(controllers: Controllers, name: str) -> tuple[dict, dict]:
    return (controllers.active.configs.config_props(BROKER_RESOURCE, name),
            controllers.standby.configs.config_props(BROKER_RESOURCE, name))


def test_both_levels_are_written_and_replayed():
    controllers = Controllers()
    assert alter(controllers, "", ("log.retention.ms", SET, "3600000"))["error_code"] == Errors.NONE
    assert alter(controllers, "1", ("num.io.threads", SET, "16"),
                 ("log.retention.ms", SET, "60000"))["error_code"] == Errors.NONE
    # with eligible leader replicas on, the first controller wrote the cluster's min.insync.replicas
    assert configs(controllers, "") == ({"min.insync.replicas": "1", "log.retention.ms": "3600000"},) * 2
    assert configs(controllers, "1") == ({"num.io.threads": "16", "log.retention.ms": "60000"},) * 2
    alter(controllers, "1", ("num.io.threads", DELETE, None), ("log.retention.ms", DELETE, None))
    assert configs(controllers, "1") == ({}, {})


def test_validate_only_and_a_name_that_is_no_node_write_nothing():
    controllers = Controllers()
    answer = alter(controllers, "1", ("num.io.threads", SET, "16"), validate_only=True)
    assert answer["error_code"] == Errors.NONE and configs(controllers, "1") == ({}, {})
    answer = alter(controllers, "x", ("num.io.threads", SET, "16"))
    assert (answer["error_code"], answer["error_message"]) == (Errors.INVALID_REQUEST,
                                                               "Node id must be an integer, but it is: x")
    assert configs(controllers, "x") == ({}, {})
