"""Group configs on the controller: IncrementalAlterConfigs on a GROUP resource (type 32) checked by the
ControllerConfigurationValidator the server gives the QuorumController (GroupConfig.validate against the
node's bounds), written as ConfigRecords of resource type 32 and replayed by a standby; refused changes
write nothing. A group need not exist to have configs, as in Kafka."""

from __future__ import annotations

import pytest

from kafka.controller.quorum_controller import QuorumController
from kafka.controller.quorum_controller_config import QuorumControllerConfig
from kafka.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import GROUP_RESOURCE
from kafka.raft.batch import LeaderAndEpoch
from kafka.server.controller_configuration_validator import ControllerConfigurationValidator
from kafka.utils.time import MockTime
from tests.controller.test_quorum_controller import CLUSTER, LocalRaft, record

pytestmark = pytest.mark.fast

SET, DELETE, APPEND = 0, 1, 2


class Controllers:
    """An active controller and a standby on one in-memory metadata log, both with the server's validator."""

    def __init__(self, bounds: GroupCoordinatorConfig | None = None) -> None:
        self.time, self.raft = MockTime(), LocalRaft()
        config = QuorumControllerConfig(num_partitions=1, default_replication_factor=1)
        validator = ControllerConfigurationValidator(bounds or GroupCoordinatorConfig())
        self.active, self.standby = (
            QuorumController(node, self.raft, self.time, config, CLUSTER, threaded=False,
                             config_validator=validator) for node in (1, 2))
        for controller in (self.active, self.standby):
            controller.handle_leader_change(LeaderAndEpoch(1, 1))
        self.step()

    def step(self) -> None:
        for controller in (self.active, self.standby):
            controller.queue.run_pending()
        self.raft.commit_to([self.active, self.standby])

    def alter(self, group: str, *ops: tuple[str, int, str | None], validate_only: bool = False) -> dict:
        request = record(resources=[record(resource_type=GROUP_RESOURCE, resource_name=group, configs=[
            record(name=k, config_operation=op, value=v) for k, op, v in ops])], validate_only=validate_only)
        future = self.active.incremental_alter_configs(request)
        self.step()
        self.step()
        return future.result()["responses"][0]

    def configs(self, group: str) -> tuple[dict, dict]:
        """The group's configs as the active controller and the standby have them."""
        return (self.active.configs.config_props(GROUP_RESOURCE, group),
                self.standby.configs.config_props(GROUP_RESOURCE, group))


@pytest.fixture
def controllers() -> Controllers:
    return Controllers()


def test_a_groups_configs_are_written_and_replayed_though_the_group_does_not_exist(controllers):
    answer = controllers.alter("nobody-yet", ("share.auto.offset.reset", SET, "earliest"),
                               ("share.record.lock.duration.ms", SET, "20000"))
    assert (answer["error_code"], answer["error_message"]) == (Errors.NONE, None)
    expected = {"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": "20000"}
    assert controllers.configs("nobody-yet") == (expected, expected)
    assert controllers.alter("nobody-yet", ("share.record.lock.duration.ms", DELETE, None))["error_code"] == 0
    assert controllers.configs("nobody-yet") == ({"share.auto.offset.reset": "earliest"},) * 2
    controllers.alter("nobody-yet", ("share.auto.offset.reset", DELETE, None))
    assert controllers.configs("nobody-yet") == ({}, {})
    assert (GROUP_RESOURCE, "nobody-yet") not in controllers.standby.configs.configs, \
        "the last key takes it away"


@pytest.mark.parametrize("ops, error, message", [
    ((("no.such.config", SET, "1"),), Errors.INVALID_CONFIG, "Unknown group config name: no.such.config"),
    ((("share.record.lock.duration.ms", SET, "1000000"),), Errors.INVALID_CONFIG,
     "share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive."),
    ((("share.auto.offset.reset", SET, "earliest"), ("consumer.session.timeout.ms", SET, "x")),
     Errors.INVALID_CONFIG,
     "Invalid value x for configuration consumer.session.timeout.ms: Not a number of type INT"),
    ((("errors.deadletterqueue.topic.name", SET, "d" * 32768),), Errors.INVALID_CONFIG,
     "The configuration value cannot be added because it exceeds the maximum value size of 32767 bytes."),
])
def test_a_refused_change_writes_nothing(controllers, ops, error, message):
    answer = controllers.alter("g", *ops)
    assert (answer["error_code"], answer["error_message"]) == (error, message)
    assert controllers.configs("g") == ({}, {})


def test_the_whole_new_set_is_checked():
    """A change is checked with the group's other configs (and the broker's value of a key it leaves out):
    a heartbeat no shorter than the session stored is refused."""
    controllers = Controllers(GroupCoordinatorConfig(share_group_min_session_timeout_ms=1000,
                                                     share_group_min_heartbeat_interval_ms=1000))
    answer = controllers.alter("g", ("share.session.timeout.ms", SET, "5000"))
    assert answer["error_message"] == \
        "share.session.timeout.ms must be greater than share.heartbeat.interval.ms"
    assert controllers.alter("g", ("share.heartbeat.interval.ms", SET, "2000"),
                             ("share.session.timeout.ms", SET, "5000"))["error_code"] == Errors.NONE
    answer = controllers.alter("g", ("share.heartbeat.interval.ms", SET, "6000"))
    assert (answer["error_code"], answer["error_message"]) == (
        Errors.INVALID_CONFIG, "share.session.timeout.ms must be greater than share.heartbeat.interval.ms")
    assert controllers.configs("g")[1] == {"share.heartbeat.interval.ms": "2000",
                                           "share.session.timeout.ms": "5000"}


def test_the_default_group_and_validate_only(controllers):
    answer = controllers.alter("", ("share.auto.offset.reset", SET, "earliest"))
    assert (answer["error_code"], answer["error_message"]) == (Errors.INVALID_REQUEST,
                                                               "Default group resources are not allowed.")
    answer = controllers.alter("g", ("share.auto.offset.reset", SET, "earliest"), validate_only=True)
    assert answer["error_code"] == Errors.NONE and controllers.configs("g") == ({}, {})
