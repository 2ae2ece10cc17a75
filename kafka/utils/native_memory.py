"""The C heap under the broker: one malloc arena, and its free pages given back after a topic is deleted.

Kafka runs on the JVM, whose collector hands unused heap back on its own. CPython frees an object
at once, but into the C allocator, and glibc keeps freed pages for reuse. By default glibc also
gives each thread that allocates its own arena (up to eight per core), so each network thread and
I/O thread that ever held a 1 MB produce request keeps its own arena at its high-water mark.
Nothing leaks, yet a broker whose topics were all deleted stayed 13 MB above its idle size, and
grew a little with each run.

Two calls fix that, measured with `make bench` (docs/performance.md, "Memory"):

* `use_one_malloc_arena()` at start-up, before the threads exist. Under the GIL only one thread runs
  Python at a time, so the arenas bought no parallelism: throughput did not change.
* `release_free_memory()` (malloc_trim) where memory was just let go of in bulk: after a topic's
  partitions are deleted. Resident memory then returns to its idle figure.

(Fixing glibc's mmap threshold at 128 KiB also unmapped every large buffer when freed, but made
each produce request fault in fresh pages: a third of the throughput.) On a C library that is not
glibc (musl, macOS) both calls do nothing.
"""

from __future__ import annotations

import ctypes

M_ARENA_MAX = -8  # glibc's mallopt parameter number, from <malloc.h>


def _glibc():
    try:
        libc = ctypes.CDLL(None)  # the C library this process already runs on
        return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None
    except OSError:
        return None


_GLIBC = _glibc()


def use_one_malloc_arena() -> bool:
    """Make every thread allocate from the main arena; True if this is glibc and it agreed."""
    return _GLIBC is not None and _GLIBC.mallopt(M_ARENA_MAX, 1) == 1


def release_free_memory() -> bool:
    """Return the C heap's free pages to the OS; True if there was a malloc_trim to call."""
    if _GLIBC is None:
        return False
    _GLIBC.malloc_trim(0)
    return True
