"""GroupOffsetsResetter: the new offsets an offset reset asks for (Kafka's
org.apache.kafka.tools.GroupOffsetsResetter).

A reset names its partitions (``--topic T``, every partition of T, or ``--topic T:0,2``), and how to
find each one's new offset: the earliest or latest offset of the log, an offset of one's own (kept
within the log: past its end it is its end, before its start its start), the first offset written at or
after a time, a plan in a CSV file, or (for a share group) where it starts now. Every offset is asked of
the partition's leader (ListOffsets through the AdminClient). kafka-share-groups --reset-offsets uses it;
it then prints what it found (``print_offsets_to_reset``) and, with --execute, sets it.
"""

from __future__ import annotations

import argparse
from datetime import datetime

import structlog

from kafka.clients.admin import AdminClient
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.tools.GroupOffsetsResetter")


def names(partitions: list[TopicPartition]) -> str:
    return ",".join(f"{tp.topic}-{tp.partition}" for tp in partitions)


class GroupOffsetsResetter:
    def __init__(self, admin: AdminClient) -> None:
        self.admin = admin

    # ------------------------------------------------------------------ which partitions
    def parse_topic_partitions_to_reset(self, topic_args: list[str]) -> list[TopicPartition]:
        """Kafka's parseTopicPartitionsToReset: the partitions named (topic:0,1,2), then every partition
        of each topic named alone. A bad argument is Kafka's IllegalArgumentException (a usage error)."""
        named, whole = [], []
        for arg in topic_args:
            if ":" not in arg:
                whole.append(arg)
                continue
            topic, _, partitions = arg.partition(":")
            if not partitions or ":" in partitions:
                raise argparse.ArgumentTypeError(f"Invalid topic arg '{arg}', expected topic name and "
                                                 "partitions")
            for p in partitions.split(","):
                if not p.strip().lstrip("-").isdigit():
                    raise argparse.ArgumentTypeError(f"Invalid partition '{p}' specified in topic arg "
                                                     f"'{arg}''")
                named.append(TopicPartition(topic, int(p)))
        described = self.admin.describe_topics(whole) if whole else {}
        return named + [TopicPartition(t, p.partition) for t, d in described.items() for p in d.partitions]

    def check_all_topic_partitions_valid(self, partitions: list[TopicPartition]) -> None:
        """Kafka's checkAllTopicPartitionsValid: every partition exists and has a leader."""
        topics = sorted({tp.topic for tp in partitions} & self.admin.list_topics(include_internal=True))
        described = self.admin.describe_topics(topics) if topics else {}
        leaders = {TopicPartition(t, p.partition): p.leader for t, d in described.items()
                   for p in d.partitions}
        missing = [tp for tp in partitions if tp not in leaders]
        if missing:
            raise KafkaError(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                             f'The partitions "{names(missing)}" do not exist')
        leaderless = [tp for tp in partitions if leaders[tp] < 0]
        if leaderless:
            raise KafkaError(Errors.LEADER_NOT_AVAILABLE,
                             f'The partitions "{names(leaderless)}" have no leader')

    # ------------------------------------------------------------------ the scenarios
    def log_offsets(self, partitions: list[TopicPartition], spec) -> dict[TopicPartition, int]:
        if not partitions:
            return {}
        return {tp: offset
                for tp, (offset, _) in self.admin.list_offsets({tp: spec for tp in partitions}).items()}

    def reset_to_earliest(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        return self.log_offsets(partitions, "earliest")

    def reset_to_latest(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        return self.log_offsets(partitions, "latest")

    def reset_to_offset(self, partitions: list[TopicPartition], offset: int) -> dict[TopicPartition, int]:
        return self.check_offsets_range({tp: offset for tp in partitions})

    def check_offsets_range(self, requested: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
        """Kafka's checkOffsetsRange: past the log's end is its end, before its start its start (with a
        warning)."""
        earliest, latest = self.reset_to_earliest(list(requested)), self.reset_to_latest(list(requested))
        result = {}
        for tp, offset in requested.items():
            if offset > latest[tp]:
                log.warning(f"New offset ({offset}) is higher than latest offset for topic partition "
                            f"{tp.topic}-{tp.partition}. Value will be set to {latest[tp]}.")
                offset = latest[tp]
            elif offset < earliest[tp]:
                log.warning(f"New offset ({offset}) is lower than earliest offset for topic partition "
                            f"{tp.topic}-{tp.partition}. Value will be set to {earliest[tp]}.")
                offset = earliest[tp]
            result[tp] = offset
        return result

    def reset_to_date_time(self, partitions: list[TopicPartition], text: str) -> dict[TopicPartition, int]:
        """Kafka's resetToDateTime: the first offset at or after the time ('YYYY-MM-DDThh:mm:ss.sss', local
        time unless a zone is given); a partition with nothing since falls back to its latest offset."""
        if "T" not in text:
            raise argparse.ArgumentTypeError("Error parsing timestamp. It does not contain a 'T' according "
                                             "to ISO8601 format")
        found = self.log_offsets(partitions, int(datetime.fromisoformat(text).timestamp() * 1000))
        empty = [tp for tp in partitions if found[tp] == -1]
        for tp in empty:
            print(f"\nWarn: Partition {tp.partition} from topic {tp.topic} is empty. Falling back to latest "
                  "known offset.")
        return {**found, **self.reset_to_latest(empty)}

    def reset_plan_from_file(self, path: str, group_id: str) -> dict[TopicPartition, int]:
        """Kafka's resetPlanFromFile, one group's part: CSV lines topic,partition,offset (the group's own)
        or group,topic,partition,offset."""
        with open(path, encoding="utf-8") as f:
            rows = [line.strip().split(",") for line in f if line.strip()]
        if all(len(r) == 3 for r in rows):
            rows = [[group_id, *r] for r in rows]
        return {TopicPartition(t, int(p)): int(o) for g, t, p, o in rows if g == group_id}

    def reset_from_file(self, path: str, group_id: str) -> dict[TopicPartition, int]:
        plan = self.reset_plan_from_file(path, group_id)
        if not plan:
            print(f"\nError: No reset plan for group {group_id} found.")
            return {}
        return self.check_offsets_range(plan)

    def reset_to_current_for_share_group(self, partitions: list[TopicPartition],
                                         current: dict) -> dict[TopicPartition, int]:
        """Kafka's resetToCurrentForShareGroup: where each share partition starts now; the log's end for
        one the group has not started yet."""
        latest = self.reset_to_latest([tp for tp in partitions if current.get(tp) is None])
        return {tp: latest[tp] if tp in latest else current[tp].start_offset for tp in partitions}

    # ------------------------------------------------------------------ output
    @staticmethod
    def print_offsets_to_reset(group_id: str, offsets: dict[TopicPartition, int]) -> None:
        """Kafka's printOffsetsToReset: GROUP and TOPIC at least 15 wide (a blank line when nothing)."""
        g, t = max(15, len(group_id)), max([15] + [len(tp.topic) for tp in offsets])
        out = f"\n{'GROUP'.ljust(g)} {'TOPIC'.ljust(t)} {'PARTITION'.ljust(10)} NEW-OFFSET" if offsets else ""
        for tp, offset in sorted(offsets.items()):
            out += f"\n{group_id.ljust(g)} {tp.topic.ljust(t)} {str(tp.partition).ljust(10)} {offset}"
        print(out)
