"""IdleExpiryManager on MockTime: connections silent for connections.max.idle.ms come out, oldest first."""

from __future__ import annotations

from kafka.network.idle_expiry_manager import IdleExpiryManager
from kafka.utils.time import MockTime


def test_only_connections_idle_longer_than_the_limit_expire():
    time = MockTime()
    idle = IdleExpiryManager(1000, time)
    idle.update("a")
    time.sleep(400)
    idle.update("b")
    time.sleep(601)
    assert idle.poll_expired_connections() == ["a"]
    assert idle.poll_expired_connections() == []  # forgotten once returned
    time.sleep(400)
    assert idle.poll_expired_connections() == ["b"]


def test_activity_keeps_a_connection_open():
    time = MockTime()
    idle = IdleExpiryManager(1000, time)
    idle.update("a")
    idle.update("b")
    for _ in range(5):
        time.sleep(900)
        idle.update("a")
        expired = idle.poll_expired_connections()
        if expired:
            assert expired == ["b"]
    assert len(idle) == 1


def test_every_expired_connection_comes_out_in_one_poll_and_removed_ones_never():
    time = MockTime()
    idle = IdleExpiryManager(100, time)
    for name in "abcde":
        idle.update(name)
    idle.remove("c")
    time.sleep(101)
    assert idle.poll_expired_connections() == ["a", "b", "d", "e"]
