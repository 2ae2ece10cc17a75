"""ExponentialBackoff: Kafka's values, doubling from the initial interval up to the cap, jitter within
bounds."""

from __future__ import annotations

import random

from kafka.utils.exponential_backoff import ExponentialBackoff


def test_doubles_up_to_the_cap_without_jitter():
    backoff = ExponentialBackoff(100, 2, 4500, 0.0)
    assert [backoff.backoff(n) for n in range(8)] == [100, 200, 400, 800, 1600, 3200, 4500, 4500]


def test_jitter_stays_within_its_bounds_and_never_passes_the_cap():
    backoff = ExponentialBackoff(100, 2, 4500, 0.02, rng=random.Random(7))
    for attempts in range(6):
        value = backoff.backoff(attempts)
        assert 0.98 * 100 * 2 ** attempts - 1 <= value <= 1.02 * 100 * 2 ** attempts
    assert all(backoff.backoff(50) <= 4500 for _ in range(100))


def test_a_cap_below_the_initial_interval_gives_the_initial_interval():
    assert ExponentialBackoff(100, 2, 50, 0.02).backoff(5) == 100
