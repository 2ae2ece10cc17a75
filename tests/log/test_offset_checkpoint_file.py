import os

import pytest

from kafka.log.offset_checkpoint_file import CleanShutdownFile, CorruptCheckpointError, OffsetCheckpointFile


def test_kafkas_text_format_round_trips(tmp_path):
    checkpoint = OffsetCheckpointFile(str(tmp_path / "recovery-point-offset-checkpoint"))
    assert checkpoint.read() == {}
    checkpoint.write({("orders", 1): 14977, ("orders", 0): 15230, ("my-topic", 3): 0})
    text = (tmp_path / "recovery-point-offset-checkpoint").read_text()
    assert text == "0\n3\nmy-topic 3 0\norders 0 15230\norders 1 14977\n"
    assert checkpoint.read() == {("orders", 0): 15230, ("orders", 1): 14977, ("my-topic", 3): 0}
    assert not os.path.exists(checkpoint.path + ".tmp"), "written to .tmp, then renamed"


@pytest.mark.parametrize("text", ["1\n0\n", "0\n2\norders 0 1\n", "0\n1\norders zero 1\n", "0\n"])
def test_a_corrupt_file_is_reported_with_its_name(tmp_path, text):
    path = tmp_path / "log-start-offset-checkpoint"
    path.write_text(text)
    with pytest.raises(CorruptCheckpointError, match="log-start-offset-checkpoint"):
        OffsetCheckpointFile(str(path)).read()


def test_clean_shutdown_marker(tmp_path):
    marker = CleanShutdownFile(str(tmp_path))
    assert not marker.exists()
    marker.write()
    assert (tmp_path / ".kafka_cleanshutdown").read_text() == '{"version": 0, "brokerEpoch": -1}'
    marker.delete()
    assert not marker.exists()
