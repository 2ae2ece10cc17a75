"""ConsumerGroupMetadata: who a consumer is in its group, for a transactional producer to name
(Kafka's clients.consumer.ConsumerGroupMetadata, KIP-447).

Consume-transform-produce commits the consumer's offsets with the producer's transaction
(``send_offsets_to_transaction``). The producer sends this to the group coordinator in
TxnOffsetCommit v3, so a consumer that lost its partitions in a rebalance (an older generation, or
a member the group no longer has) cannot commit offsets for them: a zombie is fenced by the group,
without one transactional id per input partition.
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_GENERATION_ID = -1
UNKNOWN_MEMBER_ID = ""


@dataclass(frozen=True)
class ConsumerGroupMetadata:
    group_id: str
    generation_id: int = UNKNOWN_GENERATION_ID
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None
