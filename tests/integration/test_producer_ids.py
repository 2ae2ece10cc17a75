"""Acceptance: InitProducerId on a real one-node broker (KIP-98, KIP-730). The broker answers from a
block of ids the controller allocated and wrote to the metadata log as a ProducerIdsRecord; a
restarted node starts a new block after it, also when the record is only in a snapshot now;
librdkafka's idempotent producer gets its id here."""

from __future__ import annotations

import io
import re

from confluent_kafka import Producer

from kafka.clients.admin import AdminClient, NewTopic
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.tools.dump_log_segments import main as dump_log
from kafka.tools.metadata_shell import MetadataShell, image_tree, load_image
from tests.helpers import unique_topic, wait_until
from tests.integration.test_confluent_kafka import create_topic
from tests.wire import WireClient


def init_producer_id(client: WireClient, version: int = 4, **fields):
    return client.request(ApiKey.INIT_PRODUCER_ID, version,
                          {"transactional_id": None, "transaction_timeout_ms": 60_000, **fields})


def advertised(port: int) -> dict[int, tuple[int, int]]:
    client = WireClient(port)
    try:
        response = client.request(ApiKey.API_VERSIONS, 3, {"client_software_name": "test",
                                                           "client_software_version": "1"})
    finally:
        client.close()
    return {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}


def test_init_producer_id_hands_out_distinct_ids_with_epoch_0(broker):
    client = WireClient(broker.port)
    # The very first one waits (as a callback, no I/O thread held) for the broker's first block.
    answers = [init_producer_id(client, version) for version in (0, 1, 2, 3, 4, 4, 4, 4)]
    assert [(a.error_code, a.producer_epoch) for a in answers] == [(Errors.NONE, 0)] * 8
    ids = [a.producer_id for a in answers]
    assert len(set(ids)) == 8 and all(0 <= i < 1000 for i in ids), "all from the broker's first block"
    # KIP-360: a producer that sends its id and epoch gets a new id, as Kafka's non-transactional path does.
    bumped = init_producer_id(client, producer_id=ids[-1], producer_epoch=0)
    assert (bumped.error_code, bumped.producer_epoch) == (Errors.NONE, 0) and bumped.producer_id not in ids
    client.close()


def test_init_producer_id_refuses_what_it_cannot_do_with_kafkas_error_codes(broker):
    client = WireClient(broker.port)
    for fields in ({"producer_id": 5}, {"producer_epoch": 3}):  # one of the two without the other
        answer = init_producer_id(client, **fields)
        assert (answer.error_code, answer.producer_id, answer.producer_epoch) == (Errors.INVALID_REQUEST, -1,
                                                                                  -1)
    answer = init_producer_id(client, transactional_id="")  # Kafka's answer to an empty transactional id
    assert (answer.error_code, answer.producer_id) == (Errors.INVALID_REQUEST, -1)
    assert init_producer_id(client).error_code == Errors.NONE, "the connection still works"
    client.close()


def test_each_listener_advertises_its_side_of_producer_ids(broker):
    on_broker = advertised(broker.port)
    assert on_broker[ApiKey.INIT_PRODUCER_ID] == (0, 5)
    assert ApiKey.ALLOCATE_PRODUCER_IDS not in on_broker, "a broker-to-controller API"
    on_controller = advertised(broker.server.bound_port("CONTROLLER"))
    assert on_controller[ApiKey.ALLOCATE_PRODUCER_IDS] == (0, 0)
    assert ApiKey.INIT_PRODUCER_ID not in on_controller


def test_librdkafkas_idempotent_producer_gets_its_id_and_produces(broker):
    topic = unique_topic("idempotent")
    create_topic(broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    delivered: list = []
    for i in range(20):
        producer.produce(topic, value=b"%d" % i, on_delivery=lambda err, msg: delivered.append(err))
    assert producer.flush(30) == 0
    assert delivered == [None] * 20
    out = io.StringIO()  # the batches carry the producer id this broker handed out
    assert dump_log(["--files", str(broker.data_dir / f"{topic}-0" / f"{0:020d}.log")], out=out) == 0
    producer_ids = set(re.findall(r"producerId: (-?\d+)", out.getvalue()))
    assert len(producer_ids) == 1 and 0 <= int(producer_ids.pop()) < 1000


def test_blocks_are_in_the_metadata_log_and_a_restart_starts_a_new_one(start_broker, tmp_path):
    data = tmp_path / "data"
    broker = start_broker(data)
    client = WireClient(broker.port)
    first = {init_producer_id(client).producer_id for _ in range(3)}
    client.close()
    broker.stop()

    segment = data / "__cluster_metadata-0" / f"{0:020d}.log"
    out = io.StringIO()
    assert dump_log(["--cluster-metadata-decoder", "--files", str(segment)], out=out) == 0
    assert '"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":1,' in out.getvalue()
    assert '"nextProducerId":1000}' in out.getvalue()
    shell = MetadataShell(image_tree(load_image(str(segment))))
    assert shell.run("cat /producerIds/nextProducerId") == "1000"

    # The ids the old block did not hand out are gone with it: never handed out twice.
    restarted = start_broker(data)
    client = WireClient(restarted.port)
    again = init_producer_id(client)
    client.close()
    assert again.error_code == Errors.NONE and again.producer_id == 1000 and not first & {again.producer_id}


SMALL_SNAPSHOTS = {"metadata.log.max.record.bytes.between.snapshots": "2000",
                   "metadata.log.segment.bytes": "4096"}


def test_a_restart_from_a_snapshot_still_starts_after_the_last_block(start_broker, tmp_path):
    data = tmp_path / "data"
    broker = start_broker(data, SMALL_SNAPSHOTS)
    client = WireClient(broker.port)
    assert init_producer_id(client).producer_id == 0
    client.close()
    metadata_log = broker.server.shared.metadata_log
    block_written_before = metadata_log.end_offset()  # the ProducerIdsRecord is committed below this

    created = iter(range(1000))
    with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
        def snapshotted_past_the_record() -> bool:
            if metadata_log.start_offset() > block_written_before:
                return True
            name = f"filler-{next(created)}"  # metadata to snapshot, until the log before it is deleted
            assert admin.create_topics([NewTopic(name, 1, 1)]) == {name: None}
            return False
        wait_until(snapshotted_past_the_record,
                   message="a snapshot past the ProducerIdsRecord, the log before it gone")
    broker.stop()
    snapshot = sorted((data / "__cluster_metadata-0").glob("*.checkpoint"))[-1]
    out = io.StringIO()
    assert dump_log(["--cluster-metadata-decoder", "--files", str(snapshot)], out=out) == 0
    assert ('"type":"PRODUCER_IDS_RECORD","version":0,'
            '"data":{"brokerId":-1,"brokerEpoch":-1,"nextProducerId":1000}' in out.getvalue())
    shell = MetadataShell(image_tree(load_image(str(snapshot))))
    assert shell.run("cat /producerIds/nextProducerId") == "1000"

    restarted = start_broker(data, SMALL_SNAPSHOTS)
    assert restarted.server.shared.metadata_log.start_offset() > block_written_before
    client = WireClient(restarted.port)
    assert init_producer_id(client).producer_id == 1000
    client.close()
