"""release_free_memory: give the C heap's free pages back to the operating system (glibc's malloc_trim).

Kafka runs on the JVM, whose collector hands unused heap back on its own. CPython frees an object
at once, but into the C allocator, and glibc keeps freed pages for reuse: each thread that handled
a 1 MB produce request keeps its arena at its high-water mark. Nothing leaks (the next burst
reuses those pages), yet a broker whose topics were all deleted would stay as big as it was at
its busiest. malloc_trim(0) returns every free page.

The broker calls this where memory was just let go of in bulk: after a topic's partitions are
deleted. (The other cure, fixing glibc's mmap threshold at 128 KiB so every large buffer is
unmapped when freed, made each produce request fault in fresh pages: a third of the throughput.)
"""

from __future__ import annotations

import ctypes


def _find_malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim  # the C library this process already runs on
    except (OSError, AttributeError):
        return None  # not glibc (musl, macOS): their allocators decide for themselves


_MALLOC_TRIM = _find_malloc_trim()


def release_free_memory() -> bool:
    """Return the C heap's free pages to the OS; True if there was a malloc_trim to call."""
    if _MALLOC_TRIM is None:
        return False
    _MALLOC_TRIM(0)
    return True
