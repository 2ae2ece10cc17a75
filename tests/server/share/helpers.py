"""Driving a SharePartitionManager as ShareApis does, for the tests."""

from __future__ import annotations

from kafka.server.replica_manager import FetchParams
from kafka.server.share.share_acknowledgement_batch import ShareAcknowledgementBatch
from tests.server.share.conftest import GROUP, TIP

ACCEPT, RELEASE, REJECT, RENEW = 1, 2, 3, 4


def fetch(env, member: str, max_records: int = 500, min_bytes: int = 1, max_wait_ms: int = 0,
          isolation_level: int = 0, acquire_mode: int = 0, batch_size: int = 500):
    """A share fetch's future (done at once when max_wait_ms is 0)."""
    params = FetchParams(replica_id=-1, max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=1 << 20,
                         isolation_level=isolation_level)
    return env.manager.fetch_messages(GROUP, member, params, acquire_mode, 1, max_records, batch_size, [TIP])


def acquired(env, member: str, **kwargs) -> list[tuple[int, int, int]]:
    """What one share fetch acquired for `member`: (first, last, delivery count) runs."""
    future = fetch(env, member, **kwargs)
    assert future.done(), "a fetch without max wait answers at once"
    data = future.result().get(TIP)
    assert data is None or data["error_code"] == 0, data
    records = (data or {}).get("acquired_records", [])
    return [(r["first_offset"], r["last_offset"], r["delivery_count"]) for r in records]


def acknowledge(env, member: str, first: int, last: int, *types: int):
    """(error, message) of one acknowledgement batch."""
    future = env.manager.acknowledge(member, GROUP,
                                     {TIP: [ShareAcknowledgementBatch(first, last, tuple(types))]})
    assert future.done()
    return future.result()[TIP]


def window(env) -> tuple[int, int]:
    share_partition = env.manager.share_partition(GROUP, TIP)
    return share_partition.start_offset, share_partition.end_offset


def states(env) -> list[tuple[int, int, str, int]]:
    """The share partition's window as (first, last, state, delivery count) per batch or offset."""
    out = []
    for batch in env.manager.share_partition(GROUP, TIP).cached_state():
        if batch.offset_state is None:
            out.append((batch.first_offset, batch.last_offset, batch.state.name, batch.delivery_count))
        else:
            out += [(o, o, s.state.name, s.delivery_count) for o, s in batch.offset_state.items()]
    return out
