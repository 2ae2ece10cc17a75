import ctypes

from kafka.utils.malloc_trim import release_free_memory


def test_release_free_memory_calls_glibc_malloc_trim_where_there_is_one():
    has_glibc_trim = hasattr(ctypes.CDLL(None), "malloc_trim")
    assert release_free_memory() is has_glibc_trim
