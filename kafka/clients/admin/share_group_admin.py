"""The share-group part of the AdminClient (KIP-932): Kafka's Admin.describeShareGroups,
listShareGroupOffsets, alterShareGroupOffsets, deleteShareGroupOffsets and deleteShareGroups, whose
requests Kafka's admin internals build (DescribeShareGroupsHandler, ListShareGroupOffsetsHandler,
AlterShareGroupOffsetsHandler, DeleteShareGroupOffsetsHandler, DeleteShareGroupsHandler).

Every call goes to the group's coordinator, found with FindCoordinator as for any group. A share group
commits no offsets: what these calls read and change is each share partition's *start offset*, which
the share coordinator keeps for the group. An error the coordinator may answer while it moves or loads
(NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...) is retried, as Java's CoordinatorStrategy does,
until default.api.timeout.ms; any other group-level error raises KafkaError.

AdminClient inherits these methods; they use its plumbing (_call, _retrying, _group_coordinator).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafka.clients.admin.descriptions import (
    ShareGroupDescription,
    ShareMemberDescription,
    SharePartitionOffsetInfo,
)
from kafka.clients.errors import KafkaError
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition


class ShareGroupAdmin:
    def _at_coordinator(self, group_id: str, api_key: int, body: dict, group_error):
        """(the coordinator's node id, its response). ``group_error(response)`` is the group-level
        (error, message) to raise; a retriable one is asked again, of the coordinator looked up again,
        until the timeout."""
        def attempt(remaining_ms: float):
            coordinator = self._group_coordinator(group_id)
            response = self._call(coordinator, api_key, body)
            error, message = group_error(response)
            if error != Errors.NONE:
                raise KafkaError(error, message)
            return coordinator, response
        return self._retrying(attempt)

    def describe_share_groups(self, group_ids: Iterable[str]) -> dict[str, ShareGroupDescription]:
        """Each group's members, state and epochs (ShareGroupDescribe); a group that does not exist
        raises GROUP_ID_NOT_FOUND, as Kafka 4.4's Admin fails its future."""
        result = {}
        for group_id in group_ids:
            body = {"group_ids": [group_id], "include_authorized_operations": False}
            coordinator, response = self._at_coordinator(
                group_id, ApiKey.SHARE_GROUP_DESCRIBE, body,
                lambda r: (r.groups[0].error_code, r.groups[0].error_message))
            g = response.groups[0]
            members = [ShareMemberDescription(m.member_id, m.rack_id, m.client_id, m.client_host, sorted(
                TopicPartition(t.topic_name, p) for t in m.assignment.topic_partitions for p in t.partitions),
                m.member_epoch) for m in g.members]
            result[group_id] = ShareGroupDescription(g.group_id, members, g.group_state,
                                                     self.client.node(coordinator),
                                                     g.group_epoch, g.assignment_epoch)
        return result

    def list_share_group_offsets(self, group_specs: Mapping[str, Iterable[TopicPartition] | None]
                                 ) -> dict[str, dict[TopicPartition, SharePartitionOffsetInfo | None]]:
        """{group: {partition: its start offset, leader epoch and lag}} (DescribeShareGroupOffsets); a
        spec of None asks for every partition with share state. A partition the group has not started
        reading yet maps to None; one the coordinator answered with an error is left out (Kafka's
        ListShareGroupOffsetsHandler logs and skips it)."""
        result = {}
        for group_id, partitions in group_specs.items():
            topics = None
            if partitions is not None:
                by_topic: dict[str, list[int]] = {}
                for tp in partitions:
                    by_topic.setdefault(tp.topic, []).append(tp.partition)
                topics = [{"topic_name": t, "partitions": ps} for t, ps in by_topic.items()]
            body = {"groups": [{"group_id": group_id, "topics": topics}]}
            _, response = self._at_coordinator(group_id, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, body,
                                               lambda r: (r.groups[0].error_code, r.groups[0].error_message))
            offsets: dict[TopicPartition, SharePartitionOffsetInfo | None] = {}
            for t in response.groups[0].topics:
                for p in t.partitions:
                    if p.error_code != Errors.NONE:
                        continue
                    lag, epoch = p.get("lag", -1), p.leader_epoch
                    info = SharePartitionOffsetInfo(p.start_offset, epoch if epoch >= 0 else None,
                                                    lag if lag >= 0 else None)
                    tp = TopicPartition(t.topic_name, p.partition_index)
                    offsets[tp] = None if p.start_offset < 0 else info
            result[group_id] = offsets
        return result

    def alter_share_group_offsets(self, group_id: str, offsets: Mapping[TopicPartition, int]
                                  ) -> dict[TopicPartition, KafkaError | None]:
        """Set where an empty share group starts reading each partition (AlterShareGroupOffsets). A
        group-level refusal (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...) is every partition's error, as
        Kafka's AlterShareGroupOffsetsHandler answers."""
        by_topic: dict[str, list[dict]] = {}
        for tp, offset in offsets.items():
            by_topic.setdefault(tp.topic,
                                []).append({"partition_index": tp.partition, "start_offset": offset})
        body = {"group_id": group_id,
                "topics": [{"topic_name": t, "partitions": ps} for t, ps in by_topic.items()]}
        try:
            _, response = self._at_coordinator(group_id, ApiKey.ALTER_SHARE_GROUP_OFFSETS, body,
                                               lambda r: (r.error_code, r.error_message))
        except KafkaError as e:
            if e.retriable:
                raise
            return {tp: e for tp in offsets}
        return {TopicPartition(t.topic_name, p.partition_index): self._result(p.error_code, p.error_message)
                for t in response.responses for p in t.partitions}

    def delete_share_group_offsets(self, group_id: str,
                                   topics: Iterable[str]) -> dict[str, KafkaError | None]:
        """Forget the share group's state for whole topics (DeleteShareGroupOffsets): {topic: error}.
        A group-level refusal raises."""
        body = {"group_id": group_id, "topics": [{"topic_name": t} for t in dict.fromkeys(topics)]}
        _, response = self._at_coordinator(group_id, ApiKey.DELETE_SHARE_GROUP_OFFSETS, body,
                                           lambda r: (r.error_code, r.error_message))
        return {t.topic_name: self._result(t.error_code, t.error_message) for t in response.responses}

    def delete_share_groups(self, group_ids: Iterable[str]) -> dict[str, KafkaError | None]:
        """Delete empty share groups and their share state (DeleteGroups, as Kafka's
        DeleteShareGroupsHandler sends it)."""
        return self.delete_consumer_groups(group_ids)

