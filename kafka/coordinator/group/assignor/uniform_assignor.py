"""UniformAssignor: the default broker-side assignor, "uniform" (Kafka's
org.apache.kafka.coordinator.group.assignor.UniformAssignor).

Spreads the partitions of the subscribed topics evenly over the members that subscribe to them,
and is sticky: a member keeps what its current target gives it as long as that keeps the counts
within one of each other, so a member joining moves only the partitions it needs (3 members of a
12-partition topic hold 4 each; a fourth takes one from each, the rest stay where they are).
Kafka has two builders (homogeneous and heterogeneous subscriptions); this one greedy, sticky pass
followed by balancing moves covers both.
"""

from __future__ import annotations

import uuid

from kafka.coordinator.group.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
    MemberSubscription,
    freeze,
)
from kafka.coordinator.group.modern.consumer.consumer_group_member import Assignment


class UniformAssignor(ConsumerGroupPartitionAssignor):
    name = "uniform"

    def assign(self, members: dict[str, MemberSubscription],
               partitions_per_topic: dict[uuid.UUID, int]) -> dict[str, Assignment]:
        owned: dict[str, set[tuple[uuid.UUID, int]]] = {m: set() for m in members}
        taken: set[tuple[uuid.UUID, int]] = set()
        for member_id in sorted(members):  # sticky: keep what is still valid
            spec = members[member_id]
            for topic_id, partitions in spec.current_assignment.items():
                if topic_id in spec.subscribed_topic_ids:
                    for p in partitions:
                        if p < partitions_per_topic.get(topic_id, 0) and (topic_id, p) not in taken:
                            owned[member_id].add((topic_id, p))
                            taken.add((topic_id, p))
        every = [(t, p) for t in sorted(partitions_per_topic, key=str)
                 for p in range(partitions_per_topic[t])]
        for tp in every:  # each free partition to the least loaded member that reads its topic
            eligible = [m for m in sorted(members) if tp[0] in members[m].subscribed_topic_ids]
            if tp not in taken and eligible:
                target = min(eligible, key=lambda m: len(owned[m]))
                owned[target].add(tp)
        self.balance(members, owned)
        result = {}
        for member_id, partitions in owned.items():
            by_topic: dict[uuid.UUID, set[int]] = {}
            for topic_id, p in partitions:
                by_topic.setdefault(topic_id, set()).add(p)
            result[member_id] = freeze(by_topic)
        return result

    @staticmethod
    def balance(members: dict[str, MemberSubscription], owned: dict[str, set[tuple[uuid.UUID, int]]]) -> None:
        """Move one partition at a time from the most to the least loaded member that can read it,
        until no move narrows the gap: the fewest moves that leave counts within one of each other."""
        moved = True
        while moved:
            moved = False
            for giver in sorted(owned, key=lambda m: (-len(owned[m]), m)):
                for taker in sorted(owned, key=lambda m: (len(owned[m]), m)):
                    if len(owned[giver]) - len(owned[taker]) <= 1:
                        break
                    movable = sorted((tp for tp in owned[giver]
                                      if tp[0] in members[taker].subscribed_topic_ids),
                                     key=lambda tp: (str(tp[0]), -tp[1]))
                    if movable:
                        owned[giver].remove(movable[0])
                        owned[taker].add(movable[0])
                        moved = True
                        break
                if moved:
                    break
