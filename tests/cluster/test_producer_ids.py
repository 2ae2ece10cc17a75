"""Three KRaft nodes as real processes: the producer ids each broker hands out come from blocks the
one active controller allocated (KIP-730), so ids from different brokers never collide."""

from __future__ import annotations

import pytest

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from tests.cluster.kraft_cluster import started_cluster
from tests.helpers import wait_until
from tests.wire import WireClient

pytestmark = pytest.mark.timeout(300)


def producer_id(port: int) -> int | None:
    """One InitProducerId; None while the node is still starting (or answers that it is loading)."""
    try:
        client = WireClient(port, timeout=5)
    except OSError:
        return None
    try:
        answer = client.request(ApiKey.INIT_PRODUCER_ID, 4, {"transactional_id": None,
                                                            "transaction_timeout_ms": 60_000})
    except (OSError, ConnectionError):
        return None
    finally:
        client.close()
    if answer.error_code == Errors.COORDINATOR_LOAD_IN_PROGRESS:
        return None
    assert (answer.error_code, answer.producer_epoch) == (Errors.NONE, 0)
    return answer.producer_id


def test_producer_ids_from_three_brokers_never_collide(tmp_path, request):
    with started_cluster(tmp_path, request) as cluster:
        ids: dict[int, list[int]] = {}
        for node_id, node in cluster.nodes.items():
            port = node.broker_port
            # id 0 is falsy
            first = wait_until(lambda port=port: [i] if (i := producer_id(port)) is not None else None,
                               timeout=90, message=f"InitProducerId on node {node_id}", interval=0.2)
            ids[node_id] = first + [producer_id(port) for _ in range(4)]
        every_id = [i for node_ids in ids.values() for i in node_ids]
        assert None not in every_id
        assert len(set(every_id)) == len(every_id) == 15, ids
        # Each broker took a block of its own from the one active controller: [k * 1000, k * 1000 + 999].
        blocks = {node_id: {i // 1000 for i in node_ids} for node_id, node_ids in ids.items()}
        assert all(len(b) == 1 for b in blocks.values()), blocks
        assert len({b.pop() for b in blocks.values()}) == 3, ids
