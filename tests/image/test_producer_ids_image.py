"""ProducerIdsImage: the image keeps where the next block of producer ids starts, and writes it into
every snapshot (KIP-730), so the id space survives the log before the snapshot being deleted."""

from __future__ import annotations

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.metadata_records import MetadataRecordType, record

T = MetadataRecordType


def test_the_image_keeps_the_next_producer_id_and_writes_it_back():
    delta = MetadataDelta(EMPTY_IMAGE)
    assert EMPTY_IMAGE.producer_ids.next_producer_id == -1 and EMPTY_IMAGE.producer_ids.write() == []
    delta.replay(record(T.PRODUCER_IDS_RECORD, broker_id=1, broker_epoch=5, next_producer_id=1000))
    delta.replay(record(T.PRODUCER_IDS_RECORD, broker_id=2, broker_epoch=7, next_producer_id=2000))
    assert delta.producer_ids_delta == 2000
    image = delta.apply(MetadataProvenance(10, 1, -1))
    assert image.producer_ids.next_producer_id == 2000 and not image.is_empty()
    again = MetadataDelta(EMPTY_IMAGE)
    for r in image.write():
        again.replay(r)
    assert again.apply(image.provenance) == image
    untouched = MetadataDelta(image)
    untouched.replay(record(T.NO_OP_RECORD))
    assert untouched.producer_ids_delta is None
    assert untouched.apply(MetadataProvenance(11, 1, -1)).producer_ids == image.producer_ids
