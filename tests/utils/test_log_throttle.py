"""LogThrottle on MockTime: one line per key per interval, and the count of what was held back."""

from __future__ import annotations

from kafka.utils.log_throttle import LogThrottle
from kafka.utils.time import MockTime


def test_one_line_per_interval_then_the_number_held_back():
    time = MockTime()
    lines = []
    throttle = LogThrottle(time, 1000)
    for _ in range(500):
        throttle.log(lambda event, **fields: lines.append((event, fields)), "accept failed", key="EMFILE", errno=24)
        time.sleep(10)  # 500 failures over 5 s
    assert len(lines) == 5
    assert lines[0] == ("accept failed", {"errno": 24})
    assert lines[1] == ("accept failed", {"errno": 24, "suppressed": 99})


def test_keys_are_throttled_apart_and_bounded():
    time = MockTime()
    lines = []
    throttle = LogThrottle(time, 1000, max_keys=3)
    for ip in ("a", "b", "a", "c", "d", "e"):
        throttle.log(lambda event, **fields: lines.append(fields["ip"]), "refused", key=ip, ip=ip)
    assert lines == ["a", "b", "c", "d", "e"]
    assert len(throttle._keys) == 3
