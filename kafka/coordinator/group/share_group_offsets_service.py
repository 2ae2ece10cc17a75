"""ShareGroupOffsetsService: a share group's offsets as an admin sees them -- the part of Kafka's
GroupCoordinatorService behind DescribeShareGroupOffsets, AlterShareGroupOffsets,
DeleteShareGroupOffsets and the deletion of share groups (describeShareGroupOffsets,
describeShareGroupAllOffsets, readShareGroupStateSummary, computeShareGroupLagAndBuildResponse,
alterShareGroupOffsets and its persisterInitialize, deleteShareGroupOffsets, deleteShareGroups).

A share group's offsets live in the share coordinator, so each operation pairs this coordinator's
records with calls to the persister, always answering from callbacks:

    describe   which partitions have share state (a read of the shard, unless the topics are named),
               then each one's summary from the persister (ReadShareGroupStateSummary): its
               share-partition start offset and leader epoch, and the lag (KIP-1226): the end of the
               partition less the start offset less the records past it delivered for good
    alter      the shard notes the partitions as initializing; the persister initializes their state
               at the new start offsets (InitializeShareGroupState); then the shard notes them
               initialized
    delete     the shard notes the topics as deleting; the persister deletes their state
               (DeleteShareGroupState); then the shard forgets them

The persister is reached through callables the broker sets (the coordinator layer knows no server
type), each one partition at a time; until then they answer as Kafka's NoOpStatePersister does.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import structlog

from kafka.coordinator.common.runtime.coordinator_operation_exception_helper import handle_operation_exception
from kafka.coordinator.group.share_group_offsets_manager import (
    ZERO_UUID,
    DeleteShareGroupOffsetsResultHolder,
    DeleteShareGroupStateParameters,
    topic_response,
)
from kafka.coordinator.group.share_group_state_partition_metadata import InitializeShareGroupStateParameters
from kafka.protocol.errors import Errors
from kafka.utils.future_utils import all_of, completed, compose, handle
from kafka.utils.topic_partition import TopicPartition

log = structlog.get_logger("kafka.coordinator.group.GroupCoordinatorService")


@dataclass(frozen=True)
class ShareGroupStateSummary:
    """What the persister's read_summary answers for one partition (Kafka's PartitionStateSummaryData):
    start offset -1 is no state yet; -1 for the delivery complete count is "not known" (KIP-1226)."""

    error_code: int = 0
    error_message: str | None = None
    state_epoch: int = 0
    start_offset: int = -1
    leader_epoch: int = -1
    delivery_complete_count: int = -1


def no_share_group_state(group_id: str, topic_id: uuid.UUID, partition: int) -> Future:
    """What Kafka's NoOpStatePersister reads: no state."""
    return completed(ShareGroupStateSummary())


def deleted_at_once(group_id: str, topic_id: uuid.UUID, partition: int) -> Future:
    """What Kafka's NoOpStatePersister deletes: done, no error."""
    return completed(Errors.NONE)


def should_compute_share_partition_lag(summary) -> bool:
    """Kafka's shouldComputeSharePartitionLag: only for state that exists and counts what it delivered."""
    return (summary.error_code == Errors.NONE and summary.start_offset != -1
            and summary.delivery_complete_count != -1)


def group_error(group_id: str, error: Errors, message: str | None = None) -> dict:
    """A DescribeShareGroupOffsetsResponseGroup for a group not described (Kafka's getErrorDescribedGroup)."""
    return dict(group_id=group_id, topics=[], error_code=error, error_message=message or error.message)


def offsets_answer(responses: list[dict], error: Errors = Errors.NONE, message: str | None = None) -> dict:
    """An AlterShareGroupOffsets or DeleteShareGroupOffsets answer: the top-level error (with the error's
    own message when none is given, as Kafka's getErrorResponseData does) and the topics."""
    return dict(error_code=error, error_message=None if error == Errors.NONE else message or error.message,
                responses=responses if error == Errors.NONE else [])


def first_error(codes) -> Errors:
    return next((Errors.for_code(code) for code in codes if code != Errors.NONE), Errors.NONE)


class ShareGroupOffsetsService:
    def __init__(self, write: Callable[[str, str, Callable], Future],
                 read: Callable[[str, str, Callable], Future],
                 not_active: Callable[[], Errors | None], initializer: Callable[..., Future]) -> None:
        self.write = write  # (name, group id, op(shard)) -> the op's answer, once its records commit
        self.read = read  # (name, group id, op(shard, committed offset)) -> the op's answer
        self.not_active = not_active  # COORDINATOR_NOT_AVAILABLE until the service starts
        # the service's share_group_state_initializer (Persister.initializeState)
        self.initializer = initializer
        # What the broker sets (kafka_server.py), one partition a call: Persister.readSummary and
        # deleteState, each a Future; a partition's end offset (its high watermark, None if not known
        # here: the lag is then unknown); the topics now, name -> (topic id, partition count).
        self.share_group_state_summary_reader: Callable[[str, uuid.UUID, int], Future] = no_share_group_state
        self.share_group_state_deleter: Callable[[str, uuid.UUID, int], Future] = deleted_at_once
        self.partition_end_offset: Callable[[TopicPartition], int | None] = lambda tp: None
        self.topics_image: Callable[[], dict[str, tuple[uuid.UUID, int]]] = dict

    # ------------------------------------------------------------------ DescribeShareGroupOffsets
    def describe_share_group_offsets(self, group_id: str,
                                     topics: list[tuple[str, list[int]]] | None) -> Future:
        """Kafka's describeShareGroupOffsets (named topics) and describeShareGroupAllOffsets (None: every
        partition with share state): a DescribeShareGroupOffsetsResponseGroup. A named topic that does
        not exist is answered with start offset -1, as Kafka does, without asking anybody."""
        if (error := self.not_active()) is not None:
            return completed(group_error(group_id, error))
        image = self.topics_image()
        if topics is None:
            return self.describe_share_group_all_offsets(group_id, image)
        wanted: dict[uuid.UUID, list[int]] = {}
        names: dict[uuid.UUID, str] = {}
        unknown = []
        for name, partitions in topics:
            if name in image:
                topic_id = image[name][0]
                names[topic_id] = name
                wanted.setdefault(topic_id, []).extend(partitions)
            else:
                unknown.append(dict(topic_name=name, topic_id=ZERO_UUID, partitions=[
                    dict(partition_index=p, start_offset=-1, leader_epoch=0, lag=-1, error_code=Errors.NONE,
                         error_message=None) for p in partitions]))
        return self.read_share_group_state_summary(group_id, wanted, names, unknown)

    def describe_share_group_all_offsets(self, group_id: str,
                                         image: dict[str, tuple[uuid.UUID, int]]) -> Future:
        names = {topic_id: name for name, (topic_id, _) in image.items()}
        initialized = self.read("share-group-initialized-partitions", group_id,
                                lambda shard,
                                committed: shard.initialized_share_group_partitions(group_id, committed))
        described = compose(initialized, lambda partitions: self.read_share_group_state_summary(
            group_id, {t: sorted(partitions[t]) for t in sorted(partitions, key=lambda t: names.get(t, ""))
                       if t in names}, names, []))
        return handle(described, lambda f: f.result() if f.exception() is None
                      else group_error(group_id,
                                       getattr(f.exception(), "error", Errors.UNKNOWN_SERVER_ERROR)))

    def read_share_group_state_summary(self, group_id: str, wanted: dict[uuid.UUID, list[int]],
                                       names: dict[uuid.UUID, str], unknown: list[dict]) -> Future:
        """Kafka's readShareGroupStateSummary and computeShareGroupLagAndBuildResponse: each partition's
        summary from the persister; a failed read fails the group."""
        if not wanted:
            return completed(dict(group_id=group_id, topics=unknown, error_code=Errors.NONE,
                                  error_message=None))
        asked = [(topic_id, partition) for topic_id, partitions in wanted.items() for partition in partitions]
        try:
            summaries = all_of([self.share_group_state_summary_reader(group_id, t, p) for t, p in asked])
        except Exception as e:  # a persister that cannot even take the call: as if the read failed
            summaries = Future()
            summaries.set_exception(e)

        def build(f: Future) -> dict:
            if f.exception() is not None:
                log.error("failed to read summary of the share partitions", group_id=group_id,
                          error=repr(f.exception()))
                error = getattr(f.exception(), "error", Errors.UNKNOWN_SERVER_ERROR)
                return group_error(group_id, error if isinstance(error, Errors)
                                   else Errors.UNKNOWN_SERVER_ERROR)
            by_topic: dict[uuid.UUID, list[dict]] = {}
            for (topic_id, partition), summary in zip(asked, f.result(), strict=True):
                by_topic.setdefault(topic_id, []).append(
                    self.described_partition(TopicPartition(names[topic_id], partition), summary))
            topics = [dict(topic_name=names[t], topic_id=t, partitions=ps) for t, ps in by_topic.items()]
            return dict(group_id=group_id, topics=topics + unknown, error_code=Errors.NONE,
                        error_message=None)
        return handle(summaries, build)

    def described_partition(self, tp: TopicPartition, summary) -> dict:
        """A partition's start offset and leader epoch (-1 and 0 when the persister failed for it: Kafka
        does not pass that error on), and its lag when it can be computed."""
        ok = summary.error_code == Errors.NONE
        lag = -1
        if should_compute_share_partition_lag(summary):
            end = self.partition_end_offset(tp)
            if end is not None:
                lag = end - summary.start_offset - summary.delivery_complete_count
        return dict(partition_index=tp.partition, start_offset=summary.start_offset if ok else -1,
                    leader_epoch=summary.leader_epoch if ok else 0, lag=lag, error_code=Errors.NONE,
                    error_message=None)

    # ------------------------------------------------------------------ AlterShareGroupOffsets
    def alter_share_group_offsets(self, group_id: str, topics: dict[str, dict[int, int]]) -> Future:
        """Kafka's alterShareGroupOffsets: {error_code, error_message, responses}. ``topics`` maps each
        topic name to {partition: new start offset}."""
        if (error := self.not_active()) is not None:
            return completed(offsets_answer([], error))
        if not group_id:
            return completed(offsets_answer([], Errors.INVALID_GROUP_ID))
        written = self.write("share-group-offsets-alter", group_id,
                             lambda shard: shard.alter_share_group_offsets(group_id, topics))
        answer = compose(written, lambda result: self.persister_initialize(*result))
        return handle(answer, lambda f: f.result() if f.exception() is None else offsets_answer(
            [], *handle_operation_exception("share-group-offsets-alter", group_id, f.exception())))

    def persister_initialize(self, responses: list[dict],
                             parameters: InitializeShareGroupStateParameters) -> Future:
        """Kafka's persisterInitialize for an alter: every partition's state started afresh at its new
        start offset. All done: the shard notes them initialized (the answer does not wait for it). A
        partition the persister refused carries its error; a persister that failed fails them all."""
        group_id = parameters.group_id
        asked = [(topic_id, partition, start) for topic_id, offsets in parameters.start_offsets.items()
                 for partition, start in offsets.items()]
        if not asked:
            return completed(offsets_answer(responses))
        try:
            codes = all_of([self.initializer(group_id, t, p, parameters.state_epoch, start)
                            for t, p, start in asked])
        except Exception as e:
            codes = Future()
            codes.set_exception(e)

        def answer(f: Future) -> dict:
            if f.exception() is not None:
                error = getattr(f.exception(), "error", Errors.UNKNOWN_SERVER_ERROR)
                error = error if isinstance(error, Errors) else Errors.UNKNOWN_SERVER_ERROR
                log.error("could not initialize share state while altering offsets", group_id=group_id,
                          error=repr(f.exception()))
                failed = {(r["topic_id"], p["partition_index"]): error for r in responses
                          for p in r["partitions"]}
                return dict(error_code=error, error_message=str(f.exception()),
                            responses=with_errors(responses, failed, replace_all=True))
            failed = {(t, p): Errors.for_code(code)
                      for (t, p, _), code in zip(asked, f.result(), strict=True) if code != Errors.NONE}
            if failed:
                log.error("persister refused to initialize share state", group_id=group_id,
                          partitions={f"{t}-{p}": e.name for (t, p), e in failed.items()})
                return offsets_answer(with_errors(responses, failed))
            partitions = parameters.topic_partitions()
            written = self.write("initialize-share-group-state", group_id,
                                 lambda shard: shard.initialize_share_group_state(group_id, partitions))
            written.add_done_callback(lambda f: f.exception() is not None and log.error(
                "could not write the altered partitions as initialized", group_id=group_id,
                error=repr(f.exception())))
            return offsets_answer(responses)
        return handle(codes, answer)

    # ------------------------------------------------------------------ DeleteShareGroupOffsets
    def delete_share_group_offsets(self, group_id: str, topic_names: list[str]) -> Future:
        """Kafka's deleteShareGroupOffsets: {error_code, error_message, responses} (one per topic)."""
        if (error := self.not_active()) is not None:
            return completed(offsets_answer([], error))
        if not group_id:
            return completed(offsets_answer([], Errors.INVALID_GROUP_ID))
        written = self.write("initiate-delete-share-group-offsets", group_id,
                             lambda shard: shard.initiate_delete_share_group_offsets(group_id, topic_names))
        answer = compose(written, lambda holder: self.delete_share_group_offsets_state(group_id, holder))
        return handle(answer, lambda f: f.result() if f.exception() is None else offsets_answer(
            [], *handle_operation_exception("initiate-delete-share-group-offsets", group_id, f.exception())))

    def delete_share_group_offsets_state(self, group_id: str,
                                         holder: DeleteShareGroupOffsetsResultHolder) -> Future:
        """Kafka's deleteShareGroupOffsetsState and handleDeleteShareGroupOffsetStateResult: the
        persister deletes the topics' state; the topics it deleted are then forgotten by the shard, those
        it could not are answered with its error."""
        if holder.error != Errors.NONE:
            return completed(offsets_answer([], holder.error, holder.error_message))
        if holder.delete_state is None:
            return completed(offsets_answer(list(holder.error_topic_responses)))
        names = {topic_id: name for name, (topic_id, _) in self.topics_image().items()}

        def deleted(errors: dict[uuid.UUID, Errors]) -> Future:
            refused = [topic_response(names.get(t, ""), t, e) for t, e in errors.items() if e != Errors.NONE]
            done = {t: names.get(t, "") for t, e in errors.items() if e == Errors.NONE}
            if not done:
                return completed(list(holder.error_topic_responses) + refused)
            return self.write("complete-delete-share-group-offsets", group_id,
                              lambda shard: shard.complete_delete_share_group_offsets(
                                  group_id, done, list(holder.error_topic_responses) + refused))

        def answer(f: Future) -> dict:
            if f.exception() is None:
                return offsets_answer(f.result())
            log.error("failed to delete share group state", group_id=group_id, error=repr(f.exception()))
            return offsets_answer([],
                                  *handle_operation_exception("complete-delete-share-group-offsets", group_id,
                                                                  f.exception()))
        return handle(compose(self.delete_share_group_state(holder.delete_state), deleted), answer)

    # ------------------------------------------------------------------ DeleteGroups of share groups
    def delete_share_groups(self, group_ids: list[str]) -> Future:
        """Kafka's deleteShareGroups: {group id: error} for the share groups among ``group_ids`` -- NONE
        once the persister deleted all their share state, else why not (the group then stays). Ids
        missing from the answer are not share groups: DeleteGroups' usual path decides for them."""
        written = self.write("delete-share-groups", group_ids[0],
                             lambda shard: shard.share_partition_delete_requests(group_ids))

        def perform(requests: dict) -> Future:
            errors = {g: e for g, (_, e) in requests.items() if e != Errors.NONE}
            asked = [g for g, (_, e) in requests.items() if e == Errors.NONE]
            deletions = [handle(self.delete_share_group_state(requests[g][0]), group_deletion_error)
                         for g in asked]
            return handle(all_of(deletions),
                          lambda f: {**errors, **dict(zip(asked, f.result(), strict=True))})

        def answer(f: Future) -> dict[str, Errors]:
            if f.exception() is None:
                return f.result()
            error, _ = handle_operation_exception("delete-share-groups", group_ids, f.exception())
            return {g: error for g in group_ids}
        return handle(compose(written, perform), answer)

    def delete_share_group_state(self, parameters: DeleteShareGroupStateParameters) -> Future:
        """Persister.deleteState for every partition: {topic id: its first error, or NONE}; fails if the
        persister did."""
        asked = [(t, p) for t, partitions in parameters.topic_partitions.items() for p in partitions]
        try:
            codes = all_of([self.share_group_state_deleter(parameters.group_id, t, p) for t, p in asked])
        except Exception as e:
            codes = Future()
            codes.set_exception(e)

        def by_topic(f: Future) -> dict[uuid.UUID, Errors]:
            errors: dict[uuid.UUID, list[int]] = {}
            for (topic_id, _), code in zip(asked, f.result(), strict=True):
                errors.setdefault(topic_id, []).append(code)
            return {t: first_error(c) for t, c in errors.items()}
        return handle(codes, by_topic)


def group_deletion_error(f: Future) -> Errors:
    """A share group's deletion: its first partition error, or the persister's own failure."""
    if f.exception() is None:
        return first_error(f.result().values())
    error = getattr(f.exception(), "error", Errors.UNKNOWN_SERVER_ERROR)
    log.error("unable to delete share group state", error=repr(f.exception()))
    return error if isinstance(error, Errors) else Errors.UNKNOWN_SERVER_ERROR


def with_errors(responses: list[dict], failed: dict[tuple[uuid.UUID, int], Errors], replace_all: bool = False
                ) -> list[dict]:
    """Kafka's buildErrorResponse: the alter's topics with the persister's error on each partition it
    refused (a partition refused already keeps its own error, unless the whole persister failed)."""
    out = []
    for topic in responses:
        partitions = []
        for p in topic["partitions"]:
            error = failed.get((topic["topic_id"], p["partition_index"]))
            if error is None or (p["error_code"] != Errors.NONE and not replace_all):
                partitions.append(p)
            else:
                partitions.append(dict(partition_index=p["partition_index"], error_code=error,
                                       error_message=error.message))
        out.append({**topic, "partitions": partitions})
    return out
