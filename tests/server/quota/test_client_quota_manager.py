"""The quota math on a MockTime: Kafka's windowed rate, its throttle time, the precedence of quota
entities, and sensors that expire (Kafka's ClientQuotaManagerTest, in spirit)."""

from __future__ import annotations

import math

import pytest

from kafka.server.quota.client_quota_manager import (
    ANONYMOUS,
    DEFAULT,
    ClientQuotaManager,
    ClientQuotaManagerConfig,
    QuotaType,
)
from kafka.server.quota.client_request_quota_manager import ClientRequestQuotaManager
from kafka.server.quota.rate import MetricConfig, Rate
from kafka.utils.time import MockTime

CONFIG = ClientQuotaManagerConfig(num_quota_samples=11, quota_window_size_seconds=1)  # Kafka's defaults


def manager(time: MockTime, quota_type: QuotaType = QuotaType.PRODUCE) -> ClientQuotaManager:
    return ClientQuotaManager(CONFIG, quota_type, time)


def limit(m: ClientQuotaManager, user: str, client_id: str) -> float | None:
    return m.quota_limit(m.quota_metric_tags(user, client_id))


def test_a_young_rate_is_measured_over_at_least_samples_minus_one_windows():
    time = MockTime()
    rate = Rate(MetricConfig(samples=11, window_ms=1000))
    rate.record(1000, time.milliseconds())
    assert rate.window_size(time.milliseconds()) == 10_000  # not 0 ms: one burst is not an infinite rate
    assert rate.measure(time.milliseconds()) == pytest.approx(100.0)
    time.advance(15_000)
    rate.record(500, time.milliseconds())
    # the first window is older than 11 x 1 s: forgotten
    assert rate.measure(time.milliseconds()) == pytest.approx(50.0)


def test_no_quota_anywhere_means_nothing_is_metered():
    time = MockTime()
    m = manager(time)
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "app", 10**9, time.milliseconds()) == 0
    assert m.sensor_count == 0


def test_throttle_time_is_the_silence_that_brings_the_rate_back_to_the_quota():
    time = MockTime()
    m = manager(time)
    m.update_quota((None, "noisy"), 1000.0)  # producer_byte_rate=1000
    # 20,000 bytes at once: 2,000 B/s over the 10 s window, twice the quota -> 10 s of silence
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "noisy", 20_000, time.milliseconds()) == 10_000
    # within the quota: no throttle
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "quiet", 20_000, time.milliseconds()) == 0
    # once the burst's window is older than 11 windows it no longer counts
    time.advance(11_000)
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "noisy", 100, time.milliseconds()) == 0


def test_a_client_held_by_its_throttle_times_averages_its_quota():
    """A client that sends 1,000 bytes whenever it may, and waits out every throttle time, ends up
    at its quota, as the done-when figure of the issue asks of a real producer."""
    time = MockTime()
    m = manager(time)
    m.update_quota((None, "noisy"), 10_000.0)
    start, sent = time.milliseconds(), 0
    while time.milliseconds() - start < 120_000:
        sent += 1000
        throttle = m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "noisy", 1000, time.milliseconds())
        time.advance(max(throttle, 1))  # it would send every millisecond if it could
    rate = sent / ((time.milliseconds() - start) / 1000)
    assert rate == pytest.approx(10_000, rel=0.2)


def test_quota_precedence_is_kafkas():
    time = MockTime()
    m = manager(time)
    m.update_quota((None, DEFAULT), 1.0)
    m.update_quota((None, "a"), 2.0)
    assert limit(m, ANONYMOUS, "a") == 2.0  # /config/clients/a
    assert limit(m, ANONYMOUS, "b") == 1.0  # /config/clients/<default>
    assert m.quota_metric_tags(ANONYMOUS, "b") == ("", "b")  # client-id quotas only: no user tag
    m.update_quota((DEFAULT, None), 3.0)
    assert limit(m, ANONYMOUS, "a") == 3.0  # /config/users/<default> outranks any client-id quota
    assert m.quota_metric_tags(ANONYMOUS, "a") == (ANONYMOUS, "")
    m.update_quota((ANONYMOUS, None), 4.0)
    assert limit(m, ANONYMOUS, "a") == 4.0  # /config/users/ANONYMOUS
    assert limit(m, "alice", "a") == 3.0
    m.update_quota((DEFAULT, "a"), 5.0)
    assert limit(m, ANONYMOUS, "a") == 4.0  # users/<user> outranks users/<default>/clients/<client-id>
    assert limit(m, "alice", "a") == 5.0
    m.update_quota((ANONYMOUS, DEFAULT), 6.0)
    assert limit(m, ANONYMOUS, "b") == 6.0  # users/<user>/clients/<default>
    m.update_quota((ANONYMOUS, "a"), 7.0)
    assert limit(m, ANONYMOUS, "a") == 7.0  # users/<user>/clients/<client-id>: the most specific
    assert m.quota_metric_tags(ANONYMOUS, "a") == (ANONYMOUS, "a")
    m.update_quota((ANONYMOUS, "a"), None)  # removed: the next one down applies again
    assert limit(m, ANONYMOUS, "a") == 6.0


def test_a_changed_quota_applies_to_the_sensors_already_there():
    time = MockTime()
    m = manager(time)
    m.update_quota((None, "app"), 1000.0)
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "app", 20_000, time.milliseconds()) > 0
    m.update_quota((None, "app"), 1_000_000.0)
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "app", 1, time.milliseconds()) == 0
    m.update_quota((None, "app"), None)
    assert not m.quotas_enabled
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "app", 10**9, time.milliseconds()) == 0


def test_unrecord_takes_bytes_back_and_the_window_caps_a_fetch():
    time = MockTime()
    m = manager(time, QuotaType.FETCH)
    m.update_quota((None, DEFAULT), 1000.0)
    now = time.milliseconds()
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "c", 50_000, now) > 0
    m.unrecord_quota_sensor(ANONYMOUS, "c", 50_000, now)
    assert m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "c", 1, now) == 0
    assert m.max_value_in_quota_window(ANONYMOUS, "c") == 1000.0 * 10 * 1
    assert manager(time).max_value_in_quota_window(ANONYMOUS, "c") == math.inf


def test_idle_sensors_expire_after_an_hour_so_client_ids_do_not_pile_up():
    time = MockTime()
    m = manager(time)
    m.update_quota((None, DEFAULT), 1e9)
    for i in range(100):
        m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, f"client-{i}", 10, time.milliseconds())
    assert m.sensor_count == 100
    time.advance(30 * 60_000)
    m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "client-0", 10, time.milliseconds())
    time.advance(31 * 60_000)  # 61 minutes after the others' last record, 31 after client-0's
    assert [client for _, client, _, _ in m.metric_values(time.milliseconds())] == ["client-0"]
    m.maybe_record_and_get_throttle_time_ms(ANONYMOUS, "newcomer", 10, time.milliseconds())
    assert m.sensor_count == 2


def test_throttle_time_metric_averages_the_throttles_given():
    time = MockTime()
    m = manager(time)
    m.update_quota((None, "app"), 1000.0)
    m.record_throttle_time(ANONYMOUS, "app", 100, time.milliseconds())
    m.record_throttle_time(ANONYMOUS, "app", 300, time.milliseconds())
    [(user, client_id, _, throttle)] = m.metric_values(time.milliseconds())
    assert (user, client_id, throttle) == ("", "app", 200.0)


def test_request_quota_is_a_percentage_of_a_thread_and_throttles_at_most_one_window():
    time = MockTime()
    m = ClientRequestQuotaManager(CONFIG, time)
    m.update_quota((None, "busy"), 10.0)  # request_percentage=10: a tenth of one I/O thread
    # 50 ms of thread time = 5 "percent-seconds", 0.5 %/s over the 10 s window: fine
    assert m.maybe_record_request_time(ANONYMOUS, "busy", 50_000_000, time.milliseconds()) == 0
    # 20 s of thread time: 200 %/s -> (200 - 10) / 10 x 10 s, bounded by one 1 s window
    assert m.maybe_record_request_time(ANONYMOUS, "busy", 20 * 10**9, time.milliseconds()) == 1000
