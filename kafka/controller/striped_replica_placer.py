"""StripedReplicaPlacer: where a new partition's replicas go
(Kafka's org.apache.kafka.metadata.placement.StripedReplicaPlacer).

Replicas are spread over the usable (registered, unfenced, not shutting down) brokers, and the
starting broker moves on by one for each partition, so that the first replica -- the preferred
leader -- is spread evenly too: six partitions on three brokers give each broker two leaderships.
With racks, consecutive replicas alternate racks so one rack's failure leaves a copy elsewhere.
"""

from __future__ import annotations


class InvalidReplicationFactorError(ValueError):
    pass


def broker_order(brokers: dict[int, str | None]) -> list[int]:
    """Brokers interleaved by rack: r1-b1, r2-b2, r1-b3, ... (every broker once)."""
    by_rack: dict[str | None, list[int]] = {}
    for broker_id in sorted(brokers):
        by_rack.setdefault(brokers[broker_id], []).append(broker_id)
    order: list[int] = []
    racks = sorted(by_rack, key=lambda r: (r is None, r or ""))
    while any(by_rack.values()):
        for rack in racks:
            if by_rack[rack]:
                order.append(by_rack[rack].pop(0))
    return order


def place(start_partition: int, num_partitions: int, replication_factor: int,
          brokers: dict[int, str | None], start_offset: int = 0) -> list[list[int]]:
    """Replica lists for partitions start_partition .. start_partition+num_partitions-1."""
    if replication_factor > len(brokers):
        raise InvalidReplicationFactorError(
            f"Unable to replicate the partition {replication_factor} time(s): The target replication factor "
            "of "
            f"{replication_factor} cannot be reached because only {len(brokers)} broker(s) are registered or "
            "some brokers have all their log directories cordoned.")
    order = broker_order(brokers)
    placements = []
    for p in range(start_partition, start_partition + num_partitions):
        first = (p + start_offset) % len(order)
        placements.append([order[(first + i) % len(order)] for i in range(replication_factor)])
    return placements
