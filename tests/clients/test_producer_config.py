"""ProducerConfig's idempotence rule, as the Java client's since 3.2 (no broker needed).

Idempotence is on by default and needs acks=all, retries > 0 and max.in.flight.requests.per.connection
<= 5. A conflict is an error that names the key if the user asked for idempotence. If the user did
not ask, the conflict quietly turns idempotence off.
"""

from __future__ import annotations

import pytest

from kafka.clients.client_config import ProducerConfig
from kafka.clients.errors import ConfigError
from kafka.clients.producer import KafkaProducer
from tests.helpers import free_port

BOOTSTRAP = {"bootstrap.servers": "127.0.0.1:9092"}
CONFLICTS = [("acks", "1"), ("acks", 0), ("retries", 0), ("max.in.flight.requests.per.connection", 6)]


def test_the_defaults_are_idempotent_with_acks_all():
    config = ProducerConfig(BOOTSTRAP)
    assert config["enable.idempotence"] is True
    assert config["acks"] == -1 and config["retries"] > 0
    assert config["max.in.flight.requests.per.connection"] == 5


@pytest.mark.parametrize(("key", "value"), CONFLICTS)
def test_a_conflict_with_idempotence_left_unset_quietly_disables_it(key, value):
    config = ProducerConfig({**BOOTSTRAP, key: value})
    assert config["enable.idempotence"] is False


@pytest.mark.parametrize(("key", "value"), CONFLICTS)
def test_a_conflict_with_idempotence_set_explicitly_is_an_error_naming_the_key(key, value):
    with pytest.raises(ConfigError, match=f"config '{key}'"):
        ProducerConfig({**BOOTSTRAP, "enable.idempotence": "true", key: value})


def test_settings_that_agree_with_idempotence_keep_it():
    config = ProducerConfig({**BOOTSTRAP, "enable.idempotence": True, "acks": "all", "retries": 3,
                             "max.in.flight.requests.per.connection": 1})
    assert config["enable.idempotence"] is True
    # explicit acks, same value
    assert ProducerConfig({**BOOTSTRAP, "acks": "-1"})["enable.idempotence"] is True


def test_idempotence_turned_off_explicitly_allows_anything():
    config = ProducerConfig({**BOOTSTRAP, "enable.idempotence": "false", "acks": 0, "retries": 0,
                             "max.in.flight.requests.per.connection": 10})
    assert config["enable.idempotence"] is False and config["acks"] == 0


def test_producer_refuses_the_conflict_at_construction_and_builds_a_transaction_manager_only_if_idempotent():
    with pytest.raises(ConfigError, match="'acks'"):
        KafkaProducer({**BOOTSTRAP, "enable.idempotence": True, "acks": 1})
    unreachable = {"bootstrap.servers": f"127.0.0.1:{free_port()}"}
    with KafkaProducer(unreachable) as idempotent, KafkaProducer({**unreachable, "acks": 1}) as plain:
        assert idempotent.transaction_manager is not None
        assert idempotent.accumulator.transaction_manager is not None
        assert plain.transaction_manager is None and plain.sender.transaction_manager is None
