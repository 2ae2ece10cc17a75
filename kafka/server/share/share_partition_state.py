"""SharePartitionState: where a SharePartition is in its life (Kafka's
kafka.server.share.SharePartition.SharePartitionState).

    EMPTY --maybe_initialize--> INITIALIZING --the persister's state read--> ACTIVE
                                             --the read failed-------------> FAILED
    any state --the leadership it belonged to is over--> FENCED

Only an ACTIVE share partition is fetched from. maybe_initialize answers a caller that finds it
INITIALIZING or FENCED with LEADER_NOT_AVAILABLE (retry: the read is under way, or a new leader has
it), and one that finds it FAILED with UNKNOWN_SERVER_ERROR.
"""

from __future__ import annotations

from enum import Enum


class SharePartitionState(Enum):
    EMPTY = "empty"  # not read from the persister yet
    INITIALIZING = "initializing"
    ACTIVE = "active"
    FAILED = "failed"
    FENCED = "fenced"  # the leadership it belonged to is over
