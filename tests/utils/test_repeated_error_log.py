"""RepeatedErrorLog: an error that keeps happening is logged once per interval, with a count."""

from kafka.utils.repeated_error_log import RepeatedErrorLog
from kafka.utils.time import MockTime


class Recorder:
    def __init__(self):
        self.lines = []

    def error(self, event, **fields):
        self.lines.append((event, fields))


def test_repeats_within_the_interval_are_counted_and_reported_on_the_next_line():
    time, logger = MockTime(), Recorder()
    errors = RepeatedErrorLog(logger, time, interval_ms=60_000)
    for _ in range(12):  # a checkpoint failing every 5 s for a minute
        errors.error("cannot write a checkpoint file", error="EMFILE")
        time.sleep(5_000)
    assert logger.lines == [("cannot write a checkpoint file", {"error": "EMFILE"})]
    assert errors.suppressed("cannot write a checkpoint file") == 11
    errors.error("cannot write a checkpoint file", error="EMFILE")
    assert logger.lines[-1] == ("cannot write a checkpoint file", {"error": "EMFILE", "suppressed": 11})
    assert errors.suppressed("cannot write a checkpoint file") == 0


def test_keys_are_throttled_apart_and_bounded():
    time, logger = MockTime(), Recorder()
    errors = RepeatedErrorLog(logger, time, interval_ms=1_000, max_keys=2)
    assert errors.error("a", key="1") and errors.error("b", key="2")
    assert not errors.error("a", key="1")
    assert errors.error("c", key="3")  # key 1, the oldest, is forgotten
    assert errors.error("a", key="1")
    assert len(logger.lines) == 4


def test_a_failure_every_ten_ms_logs_one_line_a_second_with_the_count():
    time, logger = MockTime(), Recorder()
    errors = RepeatedErrorLog(logger, time, interval_ms=1000)
    for _ in range(500):
        errors.error("accept failed", key=24, errno=24)  # keys need only be hashable: an errno here
        time.sleep(10)  # 500 failures over 5 s
    assert len(logger.lines) == 5
    assert logger.lines[1] == ("accept failed", {"errno": 24, "suppressed": 99})
