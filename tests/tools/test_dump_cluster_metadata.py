"""kafka-dump-log --cluster-metadata-decoder: the KRaft metadata log of a real node, decoded."""

from __future__ import annotations

import io

from kafka.clients.admin import AdminClient, NewTopic
from kafka.tools.dump_log_segments import main as dump_log


def test_the_metadata_log_shows_the_leader_change_and_the_topic_records(start_broker, tmp_path):
    broker = start_broker(tmp_path / "data")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic("orders", 2, 1, {"retention.ms": "60000"})]) == {"orders": None}
    broker.stop()
    out = io.StringIO()
    segment = tmp_path / "data" / "__cluster_metadata-0" / f"{0:020d}.log"
    assert dump_log(["--cluster-metadata-decoder", "--files", str(segment)], out=out) == 0
    text = out.getvalue()
    assert 'LeaderChange: {"version":0,"leaderId":1' in text
    assert '"type":"FEATURE_LEVEL_RECORD"' in text and '"name":"metadata.version"' in text
    assert '"type":"REGISTER_BROKER_RECORD"' in text
    assert '"type":"TOPIC_RECORD","version":0,"data":{"name":"orders"' in text
    assert text.count('"type":"PARTITION_RECORD"') == 2
    assert ('"type":"CONFIG_RECORD","version":0,"data":{"resourceType":2,"resourceName":"orders",'
            '"name":"retention.ms","value":"60000"}') in text


def test_the_metadata_shell_shows_the_image_as_a_tree(start_broker, tmp_path, capsys):
    from kafka.tools.metadata_shell import MetadataShell, image_tree, load_image

    broker = start_broker(tmp_path / "data")
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert admin.create_topics([NewTopic("orders", 2, 1, {"retention.ms": "60000"})]) == {"orders": None}
    broker.stop()
    segment = tmp_path / "data" / "__cluster_metadata-0" / f"{0:020d}.log"
    shell = MetadataShell(image_tree(load_image(str(segment))))
    assert shell.run("ls /").split() == ["brokers", "configs", "features", "producerIds", "provenance",
                                         "topicIds",
                                         "topics"]
    assert shell.run("ls /topics") == "orders"
    assert shell.run("cd /topics/orders") == "" and shell.run("pwd") == "/topics/orders"
    assert '"replicas": [1]' in shell.run("cat 0/data")  # leader -1: the node shut down
    assert shell.run("cat /configs/topic/orders/retention.ms") == "60000"
    assert shell.run("cat /features/metadata.version") == "33"
    assert "no such file" in shell.run("ls /nope")
    assert shell.run("exit") is None
