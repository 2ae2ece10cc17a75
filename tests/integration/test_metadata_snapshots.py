"""KIP-630 on a real node: the metadata log is snapshotted, the log before the snapshot goes, and a
restart loads the snapshot (then the few records after it) instead of replaying everything."""

from __future__ import annotations

import io

from kafka.clients.admin import AdminClient, NewTopic
from kafka.tools.dump_log_segments import main as dump_log
from tests.helpers import wait_until

SMALL_SNAPSHOTS = {"metadata.log.max.record.bytes.between.snapshots": "2000",
                   "metadata.log.segment.bytes": "4096"}


def test_a_restart_loads_the_snapshot_and_keeps_every_topic(start_broker, tmp_path):
    data = tmp_path / "data"
    broker = start_broker(data, SMALL_SNAPSHOTS)
    metadata_dir = data / "__cluster_metadata-0"
    topics = [f"snap-{i}" for i in range(12)]
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        for t in topics:
            assert admin.create_topics([NewTopic(t, 2, 1)]) == {t: None}
    wait_until(lambda: list(metadata_dir.glob("*.checkpoint")), message="a snapshot of the metadata log")
    snapshot_log = broker.server.shared.metadata_log
    wait_until(lambda: snapshot_log.start_offset() > 0, message="the log start to move up to the snapshot")
    broker.stop()
    snapshot = sorted(metadata_dir.glob("*.checkpoint"))[-1]
    out = io.StringIO()
    dump_log(["--cluster-metadata-decoder", "--files", str(snapshot)], out=out)
    assert '"type":"TOPIC_RECORD","version":0,"data":{"name":"snap-0"' in out.getvalue()

    broker = start_broker(data, SMALL_SNAPSHOTS)
    # The log starts at the snapshot: what the node knows of the records before it came from the snapshot.
    assert broker.server.shared.metadata_log.start_offset() > 0
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        assert set(topics) <= admin.list_topics()
        assert admin.create_topics([NewTopic("after-restart", 1, 1)]) == {"after-restart": None}
