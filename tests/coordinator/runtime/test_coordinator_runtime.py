"""CoordinatorRuntime's rules, on the toy key-value shard over an in-memory partition (Kafka's
CoordinatorRuntimeTest): a write answers once its records commit, reads see only committed state, a
failed append takes the shard back, a timeout, an unload and close fail what waits, and loading
answers COORDINATOR_LOAD_IN_PROGRESS until it is done."""

from __future__ import annotations

import pytest

from kafka.coordinator.common.runtime.coordinator_error import CoordinatorError
from kafka.coordinator.common.runtime.coordinator_result import CoordinatorResult
from kafka.coordinator.common.runtime.coordinator_shard import TransactionResult
from kafka.coordinator.common.runtime.coordinator_state import CoordinatorState
from kafka.coordinator.common.runtime.partition_writer import CoordinatorWriteError
from kafka.protocol.errors import Errors
from kafka.utils.topic_partition import TopicPartition
from tests.coordinator.runtime.runtime_fixture import TP, RuntimeFixture


def error_of(future) -> Errors:
    exception = future.exception(timeout=0)
    assert isinstance(exception, CoordinatorError), exception
    return exception.error


@pytest.fixture
def f() -> RuntimeFixture:
    fixture = RuntimeFixture()
    fixture.lead()
    assert fixture.runtime.partitions() == [TP]
    return fixture


def test_a_write_is_answered_when_its_records_commit_and_reads_see_only_committed_state(f):
    written = f.put("a", "1")
    assert not written.done()  # appended, not committed
    assert f.shard().data["a"] == "1"  # the latest state has it
    assert f.read("a").result(0) is None  # the committed view does not
    f.writer.commit(TP)
    assert written.result(0) is None  # the response: "a" had no value before
    assert f.read("a").result(0) == "1"
    coordinator = f.runtime.context(TP).coordinator
    assert (coordinator.last_written_offset, coordinator.last_committed_offset) == (1, 1)


def test_a_high_watermark_between_two_writes_answers_only_the_first(f):
    first, second = f.put("a", "1"), f.put("b", "2")
    f.writer.commit(TP, 1)
    assert first.done() and not second.done()
    assert f.read("a").result(0) == "1" and f.read("b").result(0) is None
    f.writer.commit(TP, 2)
    assert second.done()


def test_a_failed_append_reverts_the_shard_and_fails_the_write_with_the_appends_error(f):
    f.put("a", "1")
    f.writer.fail_next(Errors.NOT_LEADER_OR_FOLLOWER)
    failed = f.put("a", "2")
    assert error_of(failed) == Errors.NOT_LEADER_OR_FOLLOWER
    assert isinstance(failed.exception(), CoordinatorWriteError)
    assert f.shard().data["a"] == "1"  # back to the state before the failed write
    later = f.put("b", "3")  # and the next write goes at the right offset
    f.writer.commit(TP)
    assert later.done() and not later.exception()
    assert f.writer.log(TP).log_end_offset == 2


def test_a_write_that_raises_fails_with_what_it_raised_and_changes_nothing(f):
    def bad(shard):
        raise CoordinatorError(Errors.UNKNOWN_MEMBER_ID, "no such member")

    future = f.runtime.schedule_write_operation("bad", TP, 1000, bad)
    assert error_of(future) == Errors.UNKNOWN_MEMBER_ID
    assert f.writer.log(TP).log_end_offset == 0


def test_a_batch_larger_than_max_message_bytes_is_refused_before_it_is_replayed():
    f = RuntimeFixture(max_message_bytes=100)
    f.lead()
    assert error_of(f.put("a", "x" * 200)) == Errors.MESSAGE_TOO_LARGE
    assert "a" not in f.shard().data


def test_a_write_not_committed_in_time_fails_with_request_timed_out(f):
    written = f.put("a", "1", timeout_ms=100)
    f.advance(99)
    assert not written.done()
    f.advance(1)
    assert error_of(written) == Errors.REQUEST_TIMED_OUT
    f.writer.commit(TP)  # committing later changes nothing for the answered future
    assert error_of(written) == Errors.REQUEST_TIMED_OUT


def test_a_write_without_records_waits_for_the_writes_before_it(f):
    f.put("a", "1")
    noop = f.runtime.schedule_write_operation("noop", TP, 1000,
                                              lambda shard: CoordinatorResult([], response="ok"))
    assert not noop.done()
    f.writer.commit(TP)
    assert noop.result(0) == "ok"
    assert f.runtime.schedule_write_operation("noop", TP, 1000,
                                              lambda s: CoordinatorResult([], "now")).result(0) == "now"


def test_the_append_future_completes_with_the_write(f):
    from concurrent.futures import Future
    append_future = Future()
    f.runtime.schedule_write_operation("w", TP, 1000, lambda shard: CoordinatorResult(
        [*shard.put("a", "1").records], "r", append_future=append_future))
    assert not append_future.done()
    f.writer.commit(TP)
    assert append_future.result(0) is None


def test_operations_on_a_partition_not_loaded_here_fail_with_not_coordinator(f):
    other = TopicPartition("__consumer_offsets", 9)
    assert error_of(f.put("a", "1", tp=other)) == Errors.NOT_COORDINATOR
    assert error_of(f.read("a", tp=other)) == Errors.NOT_COORDINATOR


def test_while_loading_operations_fail_with_load_in_progress_and_the_shard_gets_the_log():
    f = RuntimeFixture(immediate_load=False)
    f.writer.leading.add(TP)
    f.writer.append(TP, -1, -1, _batch(f, ("a", "1")))
    f.writer.commit(TP)
    f.runtime.schedule_load_operation(TP, 0)
    assert error_of(f.put("b", "2")) == Errors.COORDINATOR_LOAD_IN_PROGRESS
    assert f.runtime.partitions() == []
    f.executor.run_all()
    assert f.runtime.partitions() == [TP]
    assert f.read("a").result(0) == "1"
    assert f.shard().loaded_with is f.runtime.metadata_image
    assert f.metrics.num_partitions(CoordinatorState.ACTIVE) == 1


def test_loading_a_log_with_an_uncommitted_tail_keeps_the_committed_view_at_the_high_watermark():
    f = RuntimeFixture()
    f.writer.leading.add(TP)
    f.writer.append(TP, -1, -1, _batch(f, ("a", "1")))
    f.writer.append(TP, -1, -1, _batch(f, ("a", "2")))
    f.writer.commit(TP, 1)
    f.runtime.schedule_load_operation(TP, 0)
    assert f.read("a").result(0) == "1"
    assert f.shard().data["a"] == "2"
    f.writer.commit(TP)
    assert f.read("a").result(0) == "2"


def test_unloading_fails_what_waits_and_ignores_an_older_epoch(f):
    written = f.put("a", "1")
    f.runtime.schedule_unload_operation(TP, 0)  # loaded for epoch 0: an unload for epoch 0 is stale
    assert not written.done()
    shard = f.shard()
    f.runtime.schedule_unload_operation(TP, 1)
    assert error_of(written) == Errors.NOT_COORDINATOR
    assert shard.unloaded and f.runtime.partitions() == []
    assert error_of(f.put("b", "2")) == Errors.NOT_COORDINATOR
    f.runtime.schedule_load_operation(TP, 2)  # leader again: the shard comes back from the log
    assert f.shard().data["a"] == "1"


def test_a_log_out_of_step_with_the_shard_reloads_it(f):
    f.put("a", "1")
    f.writer.append(TP, -1, -1, _batch(f, ("z", "9")))  # someone else wrote to the partition
    future = f.put("b", "2")
    assert error_of(future) == Errors.NOT_COORDINATOR
    assert f.shard().data == {"a": "1", "z": "9", "b": "2"}  # reloaded from the log, which has it all


def test_a_transactional_write_is_applied_by_its_commit_marker(f):
    txn = f.runtime.schedule_transactional_write_operation("txn", TP, "t1", 7, 0, 1000,
                                                          lambda shard: shard.put("a", "1"))
    f.writer.commit(TP)
    assert txn.done() and "a" not in f.shard().data
    marker = f.runtime.schedule_transaction_completion("end", TP, 7, 0, 3, TransactionResult.COMMIT, 1000)
    assert f.shard().data["a"] == "1" and not marker.done()
    f.writer.commit(TP)
    assert marker.result(0) is None and f.read("a").result(0) == "1"
    # the log says the same to the next leader
    f.runtime.schedule_unload_operation(TP, 1)
    f.runtime.schedule_load_operation(TP, 2)
    assert f.read("a").result(0) == "1"


def test_a_failed_marker_append_reverts_the_marker(f):
    f.runtime.schedule_transactional_write_operation("txn", TP, "t1", 7, 0, 1000,
                                                     lambda shard: shard.put("a", "1"))
    f.writer.fail_next()
    marker = f.runtime.schedule_transaction_completion("end", TP, 7, 0, 3, TransactionResult.COMMIT, 1000)
    assert error_of(marker) == Errors.KAFKA_STORAGE_ERROR
    assert "a" not in f.shard().data and 7 in f.shard().pending


def test_a_timer_runs_its_operation_as_a_write_and_a_cancelled_one_does_nothing(f):
    f.put("a", "1")
    f.put("b", "2")
    f.writer.commit(TP)
    f.runtime.schedule_write_operation("t", TP, 1000, lambda shard: shard.expire_later("a", 100))
    f.runtime.schedule_write_operation("t", TP, 1000, lambda shard: shard.expire_later("b", 100))
    timer = f.runtime.context(TP).timer
    assert timer.is_scheduled("expire-a") and timer.is_scheduled("expire-b")
    f.runtime.schedule_write_operation("c", TP, 1000, lambda shard: (shard.timer.cancel("expire-b"),
                                                                     CoordinatorResult([]))[1])
    f.advance(100)
    assert "a" not in f.shard().data and f.shard().data["b"] == "2"
    assert not timer.is_scheduled("expire-a")


def test_a_timer_replaced_or_cancelled_after_it_expired_but_before_its_event_ran_does_nothing():
    from kafka.coordinator.common.runtime.manual_event_processor import ManualEventProcessor
    f = RuntimeFixture(processor=ManualEventProcessor())
    f.lead()
    f.processor.run_all()
    f.put("a", "1")
    f.put("b", "2")
    f.runtime.schedule_write_operation("t", TP, 1000, lambda shard: shard.expire_later("a", 100))
    f.runtime.schedule_write_operation("t", TP, 1000, lambda shard: shard.expire_later("b", 100))
    f.processor.run_all()
    f.advance(100)
    assert f.processor.size() == 2  # both timers' write events wait in the queue
    timer = f.runtime.context(TP).timer
    # The shard replaces one and cancels the other (here from the test; in a broker, from an earlier event).
    timer.schedule("expire-a", 5000, False, lambda: f.shard().expire("a"))
    timer.cancel("expire-b")
    f.processor.run_all()
    assert f.shard().data == {"a": "1", "b": "2"}
    assert timer.is_scheduled("expire-a") and not timer.is_scheduled("expire-b")


def test_a_timer_whose_write_fails_is_retried_after_its_backoff(f):
    f.put("a", "1")
    f.runtime.schedule_write_operation("t", TP, 1000, lambda shard: (shard.timer.schedule(
        "expire-a", 100, True, lambda: shard.expire("a"), 50), CoordinatorResult([]))[1])
    f.writer.fail_next()
    f.advance(100)
    assert f.shard().data["a"] == "1" and f.runtime.context(TP).timer.is_scheduled("expire-a")
    f.advance(50)
    assert "a" not in f.shard().data


def test_close_fails_what_waits_and_refuses_what_comes(f):
    written = f.put("a", "1")
    f.runtime.close()
    assert error_of(written) == Errors.NOT_COORDINATOR
    assert error_of(f.put("b", "2")) == Errors.NOT_COORDINATOR
    assert f.runtime.partitions() == []


def test_write_all_and_read_all_reach_every_shard(f):
    other = TopicPartition("__consumer_offsets", 1)
    f.lead(other)
    futures = f.runtime.schedule_write_all_operation("all", 1000,
                                                     lambda shard: shard.put("k", str(shard.tp.partition)))
    f.writer.commit(TP)
    f.writer.commit(other)
    assert all(future.done() for future in futures)
    reads = f.runtime.schedule_read_all_operation("all", lambda shard, offset: shard.get("k", offset))
    assert sorted(r.result(0) for r in reads) == ["0", "1"]


def test_a_new_metadata_image_reaches_the_active_shards(f):
    f.runtime.on_new_metadata_image("image-2", "delta")
    assert f.shard().images == ["image-2"] and f.runtime.metadata_image == "image-2"


def _batch(f: RuntimeFixture, *pairs) -> bytes:
    from kafka.protocol.record_batch import build_batch
    return build_batch([(k.encode(), v.encode()) for k, v in pairs])
