"""MetadataLoader catching up (Kafka's stillNeedToCatchUp): a restarted node replays history that is
no longer true; nothing is published until the loader reaches the high watermark the quorum gave
this process, and then everything read so far goes out as one delta."""

from __future__ import annotations

import uuid

from kafka.image.loader.metadata_loader import MetadataLoader
from kafka.protocol.metadata_records import MetadataRecordType, record, serialize
from kafka.raft.batch import Batch
from kafka.utils.time import MockTime


class Recorder:
    def __init__(self) -> None:
        self.published: list[tuple[int, list[str], int]] = []  # (last offset, topics, batches in it)

    def name(self) -> str:
        return "Recorder"

    def on_metadata_update(self, delta, image, manifest) -> None:
        self.published.append((image.provenance.last_contained_offset, sorted(image.topics.topics_by_name),
                               manifest.num_batches))

    def close(self) -> None:
        pass


def topic_batch(offset: int, name: str) -> Batch:
    value = serialize(record(MetadataRecordType.TOPIC_RECORD, name=name, topic_id=uuid.uuid4()))
    return Batch(offset, offset, 1, 0, len(value), [value])


def loader_with(high_watermark: list) -> tuple[MetadataLoader, Recorder]:
    loader = MetadataLoader(node_id=1, time=MockTime(), high_watermark=lambda: high_watermark[0])
    recorder = Recorder()
    loader.install_publishers([recorder])
    return loader, recorder


def test_nothing_is_published_until_the_high_watermark_is_reached_then_all_at_once():
    high_watermark = [None]
    loader, recorder = loader_with(high_watermark)
    loader.handle_commit(topic_batch(0, "a"))  # the quorum has not told us its high watermark yet
    high_watermark[0] = 4
    loader.handle_commit(topic_batch(1, "b"))
    loader.handle_commit(topic_batch(2, "c"))
    assert recorder.published == [], "history below the high watermark is not published batch by batch"
    loader.handle_commit(topic_batch(3, "d"))
    assert recorder.published == [(3, ["a", "b", "c", "d"], 4)]
    high_watermark[0] = 10  # caught up once: from now on each batch goes out as it comes
    loader.handle_commit(topic_batch(4, "e"))
    assert recorder.published[-1] == (4, ["a", "b", "c", "d", "e"], 1)


def test_a_control_batch_at_the_high_watermark_ends_the_catching_up():
    """A LeaderChangeMessage is often the last batch below the high watermark: it carries no metadata,
    but the loader must count it, or it would wait for the next record to publish anything."""
    high_watermark = [3]
    loader, recorder = loader_with(high_watermark)
    loader.handle_commit(topic_batch(0, "a"))
    loader.handle_commit(topic_batch(1, "b"))
    assert recorder.published == []
    loader.handle_control_batch(2)
    assert recorder.published == [(1, ["a", "b"], 2)]


def test_a_removed_publisher_is_closed_and_gets_no_more_images():
    """A stopping broker removes its publishers before it stops what they feed (Kafka's
    removeAndClosePublisher); the others still get every image."""
    loader, removed = loader_with([1])
    kept = Recorder()
    loader.install_publishers([kept])
    closed = []
    removed.close = lambda: closed.append("closed")
    loader.handle_commit(topic_batch(0, "a"))
    loader.remove_and_close_publisher(removed)
    loader.handle_commit(topic_batch(1, "b"))
    assert closed == ["closed"]
    assert removed.published == [(0, ["a"], 1)]
    assert kept.published == [(0, ["a"], 1), (1, ["a", "b"], 1)]
    loader.remove_and_close_publisher(removed)  # once only
    assert closed == ["closed"]
