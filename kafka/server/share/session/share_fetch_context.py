"""ShareSessionContext and FinalContext: how one ShareFetch uses its share session (Kafka's
org.apache.kafka.server.share.context.ShareFetchContext, ShareSessionContext and FinalContext).

An opening request (epoch 0) answers every partition it names. A subsequent one (epoch N) fetches
the session's partitions and answers only those with something to say (records, an error, or news
since the last answer), checking the epoch has not moved on meanwhile (a duplicate request gets
INVALID_SHARE_SESSION_EPOCH). The closing request (epoch -1) fetches nothing: FinalContext.
"""

from __future__ import annotations

from kafka.protocol.errors import Errors
from kafka.server.share.session.share_session import ShareSession, next_epoch
from kafka.server.share.share_fetch import partition_response
from kafka.utils.topic_id_partition import TopicIdPartition


class ShareFetchContext:
    def erroneous_and_valid_partitions(self) -> tuple[dict[TopicIdPartition, dict], list[TopicIdPartition]]:
        """(partitions answered with an error now, partitions to fetch)."""
        raise NotImplementedError

    def update_and_generate_response_data(self, updates: dict[TopicIdPartition, dict]
                                          ) -> tuple[Errors, dict[TopicIdPartition, dict]]:
        raise NotImplementedError


class FinalContext(ShareFetchContext):
    def erroneous_and_valid_partitions(self):
        return {}, []

    def update_and_generate_response_data(self, updates):
        return Errors.NONE, updates


class ShareSessionContext(ShareFetchContext):
    def __init__(self, epoch: int, share_fetch_data: list[TopicIdPartition] | None = None,
                 session: ShareSession | None = None) -> None:
        self.epoch = epoch
        self.share_fetch_data = share_fetch_data or []
        self.session = session
        self.is_subsequent = session is not None

    def erroneous_and_valid_partitions(self):
        if not self.is_subsequent:
            return {}, list(self.share_fetch_data)
        erroneous, valid = {}, []
        for tip in self.session.partitions():
            if tip.topic is None:  # a topic id this broker does not know
                erroneous[tip] = partition_response(tip, Errors.UNKNOWN_TOPIC_ID)
            else:
                valid.append(tip)
        return erroneous, valid

    def update_and_generate_response_data(self, updates):
        if not self.is_subsequent:
            return Errors.NONE, updates
        with self.session.lock:
            if self.session.epoch != next_epoch(self.epoch):
                return Errors.INVALID_SHARE_SESSION_EPOCH, {}
            kept = {}
            for tip, data in updates.items():
                cached = self.session.partition_map.get(tip)
                if cached is None or cached.maybe_update_response_data(data, True):
                    kept[tip] = data
        return Errors.NONE, kept
