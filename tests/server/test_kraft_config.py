"""The KRaft keys: each bad combination stops start-up with a message naming the key to fix."""

from __future__ import annotations

import pytest

from kafka.server.kafka_config import ConfigError, KafkaConfig

VOTERS = "1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097"


def config(**props: str) -> KafkaConfig:
    return KafkaConfig({k.replace("_", "."): v for k, v in props.items()})


def test_the_default_is_a_one_node_quorum_on_an_ephemeral_controller_port():
    c = config(listeners="PLAINTEXT://127.0.0.1:9092")
    assert c.process_roles == {"broker", "controller"}
    assert [e.connection_string for e in c.controller_listeners] == ["CONTROLLER://127.0.0.1:0"]
    assert [e.listener_name for e in c.broker_listeners] == ["PLAINTEXT"]
    assert [e.listener_name for e in c.advertised_listeners] == ["PLAINTEXT"]


def test_a_three_voter_node():
    c = KafkaConfig({"node.id": "2", "controller.quorum.voters": VOTERS,
                     "controller.listener.names": "CONTROLLER",
                     "listeners": "PLAINTEXT://:9094,CONTROLLER://:9095"})
    assert sorted(c.controller_quorum_voters) == [1, 2, 3]
    assert c.controller_quorum_voters[3].port == 9097
    assert c.controller_listener_name == "CONTROLLER"


@pytest.mark.parametrize("props, key", [
    ({"process.roles": "broker"}, "controller.quorum.voters"),
    ({"process.roles": "worker"}, "process.roles"),
    ({"controller.quorum.voters": "1@localhost"}, "controller.quorum.voters"),
    ({"controller.quorum.voters": "1@h:1,1@h:2"}, "controller.quorum.voters"),
    ({"node.id": "4", "controller.quorum.voters": VOTERS, "controller.listener.names": "CONTROLLER",
      "listeners": "PLAINTEXT://:9092,CONTROLLER://:9093"}, "controller.quorum.voters"),
    ({"controller.quorum.voters": VOTERS}, "controller.listener.names"),
    ({"controller.quorum.voters": VOTERS, "controller.listener.names": "CONTROLLER"},
     "controller.listener.names"),
    ({"listener.security.protocol.map": "PLAINTEXT:TLS"}, "listener.security.protocol.map"),
    ({"listeners": "CONTROLLER://:9093", "controller.quorum.voters": "1@h:9093",
      "controller.listener.names": "CONTROLLER"}, "listeners"),
])
def test_bad_kraft_configs_name_the_key(props, key):
    with pytest.raises(ConfigError, match=f"'{key}'"):
        KafkaConfig(props)
