"""ExpiringErrorCache (Kafka's org.apache.kafka.server.ExpiringErrorCache): a failed creation of a
streams group's internal topic is remembered until its time to live ends, and no more than max_size
topics are: the one expiring first is dropped first."""

from __future__ import annotations

import pytest

from kafka.server.expiring_error_cache import ExpiringErrorCache

pytestmark = pytest.mark.fast


def test_an_error_is_remembered_until_it_expires():
    cache = ExpiringErrorCache(10)
    cache.put("t", "Topic t already exists.", ttl_ms=1000, now_ms=5000)
    assert cache.has_error("t", 5999) and cache.errors_for_topics(["t", "u"], 5999) == {
        "t": "Topic t already exists."}
    assert not cache.has_error("t", 6000) and cache.errors_for_topics(["t"], 6000) == {}


def test_a_newer_error_replaces_the_older_one():
    cache = ExpiringErrorCache(10)
    cache.put("t", "first", ttl_ms=100, now_ms=0)
    cache.put("t", "second", ttl_ms=1000, now_ms=50)
    assert cache.errors_for_topics(["t"], 500) == {"t": "second"}, "the first's expiry leaves it alone"


def test_the_cache_is_bounded_and_drops_what_expires_first():
    cache = ExpiringErrorCache(2)
    cache.put("late", "e", ttl_ms=3000, now_ms=0)
    cache.put("soon", "e", ttl_ms=1000, now_ms=0)
    cache.put("middle", "e", ttl_ms=2000, now_ms=0)
    assert set(cache.errors_for_topics(["late", "soon", "middle"], 10)) == {"late", "middle"}
    cache.clear()
    assert cache.errors_for_topics(["late"], 10) == {}
