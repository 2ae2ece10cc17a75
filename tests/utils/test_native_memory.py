import ctypes

from kafka.utils.native_memory import release_free_memory, use_one_malloc_arena


def test_the_glibc_calls_are_made_where_there_is_glibc_and_skipped_elsewhere():
    libc = ctypes.CDLL(None)
    is_glibc = hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt")
    assert release_free_memory() is is_glibc
    assert use_one_malloc_arena() is is_glibc
