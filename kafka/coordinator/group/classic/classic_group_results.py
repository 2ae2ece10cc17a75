"""What the classic protocol answers: JoinGroupResult and SyncGroupResult (Kafka's
JoinGroupResponseData and SyncGroupResponseData, cut down to the fields the coordinator decides;
KafkaApis builds the wire response). The LeavingMember a LeaveGroup names is a request's part
(group_coordinator_requests.py).

A JoinGroup or SyncGroup may be parked until the rebalance moves on, so its result goes to a callback,
possibly from a later event of the shard (a timer, another member's request, the append of the
group's record); a Heartbeat or LeaveGroup is answered in the CoordinatorResult of its own event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kafka.protocol.errors import Errors

UNKNOWN_MEMBER_ID = ""  # the member id of a first JoinGroup, before the coordinator gave one


@dataclass
class JoinGroupResult:
    error: Errors
    member_id: str = UNKNOWN_MEMBER_ID
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str = ""
    members: list[dict] = field(default_factory=list)  # only the leader's result carries them
    skip_assignment: bool = False  # v9 (KIP-814): a returning static leader keeps the group's assignment


@dataclass
class SyncGroupResult:
    error: Errors
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


JoinCallback = Callable[[JoinGroupResult], None]
SyncCallback = Callable[[SyncGroupResult], None]


def once(callback: Callable) -> Callable:
    """A callback that answers only the first time. A parked JoinGroup may be answered by the group
    and again by a failed append that reverted the group (Kafka completes a CompletableFuture,
    which ignores a second completion): the client must see exactly one response."""
    answered = False

    def answer(result) -> None:
        nonlocal answered
        if not answered:
            answered = True
            callback(result)

    return answer
