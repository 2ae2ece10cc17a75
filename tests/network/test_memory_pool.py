"""SimpleMemoryPool (Kafka's SimpleMemoryPoolTest): what it grants, refuses and counts, on MockTime."""

from __future__ import annotations

import mmap

import pytest

from kafka.network.memory_pool import LAZY_BUFFER_BYTES, UNBOUNDED, SimpleMemoryPool
from kafka.utils.time import MockTime


def pool(size: int = 1000, max_single: int = 600, strict: bool = False, time: MockTime | None = None):
    return SimpleMemoryPool(size, max_single, strict, (time or MockTime()).nanoseconds)


def test_a_non_strict_pool_grants_while_anything_is_left_then_refuses_until_released():
    p = pool()
    a = p.try_allocate(600)
    b = p.try_allocate(600)  # only 400 left, but not strict: granted, as Kafka's broker pool is
    assert a is not None and b is not None
    assert p.available_memory == -200 and p.is_out_of_memory
    assert p.try_allocate(1) is None
    p.release(a)
    assert p.available_memory == 400 and not p.is_out_of_memory
    assert p.try_allocate(10) is not None


def test_a_strict_pool_grants_only_what_fits():
    p = pool(strict=True)
    assert p.try_allocate(600) is not None
    assert p.try_allocate(500) is None
    assert p.try_allocate(400) is not None


def test_an_allocation_over_the_single_limit_is_an_error():
    with pytest.raises(ValueError):
        pool().try_allocate(601)


def test_depleted_time_runs_from_the_first_refusal_to_the_next_release():
    time = MockTime()
    p = pool(time=time)
    buffer = p.try_allocate(600)
    p.try_allocate(600)
    time.sleep(5)
    assert p.depleted_time_ns() == 0  # out of memory, but nobody has been refused yet
    assert p.try_allocate(10) is None
    time.sleep(30)
    assert p.depleted_time_ns() == 30_000_000  # the spell under way counts
    p.release(buffer)
    time.sleep(100)
    assert p.depleted_time_ns() == 30_000_000


def test_large_buffers_are_memory_maps_small_ones_bytearrays():
    assert isinstance(UNBOUNDED.try_allocate(LAZY_BUFFER_BYTES), mmap.mmap)
    assert isinstance(UNBOUNDED.try_allocate(100), bytearray)
    assert not UNBOUNDED.is_out_of_memory
