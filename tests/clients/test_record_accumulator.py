"""RecordAccumulator readiness on a mock clock: batch.size, linger.ms and retry backoff decide when a batch
goes."""

from kafka.clients.metadata import Cluster, Node, PartitionInfo
from kafka.clients.producer.buffer_pool import BufferPool
from kafka.clients.producer.record_accumulator import RecordAccumulator
from kafka.protocol.compression import CompressionType
from kafka.protocol.record_batch import RecordBatch
from kafka.utils.time import MockTime
from kafka.utils.topic_partition import TopicPartition

TP0 = TopicPartition("t", 0)
CLUSTER = Cluster({1: Node(1, "h", 1)}, {"t": [PartitionInfo("t", 0, 1)]})


def _accumulator(time, batch_size=1024, linger_ms=10, memory=64 * 1024):
    return RecordAccumulator(batch_size, CompressionType.NONE, linger_ms, 100, 120000, BufferPool(memory),
                             time)


def _append(acc, value=b"x" * 100):
    return acc.append(TP0, 0, b"k", value, [], None, 1000, abort_on_new_batch=False)


def test_a_batch_waits_for_linger_ms_then_is_ready():
    time = MockTime()
    acc = _accumulator(time)
    _append(acc)
    result = acc.ready(CLUSTER, time.hi_res_clock_ms())
    assert result.ready_nodes == set() and result.next_ready_check_delay_ms == 10
    time.sleep(10)
    assert acc.ready(CLUSTER, time.hi_res_clock_ms()).ready_nodes == {1}


def test_a_full_batch_is_ready_at_once_and_drains_into_one_record_batch():
    time = MockTime()
    acc = _accumulator(time)
    results = [_append(acc) for _ in range(12)]  # ~130 bytes each: the 9th starts a second batch
    assert any(r.new_batch_created for r in results[1:])
    assert acc.ready(CLUSTER, time.hi_res_clock_ms()).ready_nodes == {1}
    drained = acc.drain(CLUSTER, [1], 1 << 20, time.hi_res_clock_ms())[1]
    assert len(drained) == 1
    batch = RecordBatch(drained[0].build())
    batch.ensure_valid()
    assert batch.records_count == drained[0].record_count < 12


def test_a_retried_batch_backs_off_and_keeps_its_place():
    time = MockTime()
    acc = _accumulator(time, linger_ms=0)
    _append(acc)
    batch = acc.drain(CLUSTER, [1], 1 << 20, time.hi_res_clock_ms())[1][0]
    _append(acc)  # a newer batch for the same partition
    acc.reenqueue(batch, time.hi_res_clock_ms())
    assert acc.ready(CLUSTER, time.hi_res_clock_ms()).ready_nodes == set()  # retry.backoff.ms
    time.sleep(100)
    assert acc.drain(CLUSTER, [1], 1 << 20, time.hi_res_clock_ms())[1] == [batch]


def test_buffer_memory_blocks_then_times_out():
    time = MockTime()
    acc = _accumulator(time, batch_size=1024, memory=1024)
    _append(acc)
    other = TopicPartition("t", 1)
    try:
        acc.append(other, 0, None, b"y", [], None, 10, abort_on_new_batch=False)
    except Exception as e:  # KafkaTimeoutError after max.block.ms
        assert "buffer.memory" in str(e)
    else:
        raise AssertionError("the second batch should not have found memory")
