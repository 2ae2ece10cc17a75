"""CooperativeStickyAssignor: balanced, moving as few partitions as possible, and never taking a
partition from its owner in the same rebalance (Kafka's CooperativeStickyAssignor, KIP-429).

Sticky: each member first keeps what it owned (if still subscribed and not over its fair share),
then the unowned partitions go to the members with the fewest. Cooperative: a partition that
moves is first *revoked* -- left out of the new owner's assignment this round -- so its old owner
stops consuming and commits; the old owner then rejoins, and the next rebalance hands it over.
Nobody stops consuming the partitions that stay put.
"""

from __future__ import annotations

from kafka.clients.consumer.assignors.abstract_partition_assignor import (
    AbstractPartitionAssignor,
    RebalanceProtocol,
    Subscription,
    partitions_of,
)
from kafka.utils.topic_partition import TopicPartition


class CooperativeStickyAssignor(AbstractPartitionAssignor):
    name = "cooperative-sticky"
    rebalance_protocol = RebalanceProtocol.COOPERATIVE

    def assign(self, partitions_per_topic: dict[str, int],
               subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        members = sorted(subscriptions)
        all_partitions = [tp for topic, count in sorted(partitions_per_topic.items())
                          if any(topic in s.topics for s in subscriptions.values())
                          for tp in partitions_of(topic, count)]
        if not members:
            return {}
        quota_max = -(-len(all_partitions) // len(members))  # ceil
        assignment = self._keep_owned(subscriptions, set(all_partitions), quota_max)
        taken = {tp for tps in assignment.values() for tp in tps}
        for tp in all_partitions:  # unowned partitions go to the least loaded subscriber
            if tp in taken:
                continue
            candidates = [m for m in members if tp.topic in subscriptions[m].topics]
            if candidates:
                assignment[min(candidates, key=lambda m: (len(assignment[m]), m))].append(tp)
        self._balance(assignment, subscriptions)
        return self._adjust_for_cooperative(assignment, subscriptions)

    @staticmethod
    def _keep_owned(subscriptions: dict[str, Subscription], existing: set[TopicPartition],
                    quota_max: int) -> dict[str, list[TopicPartition]]:
        """Each member keeps what it owned, up to its share; a partition two members claim (a
        member that missed a rebalance) goes to the one with the newer generation."""
        claims: dict[TopicPartition, tuple[int, str]] = {}
        for member, sub in subscriptions.items():
            for tp in sub.owned_partitions:
                if tp in existing and tp.topic in sub.topics:
                    if tp not in claims or sub.generation_id > claims[tp][0]:
                        claims[tp] = (sub.generation_id, member)
        kept: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
        for tp, (_, member) in sorted(claims.items()):
            if len(kept[member]) < quota_max:
                kept[member].append(tp)
        return kept

    @staticmethod
    def _balance(assignment: dict[str, list[TopicPartition]], subscriptions: dict[str, Subscription]) -> None:
        """Move partitions from the most to the least loaded member until counts differ by one."""
        while True:
            most = max(assignment, key=lambda m: (len(assignment[m]), m))
            movable = None
            for least in sorted(assignment, key=lambda m: (len(assignment[m]), m)):
                if len(assignment[most]) - len(assignment[least]) <= 1:
                    break
                movable = next((tp for tp in reversed(assignment[most])
                                if tp.topic in subscriptions[least].topics), None)
                if movable is not None:
                    assignment[most].remove(movable)
                    assignment[least].append(movable)
                    break
            if movable is None:
                return

    @staticmethod
    def _adjust_for_cooperative(assignment: dict[str, list[TopicPartition]],
                                subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        owner = {tp: m for m, s in subscriptions.items() for tp in s.owned_partitions}
        return {m: [tp for tp in tps if owner.get(tp, m) == m] for m, tps in assignment.items()}
