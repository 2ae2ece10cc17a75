"""RLMQuotaManager: remote.log.manager.copy.max.bytes.per.second over its samples, on a MockTime."""

from kafka.log.remote.rlm_quota_manager import LONG_MAX, RLMQuotaManager
from kafka.utils.time import MockTime


def test_an_unbounded_quota_never_throttles():
    quota = RLMQuotaManager(LONG_MAX, 11, 1, MockTime())
    quota.record(10**12)
    assert quota.get_throttle_time_ms() == 0


def test_copying_over_the_rate_waits_until_the_window_brings_it_back():
    time = MockTime()
    quota = RLMQuotaManager(1000, 11, 1, time)  # 1000 bytes a second, measured over ~10 s
    quota.record(5000)
    assert quota.get_throttle_time_ms() == 0, "5000 bytes over a 10 s window is 500 bytes a second"
    quota.record(10_000)
    assert quota.get_throttle_time_ms() == 5000, "1500 bytes a second: half as much again, over 10 s"
    waited = 0
    while quota.get_throttle_time_ms() > 0:  # the copier asks again after each wait
        time.advance(1000)
        waited += 1000
    assert waited <= 12_000, "the samples age out of the window"
    time.advance(60_000)  # old samples age out
    quota.record(100)
    assert quota.get_throttle_time_ms() == 0
