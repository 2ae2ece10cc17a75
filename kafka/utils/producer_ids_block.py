"""ProducerIdsBlock: a range of producer ids handed to one broker (Kafka's
org.apache.kafka.server.common.ProducerIdsBlock).

Seed 004, idempotence (KIP-98, KIP-730): producer ids must be unique in the whole cluster, so the
active controller hands them out in blocks of PRODUCER_ID_BLOCK_SIZE consecutive ids, and each
broker answers InitProducerId from its own block. The controller makes a block; the broker's
RPCProducerIdManager claims ids from it. Both sides use this one class, as in Kafka, so it lives
below both of them.
"""

from __future__ import annotations

PRODUCER_ID_BLOCK_SIZE = 1000


class ProducerIdsBlock:
    """[first_producer_id, first_producer_id + size); `claim_next_id` counts through it. Not
    thread-safe on its own: the RPCProducerIdManager claims under its lock."""

    __slots__ = ("assigned_broker_id", "first_producer_id", "size", "_next")

    def __init__(self, assigned_broker_id: int, first_producer_id: int, size: int) -> None:
        self.assigned_broker_id = assigned_broker_id
        self.first_producer_id = first_producer_id
        self.size = size
        self._next = first_producer_id

    @property
    def last_producer_id(self) -> int:
        """The last id of the block, inclusive."""
        return self.first_producer_id + self.size - 1

    @property
    def next_block_first_id(self) -> int:
        """Where the block after this one starts: what a ProducerIdsRecord calls next_producer_id."""
        return self.first_producer_id + self.size

    def claim_next_id(self) -> int | None:
        """The next unclaimed id, or None once every id of the block has been handed out."""
        if self._next > self.last_producer_id:
            return None
        claimed, self._next = self._next, self._next + 1
        return claimed

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ProducerIdsBlock) and self.assigned_broker_id == other.assigned_broker_id
                and self.first_producer_id == other.first_producer_id and self.size == other.size)

    def __hash__(self) -> int:
        return hash((self.assigned_broker_id, self.first_producer_id, self.size))

    def __repr__(self) -> str:
        return (f"ProducerIdsBlock(assigned_broker_id={self.assigned_broker_id}, "
                f"first_producer_id={self.first_producer_id}, size={self.size})")


# No ids at all: a broker starts with it, so its first claim asks the controller for a block.
EMPTY = ProducerIdsBlock(-1, 0, 0)
