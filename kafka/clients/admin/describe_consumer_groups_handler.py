"""DescribeConsumerGroupsHandler: what a consumer group looks like, read from its coordinator
(Kafka's org.apache.kafka.clients.admin.internals.DescribeConsumerGroupsHandler).

Kafka 4's Admin.describeConsumerGroups asks with ConsumerGroupDescribe (KIP-848) first: a group of
the new protocol comes back with each member's assignment and target assignment, and the group's
epoch and assignment epoch. A group that request does not know (GROUP_ID_NOT_FOUND: a classic
group), or a coordinator that does not speak it (UNSUPPORTED_VERSION), is asked again with
DescribeGroups, whose members carry their assignment as the consumer protocol's bytes; a classic group of
another protocol type (`connect`: Kafka Connect's workers) is refused, as Kafka's handler refuses it.

As Kafka's handlers do, this one only builds the requests and reads their answers; AdminClient
finds the coordinator, sends them, and falls back from the one to the other.
"""

from __future__ import annotations

from kafka.clients.admin.descriptions import ConsumerGroupDescription, MemberDescription
from kafka.clients.errors import KafkaError
from kafka.protocol.consumer_protocol import deserialize_assignment
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition


class DescribeConsumerGroupsHandler:
    def __init__(self, group_id: str) -> None:
        self.group_id = group_id

    # ------------------------------------------------------------------ ConsumerGroupDescribe (KIP-848)
    def consumer_group_describe_request(self) -> dict:
        return {"group_ids": [self.group_id], "include_authorized_operations": False}

    def handle_consumer_group_describe_response(self, response) -> ConsumerGroupDescription | None:
        """The group, or None if the coordinator knows no KIP-848 group by that id (ask
        DescribeGroups)."""
        g = response.groups[0]
        if g.error_code == Errors.GROUP_ID_NOT_FOUND:
            return None
        if g.error_code != Errors.NONE:
            raise KafkaError(g.error_code, f"describing group {self.group_id!r}")
        members = [MemberDescription(m.member_id, m.client_id, m.client_host, _partitions(m.assignment),
                                     m.member_epoch, _partitions(m.target_assignment), m.instance_id)
                   for m in g.members]
        return ConsumerGroupDescription(g.group_id, g.group_state, "consumer", g.assignor_name, members,
                                        "Consumer", g.group_epoch, g.assignment_epoch)

    # ------------------------------------------------------------------ DescribeGroups (classic groups)
    def describe_groups_request(self) -> dict:
        return {"groups": [self.group_id], "include_authorized_operations": False}

    def handle_describe_groups_response(self, response) -> ConsumerGroupDescription:
        g = response.groups[0]
        if g.error_code != Errors.NONE:
            raise KafkaError(g.error_code, f"describing group {self.group_id!r}")
        if g.protocol_type not in ("consumer", ""):  # Connect's workers, say: not a consumer's bytes
            raise ValueError(f"GroupId {self.group_id} is not a consumer group ({g.protocol_type}).")
        members = []
        for m in g.members:
            assignment = []
            if m.member_assignment:
                a = deserialize_assignment(m.member_assignment)
                assignment = [TopicPartition(t.topic, p) for t in a.assigned_partitions for p in t.partitions]
            members.append(MemberDescription(m.member_id, m.client_id, m.client_host, assignment,
                                             group_instance_id=m.get("group_instance_id")))
        return ConsumerGroupDescription(g.group_id, g.group_state, g.protocol_type, g.protocol_data, members)


def _partitions(assignment) -> list[TopicPartition]:
    """A ConsumerGroupDescribe assignment (topic id, name and partitions) as sorted partitions."""
    return sorted(TopicPartition(t.topic_name, p) for t in assignment.topic_partitions for p in t.partitions)
