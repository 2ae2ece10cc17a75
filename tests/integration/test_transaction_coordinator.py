"""The transaction coordinator in a real broker, driven by confluent-kafka (librdkafka): InitProducerId
with a transactional.id, the states DescribeTransactions and `kafka-transactions` show, fencing by a
second producer with the same id, and a transaction open past its timeout aborted by the coordinator."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaException, Producer
from confluent_kafka.admin import AdminClient as ConfluentAdmin
from confluent_kafka.admin import NewTopic

from kafka.clients.admin import AdminClient
from kafka.protocol.api_keys import ApiKey
from kafka.tools import transactions_command
from tests.helpers import unique_topic, wait_until
from tests.integration.test_producer_ids import advertised

OVERRIDES = {"transaction.state.log.num.partitions": "3",
             "transaction.abort.timed.out.transaction.cleanup.interval.ms": "100"}


@pytest.fixture
def txn_broker(start_broker):
    return start_broker(overrides=OVERRIDES)


def create_topic(bootstrap: str, name: str) -> None:
    admin = ConfluentAdmin({"bootstrap.servers": bootstrap})  # kept: a collected handle cancels its futures
    admin.create_topics([NewTopic(name, 1, 1)])[name].result(30)


def transactional_producer(bootstrap: str, transactional_id: str, **config) -> Producer:
    return Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, **config})


def describe(bootstrap: str, transactional_id: str):
    with AdminClient({"bootstrap.servers": bootstrap}) as admin:
        return admin.describe_transactions([transactional_id])[transactional_id]


def test_the_transaction_apis_are_advertised_once_registered(txn_broker):
    apis = advertised(txn_broker.port)
    assert apis[ApiKey.ADD_PARTITIONS_TO_TXN] == (0, 5) and apis[ApiKey.END_TXN] == (0, 5)  # KIP-890, as 4.4
    assert apis[ApiKey.DESCRIBE_TRANSACTIONS] == (0, 0) and apis[ApiKey.LIST_TRANSACTIONS] == (0, 2)


def test_init_transactions_then_describe_and_list_show_the_id(txn_broker, capsys):
    producer = transactional_producer(txn_broker.bootstrap, "orders-tx")
    producer.init_transactions(30)
    described = describe(txn_broker.bootstrap, "orders-tx")
    assert (described.state, described.producer_epoch, described.topic_partitions) == ("Empty", 0, [])
    assert described.coordinator_id == 1 and described.transaction_start_time_ms is None
    assert transactions_command.main(["--bootstrap-server", txn_broker.bootstrap, "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"]
    assert lines[1].split() == ["orders-tx", "1", str(described.producer_id), "Empty"]
    assert lines[0].endswith("\t"), "Kafka's table: a tab after every column"
    for pattern, listed in (("orders-.*", ["orders-tx"]), ("orders", []), ("(?=o).*", None)):  # KIP-1152
        status = transactions_command.main(["--bootstrap-server", txn_broker.bootstrap, "list",
                                            "--transactional-id-pattern", pattern])
        out, err = capsys.readouterr()
        if listed is None:
            assert status == 1 and "INVALID_REGULAR_EXPRESSION" in err
        else:
            assert status == 0 and [line.split()[0] for line in out.splitlines()[1:]] == listed
    assert transactions_command.main(["--bootstrap-server", txn_broker.bootstrap, "describe",
                                      "--transactional-id", "orders-tx"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch",
                                    "TransactionState"]
    assert lines[1].split()[:7] == ["1", "orders-tx", str(described.producer_id), "0", "Empty", "60000",
                                    "None"]
    assert transactions_command.main(["--bootstrap-server", txn_broker.bootstrap, "describe",
                                      "--transactional-id", "nobody"]) == 1
    assert "TRANSACTIONAL_ID_NOT_FOUND" in capsys.readouterr().err


def test_a_second_producer_with_the_same_id_fences_the_first(txn_broker):
    topic = unique_topic()
    create_topic(txn_broker.bootstrap, topic)
    first = transactional_producer(txn_broker.bootstrap, "fenced-tx")
    first.init_transactions(30)
    second = transactional_producer(txn_broker.bootstrap, "fenced-tx")
    second.init_transactions(30)
    assert describe(txn_broker.bootstrap, "fenced-tx").producer_epoch == 1
    first.begin_transaction()
    first.produce(topic, b"zombie")
    with pytest.raises(KafkaException) as raised:
        first.commit_transaction(30)
    assert raised.value.args[0].fatal() and raised.value.args[0].name() == "_FENCED"


def test_commit_and_abort_complete_once_the_markers_are_written(txn_broker):
    topic = unique_topic()
    create_topic(txn_broker.bootstrap, topic)
    producer = transactional_producer(txn_broker.bootstrap, "complete-tx")
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"kept")
    producer.commit_transaction(30)
    wait_until(lambda: describe(txn_broker.bootstrap, "complete-tx").state == "CompleteCommit",
               message="CompleteCommit after the markers")
    producer.begin_transaction()
    producer.produce(topic, b"dropped")
    producer.flush(30)  # sent, so the partition is in the transaction: librdkafka aborts an empty one locally
    producer.abort_transaction(30)
    wait_until(lambda: describe(txn_broker.bootstrap, "complete-tx").state == "CompleteAbort",
               message="CompleteAbort after the markers")


def test_a_transaction_open_past_its_timeout_is_aborted(txn_broker):
    topic = unique_topic()
    create_topic(txn_broker.bootstrap, topic)
    producer = transactional_producer(txn_broker.bootstrap, "slow-tx", **{"transaction.timeout.ms": 1000,
                                                                          "message.timeout.ms": 1000})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, b"left open")
    producer.flush(30)  # AddPartitionsToTxn made the transaction Ongoing, and its clock runs
    assert describe(txn_broker.bootstrap, "slow-tx").state == "Ongoing"
    # The coordinator aborts it under a bumped epoch: the producer instance is fenced.
    wait_until(lambda: describe(txn_broker.bootstrap, "slow-tx").state in ("PrepareAbort", "CompleteAbort"),
               timeout=30, message="the coordinator to abort the timed-out transaction")
    assert describe(txn_broker.bootstrap, "slow-tx").producer_epoch == 1
