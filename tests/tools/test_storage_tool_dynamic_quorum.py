"""kafka-storage format for a dynamic quorum (KIP-853): --standalone, --initial-controllers and
--no-initial-controllers write (or do not write) the bootstrap snapshot with kraft.version 1 and the
VotersRecord, and give the metadata directory the directory id the voter set names."""

from __future__ import annotations

from kafka.raft.kafka_metadata_log import KafkaMetadataLog
from kafka.raft.kraft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka.raft.voter_set import VoterSet
from kafka.server.kafka_config import KafkaConfig
from kafka.server.meta_properties import read_meta_properties
from kafka.server.shared_server import metadata_log_config
from kafka.tools.storage_tool import main
from kafka.utils.time import MockTime
from kafka.utils.uuid import random_uuid

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"


def controller(tmp_path, node_id: int, port: int):
    path = tmp_path / f"controller-{node_id}.properties"
    path.write_text(f"process.roles=controller\nnode.id={node_id}\ncontroller.listener.names=CONTROLLER\n"
                    f"controller.quorum.bootstrap.servers=127.0.0.1:{port}\nlisteners=CONTROLLER://127.0.0.1:{port}\n"
                    f"log.dirs={tmp_path / f'c{node_id}'}\n")
    return path


def voters_in(config_path) -> tuple[int, VoterSet]:
    """What the raft layer reads from the formatted metadata directory: kraft.version and the voters."""
    config = KafkaConfig.from_file(str(config_path))
    log = KafkaMetadataLog(f"{config.metadata_log_dir}/__cluster_metadata-0", metadata_log_config(config),
                           MockTime())
    state = KRaftControlRecordStateMachine(VoterSet({}), log)
    state.update_state()
    log.close()
    return state.last_kraft_version(), state.last_voter_set()


def test_initial_controllers_write_the_voter_set_and_each_directory_id(tmp_path, capsys):
    ids = {i: random_uuid() for i in (1, 2, 3)}
    initial = ",".join(f"{i}@127.0.0.1:{9000 + i}:{ids[i]}" for i in (1, 2, 3))
    for i in (1, 2, 3):
        assert main(["format", "-t", CLUSTER_ID, "-c", str(controller(tmp_path, i, 9000 + i)),
                     "--initial-controllers", initial]) == 0
        assert read_meta_properties(str(tmp_path / f"c{i}")).directory_id == ids[i]
    assert "Formatting dynamic metadata voter directory" in capsys.readouterr().out
    kraft_version, voters = voters_in(controller(tmp_path, 2, 9002))
    assert kraft_version == 1 and voters.voter_ids() == {1, 2, 3}
    assert voters.endpoint(3, "CONTROLLER") == ("127.0.0.1", 9003)


def test_standalone_and_no_initial_controllers(tmp_path, capsys):
    assert main(["format", "-t", CLUSTER_ID, "-c", str(controller(tmp_path, 1, 9001)), "--standalone"]) == 0
    kraft_version, voters = voters_in(controller(tmp_path, 1, 9001))
    assert kraft_version == 1 and voters.voter_ids() == {1}
    directory_id = read_meta_properties(str(tmp_path / "c1")).directory_id
    assert str(voters.voter_keys()[0]) == f"ReplicaKey(id=1, directoryId={directory_id})"
    assert main(["format", "-t", CLUSTER_ID, "-c", str(controller(tmp_path, 4, 9004)),
                 "--no-initial-controllers"]) == 0
    assert voters_in(controller(tmp_path, 4, 9004)) == (0, VoterSet({}))  # an observer until added
    assert "Formatting metadata directory" in capsys.readouterr().out


def test_a_dynamic_controller_must_say_which(tmp_path, capsys):
    assert main(["format", "-t", CLUSTER_ID, "-c", str(controller(tmp_path, 1, 9001))]) == 1
    refusal = ("Because controller.quorum.voters is not set on this controller, you must specify one of the "
               "following: --standalone, --initial-controllers, or --no-initial-controllers.")
    assert refusal in capsys.readouterr().err
    assert main(["format", "-t", CLUSTER_ID, "-c", str(controller(tmp_path, 1, 9001)),
                 "--initial-controllers", "1@127.0.0.1:9001"]) == 1
    assert "is not of the form id@host:port:directory" in capsys.readouterr().err
