"""A dynamic broker config seen by a running Java client (kafka-clients 4.4, DynamicConfigScenario.java):
message.max.bytes lowered for the cluster with IncrementalAlterConfigs, and the same producer's next large
record refused with MESSAGE_TOO_LARGE, without a restart; accepted again once the config is deleted."""

from __future__ import annotations

import pytest

from tests.helpers import BrokerProcess
from tests.jvm.jvm import compile_scenarios, run_scenarios

pytestmark = pytest.mark.timeout(300)


def test_a_running_producer_sees_message_max_bytes_lowered(tmp_path_factory):
    cp = compile_scenarios("clients-4", tmp_path_factory.mktemp("classes"))
    broker = BrokerProcess(tmp_path_factory.mktemp("broker") / "data")
    try:
        result = run_scenarios(cp, broker.bootstrap, "dynamic-message-max-bytes")["dynamic-message-max-bytes"]
    finally:
        broker.stop()
    assert "error" not in result, result["error"]
    assert result["before"] == result["restored"] == "ok"
    assert result["lowered"].startswith("RecordTooLargeException: "), result["lowered"]
