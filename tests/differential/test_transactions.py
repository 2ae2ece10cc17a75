"""Idempotent and transactional producers, asked of both brokers: producer ids, sequence numbers, a
transaction committed and one aborted, offsets committed in a transaction (by a KIP-848 consumer group's
member too), a fenced producer, and what a read_committed reader sees (the last stable offset, the
aborted transactions), compared field by field with Apache Kafka's answers (producer ids by name, see
group_steps.Script).

Apache Kafka 4.4 runs transaction.version=2 (KIP-890), as this broker does, and both decide per request:
EndTxn before v5 and AddPartitionsToTxn before v4 keep a transaction on the first protocol (the first
tests); Produce v12, TxnOffsetCommit v5 and EndTxn v5 run it at TV_2 (the last ones: the epoch bumped at
every commit and abort, the partition added by the broker, a late produce fenced).
"""

from __future__ import annotations

import uuid

from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.protocol.record_batch import DefaultRecord, build_batch
from tests.differential.group_steps import Script, Sym, create_topic, find_coordinator, producer_ids_ready
from tests.differential.oracle import Intended
from tests.helpers import unique_topic, wait_until

GROUP, TRANSACTION = 0, 1  # FindCoordinator's key types
INIT, ADD_PARTITIONS, ADD_OFFSETS, END, TXN_COMMIT = 4, 3, 3, 4, 3
PRODUCE, FETCH, LIST_OFFSETS, LIST_TXNS = 9, 11, 7, 1
HEARTBEAT_848 = 1
LATEST = -1


def init_producer_id(transactional_id: str | None) -> dict:
    return {"transactional_id": transactional_id, "transaction_timeout_ms": 60000,
            "producer_id": -1, "producer_epoch": -1}


def records(pid: str | None, epoch: int, sequence: int, count: int, transactional: bool):
    """A batch built per side: its producer id is each broker's own."""
    items = [DefaultRecord(i, 1000 + i, b"k%d" % i, b"v%d" % (sequence + i)) for i in range(count)]
    if pid is None:
        return build_batch(items)
    return lambda value: build_batch(items, producer_id=value(pid), producer_epoch=epoch,
                                     base_sequence=sequence,
                                     is_transactional=transactional)


def produce(topic: str, batch, transactional_id: str | None = None) -> dict:
    return {"transactional_id": transactional_id, "acks": -1, "timeout_ms": 30000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": batch}]}]}


def add_partitions(txn: str, pid: str, epoch: int, topic: str) -> dict:
    return {"transactional_id": txn, "producer_id": Sym(pid), "producer_epoch": epoch,
            "topics": [{"name": topic, "partitions": [0]}]}


def end_txn(txn: str, pid: str, epoch: int, commit: bool) -> dict:
    return {"transactional_id": txn, "producer_id": Sym(pid), "producer_epoch": epoch, "committed": commit}


def list_offsets(topic: str, isolation_level: int) -> dict:
    return {"replica_id": -1, "isolation_level": isolation_level, "topics": [
        {"name": topic,
         "partitions": [{"partition_index": 0, "current_leader_epoch": -1, "timestamp": LATEST}]}]}


def fetch(topic: str, isolation_level: int, offset: int = 0) -> dict:
    return {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20,
            "isolation_level": isolation_level, "session_id": 0, "session_epoch": -1, "topics": [
                {"topic": topic,
                 "partitions": [{"partition": 0, "current_leader_epoch": -1, "fetch_offset": offset,
                                                 "log_start_offset": -1, "partition_max_bytes": 1 << 20}]}],
            "forgotten_topics_data": [], "rack_id": ""}


def describe_transactions(*txns: str) -> dict:
    return {"transactional_ids": list(txns)}


def describe_producers(topic: str) -> dict:
    return {"topics": [{"name": topic, "partition_indexes": [0]}]}


def settled(script: Script, txn: str, state: str) -> None:
    """Wait until both coordinators have written the markers and reached `state` (EndTxn answers at
    PrepareCommit or PrepareAbort; the markers go out after)."""
    def there() -> bool:
        answers = script.pair.ask(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))
        return all(a["transaction_states"][0]["transaction_state"] == state for a in answers)
    wait_until(there, timeout=30, message=f"{txn} to reach {state} on both brokers", interval=0.05)


def stable_at(script: Script, topic: str, offset: int) -> None:
    def there() -> bool:
        answers = script.pair.ask(ApiKey.LIST_OFFSETS, LIST_OFFSETS, list_offsets(topic, 1))
        return all(a["topics"][0]["partitions"][0]["offset"] == offset for a in answers)
    wait_until(there, timeout=30, message=f"{topic}'s last stable offset to reach {offset}", interval=0.05)


def only(answer: dict, txns: set[str]) -> dict:
    """A ListTransactions answer narrowed to this scenario's transactions (each broker holds the others')."""
    return {**answer,
            "transaction_states": [t for t in answer["transaction_states"] if t["transactional_id"] in txns]}


def commit_and_fetch(script, pair, txn: str, fetch_offsets: dict, index: int, offset: int) -> None:
    """OffsetFetch (require_stable) while the offsets are pending, then EndTxn(commit), and OffsetFetch again
    once both brokers show `offset` for the partition at `index`: the same answers on both, every time."""
    script.same(ApiKey.OFFSET_FETCH, 8, fetch_offsets)  # pending: UNSTABLE_OFFSET_COMMIT
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")
    wait_until(lambda: all(a["groups"][0]["topics"][0]["partitions"][index]["committed_offset"] == offset
                           for a in pair.ask(ApiKey.OFFSET_FETCH, 8, fetch_offsets)),
               timeout=30, message=f"committed offset {offset} visible on both", interval=0.05)
    script.same(ApiKey.OFFSET_FETCH, 8, fetch_offsets)


def test_an_idempotent_producer_numbers_its_batches(pair):
    script, topic = Script(pair), unique_topic("idempotent")
    create_topic(pair, topic)
    producer_ids_ready(pair)
    ours, _ = script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(None), learn=("producer_id", "pid"))
    assert ours["producer_id"] == "pid" and ours["error_code"] == 0
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, describe_producers(topic))  # nobody yet
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 3, False)))
    # a retry: its offset again
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 3, False)))
    # a gap: OUT_OF_ORDER
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 5, 1, False)))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 3, 2, False)))  # the next in order
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 3, False)))  # an old batch again
    # a new epoch must start at 0
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 1, 7, 1, False)))
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, describe_producers(topic))
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, {"topics": [{"name": topic, "partition_indexes": [0, 4]},
                                                          {"name": unique_topic("no"),
                                                           "partition_indexes": [0]}]})
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 0))


def test_a_transaction_committed_then_one_aborted(pair):
    script, topic, txn = Script(pair), unique_topic("txn-topic"), unique_topic("txn")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # TRANSACTIONAL_ID_NOT_FOUND
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # Empty
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))  # nothing begun: INVALID_TXN_STATE
    stray = unique_topic("txn-stray")  # a partition never added to the transaction
    create_topic(pair, stray)
    # KIP-890: INVALID_TXN_STATE
    script.same(ApiKey.PRODUCE, PRODUCE, produce(stray, records("pid", 0, 0, 3, True), txn))

    script.same(ApiKey.ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS, add_partitions(txn, "pid", 0, topic))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 3, True), txn))
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # Ongoing, with the partition
    ours, apache = script.ask(ApiKey.LIST_TRANSACTIONS, LIST_TXNS,
                              {"state_filters": ["Ongoing"], "producer_id_filters": [],
                               "duration_filter": -1})
    assert only(ours, {txn}) == only(apache, {txn}) and only(ours, {txn})["transaction_states"]
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, describe_producers(topic))  # with its open transaction's start
    script.same(ApiKey.LIST_OFFSETS, LIST_OFFSETS, list_offsets(topic, 1))  # the last stable offset: 0
    script.same(ApiKey.LIST_OFFSETS, LIST_OFFSETS, list_offsets(topic, 0))  # the high watermark: 3
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 1))  # nothing stable yet
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")
    stable_at(script, topic, 4)
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, describe_producers(topic))

    script.same(ApiKey.ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS, add_partitions(txn, "pid", 0, topic))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 3, 2, True), txn))
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, False))
    settled(script, txn, "CompleteAbort")
    stable_at(script, topic, 7)
    ours, apache = script.ask(ApiKey.LIST_TRANSACTIONS, LIST_TXNS,
                              {"state_filters": ["CompleteAbort", "Nonsense"], "producer_id_filters": [],
                               "duration_filter": -1})
    assert only(ours, {txn}) == only(apache, {txn}) and only(ours, {txn})["transaction_states"]
    assert ours["unknown_state_filters"] == apache["unknown_state_filters"]
    for offset in range(7):  # the aborted transaction named only in the reads that reach it
        script.same(ApiKey.FETCH, FETCH, fetch(topic, 1, offset))
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 0))
    script.same(ApiKey.LIST_OFFSETS, LIST_OFFSETS, list_offsets(topic, 1))
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))  # nothing added since: no transaction


def transactional_producer_and_group(pair, prefix: str) -> tuple[Script, str, str, str]:
    """A topic, a transactional id and a group with both coordinators found, and the producer id learnt
    as "pid": (script, topic, transactional id, group)."""
    script, topic = Script(pair), unique_topic(prefix)
    txn, group = unique_topic("txn"), unique_topic("g")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    find_coordinator(pair, group, GROUP)
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    return script, topic, txn, group


def test_offsets_committed_in_a_transaction(pair):
    script, topic, txn, group = transactional_producer_and_group(pair, "txn-offsets")
    script.same(ApiKey.ADD_OFFSETS_TO_TXN, ADD_OFFSETS, {"transactional_id": txn, "producer_id": Sym("pid"),
                                                         "producer_epoch": 0, "group_id": group})
    commit = {"transactional_id": txn, "group_id": group, "producer_id": Sym("pid"), "producer_epoch": 0,
              "generation_id": -1, "member_id": "", "group_instance_id": None, "topics": [
                  {"name": topic, "partitions": [{"partition_index": 0, "committed_offset": 42,
                                                  "committed_leader_epoch": -1,
                                                  "committed_metadata": "txn"}]}]}
    script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT, commit)
    fetch_offsets = {"groups": [{"group_id": group, "topics": [{"name": topic, "partition_indexes": [0]}]}],
                     "require_stable": True}
    commit_and_fetch(script, pair, txn, fetch_offsets, index=0, offset=42)


def test_a_second_producer_with_the_same_id_fences_the_first(pair):
    script, topic, txn = Script(pair), unique_topic("fenced"), unique_topic("txn")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    script.same(ApiKey.ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS, add_partitions(txn, "pid", 0, topic))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 2, True), txn))

    # The second producer: the open transaction is aborted first (CONCURRENT_TRANSACTIONS until done).
    first, _ = script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn))
    assert first["error_code"] == Errors.CONCURRENT_TRANSACTIONS, first
    script.retried(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), (Errors.CONCURRENT_TRANSACTIONS,))
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # the bumped epoch

    # The first producer, still at epoch 0.
    script.same(ApiKey.ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS, add_partitions(txn, "pid", 0, topic))
    # refused by the verification
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 2, 1, True), txn))
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, False))
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 1))


def test_a_transactional_batch_is_verified_with_the_coordinator_first(pair):
    """KIP-890 part 1 (transaction.partition.verification.enable, on by default): the partition's leader
    asks the transaction coordinator before it appends a transactional batch of a producer with no
    transaction open in that partition."""
    script, topic, txn = Script(pair), unique_topic("verified"), unique_topic("txn")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    script.learn("a stranger", 987654, 987654)
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 1, True), unique_topic("other")))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("a stranger", 0, 0, 1, True), txn))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 3, 0, 1, True), txn))  # not its epoch
    # no transactional id
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 1, True), None))
    script.same(ApiKey.ADD_PARTITIONS_TO_TXN, ADD_PARTITIONS, add_partitions(txn, "pid", 0, topic))
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 0, 2, True), txn))
    # open: not asked again
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 2, 1, True), txn))
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")
    # not added again
    script.same(ApiKey.PRODUCE, PRODUCE, produce(topic, records("pid", 0, 3, 1, True), txn))
    stable_at(script, topic, 4)
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 1))


def consumer_group_heartbeat(group: str, member: str, epoch: int, topic: str | None = None) -> dict:
    """ConsumerGroupHeartbeat v1 (KIP-848): a join (epoch 0, subscribing to `topic`), or a leave (-1).
    The member id is the client's own choice, so both brokers get the same bytes."""
    if topic is None:
        return {"group_id": group, "member_id": member, "member_epoch": epoch, "rebalance_timeout_ms": -1}
    return {"group_id": group, "member_id": member, "member_epoch": epoch, "rebalance_timeout_ms": 30000,
            "subscribed_topic_names": [topic], "topic_partitions": []}


def txn_commit(txn: str, group: str, pid: str, member: str, epoch, topic: str, offset: int) -> dict:
    """TxnOffsetCommit v3 of partitions 0 and 1; `epoch` an int, or a callable template (each side's own)."""
    return {"transactional_id": txn, "group_id": group, "producer_id": Sym(pid), "producer_epoch": 0,
            "generation_id": epoch, "member_id": member, "group_instance_id": None, "topics": [
                {"name": topic, "partitions": [{"partition_index": p, "committed_offset": offset + p,
                                                "committed_leader_epoch": -1, "committed_metadata": ""}
                                               for p in (0, 1)]}]}


def member_epoch(delta: int):
    """The generation id field: the member epoch this side's broker gave, moved by `delta`."""
    return lambda value: value("member epoch") + delta


FIRST_EPOCH = Intended("member_epoch",
                       "Apache Kafka 4.4 starts a new consumer group at epoch 2, this broker at 1")


def test_offsets_committed_in_a_transaction_by_a_consumer_group_member(pair):
    """What a read-process-write loop with group.protocol=consumer sends: TxnOffsetCommit v3 with the member
    id and the member epoch (in the generation id) that ConsumerGroupHeartbeat returned, judged against
    the consumer group: the right member and epoch, another epoch, a member nobody knows, no member at all."""
    script, topic = Script(pair), unique_topic("txn-848")
    txn, group = unique_topic("txn"), unique_topic("g848")
    create_topic(pair, topic, partitions=2)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    find_coordinator(pair, group, GROUP)
    member = str(uuid.uuid4())
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(group, member, 0, topic), intended=(FIRST_EPOCH,))
    assert ours["error_code"] == apache["error_code"] == Errors.NONE, (ours, apache)
    script.learn("member epoch", ours["member_epoch"], apache["member_epoch"])
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    script.same(ApiKey.ADD_OFFSETS_TO_TXN, ADD_OFFSETS, {"transactional_id": txn, "producer_id": Sym("pid"),
                                                         "producer_epoch": 0, "group_id": group})
    # Apache Kafka 4.4: UNKNOWN_MEMBER_ID; ILLEGAL_GENERATION for a newer, an older and no epoch (its
    # STALE_MEMBER_EPOCH, which TxnOffsetCommit v3 cannot say); UNKNOWN_MEMBER_ID for "" with an epoch
    refused = (("nobody", member_epoch(0)), (member, member_epoch(1)), (member, member_epoch(-1)),
               (member, -1),
               ("", member_epoch(0)))
    for who, epoch in refused:
        ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT,
                              txn_commit(txn, group, "pid", who, epoch, topic, 7))
        assert ours["topics"][0]["partitions"][0]["error_code"] != Errors.NONE, who
    # the producer that knows only the group's id (sendOffsetsToTransaction(offsets, groupId)): accepted
    script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT, txn_commit(txn, group, "pid", "", -1, topic, 3))
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT,
                          txn_commit(txn, group, "pid", member, member_epoch(0), topic, 42))
    assert ours["topics"][0]["partitions"][0]["error_code"] == Errors.NONE
    # a group neither broker knows, named with a generation (in the transaction too, or its partition is not)
    stranger = unique_topic("nobody-g")
    find_coordinator(pair, stranger, GROUP)
    script.same(ApiKey.ADD_OFFSETS_TO_TXN, ADD_OFFSETS, {"transactional_id": txn, "producer_id": Sym("pid"),
                                                         "producer_epoch": 0, "group_id": stranger})
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT,
                          txn_commit(txn, stranger, "pid", member, 1, topic, 7))
    # ILLEGAL_GENERATION (v6: GROUP_ID_NOT_FOUND)
    assert ours["topics"][0]["partitions"][0]["error_code"] != Errors.NONE
    # and named with a member but no generation: a simple group's commit, whatever the member id
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT,
                          txn_commit(txn, stranger, "pid", member, -1, topic, 7))
    assert ours["topics"][0]["partitions"][0]["error_code"] == Errors.NONE

    fetch_offsets = {"groups": [{"group_id": group,
                                 "topics": [{"name": topic, "partition_indexes": [0, 1]}]}],
                     "require_stable": True}
    commit_and_fetch(script, pair, txn, fetch_offsets, index=1, offset=43)
    # leaves
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848, consumer_group_heartbeat(group, member, -1))


# ---------------------------------------------------------------------- transaction.version 2 (KIP-890)
# Both clusters finalize transaction.version 2; a transaction runs at TV_2 when its requests are the new
# versions: Produce v12 and TxnOffsetCommit v5 (the broker adds the partition), EndTxn v5 (the epoch bump).
PRODUCE_V2, END_V2, TXN_COMMIT_V2, BROKER_ADD = 12, 5, 5, 5


def broker_add(txn: str, pid: str, epoch: int, topic: str, verify_only: bool, partition: int = 0) -> dict:
    """AddPartitionsToTxn v5 as a partition leader sends it to the coordinator (one transaction)."""
    return {"transactions": [{"transactional_id": txn, "producer_id": Sym(pid), "producer_epoch": epoch,
                              "verify_only": verify_only,
                              "topics": [{"name": topic, "partitions": [partition]}]}]}


def test_tv2_every_end_bumps_the_epoch_and_a_late_produce_is_fenced(pair):
    script, topic, txn = Script(pair), unique_topic("tv2"), unique_topic("txn")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    # no AddPartitionsToTxn: Produce v12 has the broker add the partition
    script.same(ApiKey.PRODUCE, PRODUCE_V2, produce(topic, records("pid", 0, 0, 3, True), txn))
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # Ongoing, with the partition
    ours, _ = script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 0, True))
    assert (ours["producer_id"], ours["producer_epoch"]) == ("pid", 1), ours
    settled(script, txn, "CompleteCommit")
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # epoch 1
    script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 0, True))  # a retry by the old epoch: answered
    script.same(ApiKey.END_TXN, END, end_txn(txn, "pid", 1, True))  # v4 (TV_0) at the new epoch
    # a zombie: the epoch that committed writes again; fenced, and no transaction opens
    script.same(ApiKey.PRODUCE, PRODUCE_V2, produce(topic, records("pid", 0, 3, 1, True), txn))
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # still CompleteCommit
    stable_at(script, topic, 4)
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 1))
    # the next transaction, aborted; then an abort with nothing begun, which still bumps the epoch
    script.same(ApiKey.PRODUCE, PRODUCE_V2, produce(topic, records("pid", 1, 0, 2, True), txn))
    ours, _ = script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 1, False))
    assert ours["producer_epoch"] == 2, ours
    settled(script, txn, "CompleteAbort")
    script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 2, True))  # commit of nothing: INVALID_TXN_STATE
    ours, _ = script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 2, False))
    assert ours["producer_epoch"] == 3, ours
    settled(script, txn, "CompleteAbort")
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))
    script.same(ApiKey.DESCRIBE_PRODUCERS, 0, describe_producers(topic))
    script.same(ApiKey.FETCH, FETCH, fetch(topic, 1))


def test_tv2_offsets_join_the_transaction_without_add_offsets(pair):
    script, topic, txn, group = transactional_producer_and_group(pair, "tv2-offsets")
    commit = {"transactional_id": txn, "group_id": group, "producer_id": Sym("pid"), "producer_epoch": 0,
              "generation_id": -1, "member_id": "", "group_instance_id": None, "topics": [
                  {"name": topic, "partitions": [{"partition_index": 0, "committed_offset": 17,
                                                  "committed_leader_epoch": -1, "committed_metadata": ""}]}]}
    script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT, commit)  # v3: not added first, refused
    script.same(ApiKey.TXN_OFFSET_COMMIT, TXN_COMMIT_V2, commit)  # v5: the broker adds the group's partition
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))  # with __consumer_offsets-N
    script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")
    fetch_offsets = {"groups": [{"group_id": group, "topics": [{"name": topic, "partition_indexes": [0]}]}],
                     "require_stable": True}
    wait_until(lambda: all(a["groups"][0]["topics"][0]["partitions"][0]["committed_offset"] == 17
                           for a in pair.ask(ApiKey.OFFSET_FETCH, 8, fetch_offsets)),
               timeout=30, message="committed offset 17 visible on both", interval=0.05)
    script.same(ApiKey.OFFSET_FETCH, 8, fetch_offsets)


def test_add_partitions_to_txn_v5_from_a_broker_verifies_or_adds(pair):
    script, topic, txn = Script(pair), unique_topic("tv2-broker"), unique_topic("txn")
    create_topic(pair, topic)
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", "pid"))
    add = ApiKey.ADD_PARTITIONS_TO_TXN
    script.same(add, BROKER_ADD, broker_add(txn, "pid", 0, topic, True))  # not in it
    script.same(add, BROKER_ADD, broker_add(txn, "pid", 0, topic, False))  # added
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))
    script.same(add, BROKER_ADD, broker_add(txn, "pid", 0, topic, True))  # in it now
    script.same(add, BROKER_ADD, broker_add(txn, "pid", 5, topic, False))  # fenced
    script.same(add, BROKER_ADD, broker_add(txn, "pid", 0, topic, False, 9))  # no such partition
    script.same(add, BROKER_ADD, broker_add("never-initialized", "pid", 0, topic, True))
    script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")


def txn_commit_v6(txn: str, group: str, member: str, epoch, topics: list[tuple[object, int]]) -> dict:
    """TxnOffsetCommit v6 (KIP-1319): partition 0 of each topic, named by its id."""
    return {"transactional_id": txn, "group_id": group, "producer_id": Sym("pid"), "producer_epoch": 0,
            "generation_id": epoch, "member_id": member, "group_instance_id": None, "topics": [
                {"topic_id": topic_id, "partitions": [{"partition_index": 0, "committed_offset": offset,
                                                       "committed_leader_epoch": -1,
                                                       "committed_metadata": ""}]}
                for topic_id, offset in topics]}


def test_txn_offset_commit_v6_names_topics_by_id(pair):
    """TxnOffsetCommit v6: topics by id (each broker is sent its own), UNKNOWN_TOPIC_ID for an id neither
    knows; and the two errors v3-5 say as ILLEGAL_GENERATION: STALE_MEMBER_EPOCH for a consumer group
    member's older epoch, GROUP_ID_NOT_FOUND for a member of a group the coordinator does not have."""
    script, topic, txn, group = transactional_producer_and_group(pair, "txn-v6")
    script.learn("topic id", *(side.request(ApiKey.METADATA, 12, {"topics": [{"name": topic}]})
                               .topics[0].topic_id for side in pair.sides))
    member = str(uuid.uuid4())
    ours, apache = script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848,
                               consumer_group_heartbeat(group, member, 0, topic), intended=(FIRST_EPOCH,))
    script.learn("member epoch", ours["member_epoch"], apache["member_epoch"])
    nobody = uuid.uuid4()
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, 6, txn_commit_v6(txn, group, member, member_epoch(0),
                                                                      [(nobody, 1)]))
    assert [(t["topic_id"], t["partitions"]) for t in ours["topics"]] == [
        (nobody, [{"partition_index": 0, "error_code": Errors.UNKNOWN_TOPIC_ID}])]
    for version, stale in ((5, Errors.ILLEGAL_GENERATION), (6, Errors.STALE_MEMBER_EPOCH)):
        ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, version, txn_commit(
            txn, group, "pid", member, member_epoch(-1), topic, 5) if version == 5 else txn_commit_v6(
            txn, group, member, member_epoch(-1), [(Sym("topic id"), 5)]))
        assert {p["partition_index"]: p["error_code"] for p in ours["topics"][0]["partitions"]}[0] == stale
    stranger = unique_topic("nobody-g")
    find_coordinator(pair, stranger, GROUP)
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, 6, txn_commit_v6(txn, stranger, member, 1,
                                                                      [(Sym("topic id"), 5)]))
    assert ours["topics"][0]["partitions"][0]["error_code"] == Errors.GROUP_ID_NOT_FOUND
    ours, _ = script.same(ApiKey.TXN_OFFSET_COMMIT, 6, txn_commit_v6(
        txn, group, member, member_epoch(0), [(Sym("topic id"), 42), (nobody, 1)]))
    assert [t["topic_id"] for t in ours["topics"]] == [nobody, script.value("ours", "topic id")]
    script.same(ApiKey.END_TXN, END_V2, end_txn(txn, "pid", 0, True))
    settled(script, txn, "CompleteCommit")
    fetch_offsets = {"groups": [{"group_id": group, "member_id": None, "member_epoch": -1,
                                 "topics": [{"topic_id": Sym("topic id"), "partition_indexes": [0]}]}],
                     "require_stable": True}
    wait_until(lambda: all(a["groups"][0]["topics"][0]["partitions"][0]["committed_offset"] == 42
                           for a in script.ask(ApiKey.OFFSET_FETCH, 10, fetch_offsets)),
               timeout=30, message="committed offset 42 visible on both", interval=0.05)
    script.same(ApiKey.CONSUMER_GROUP_HEARTBEAT, HEARTBEAT_848, consumer_group_heartbeat(group, member, -1))


def test_init_producer_id_v5_answers_as_v4(pair):
    """InitProducerId v5 (KIP-890) says the client understands TRANSACTION_ABORTABLE, which Kafka 4.4's
    coordinator never answers InitProducerId with: a new id, an idempotent one, the epoch bump of a producer
    that names its id and epoch (KIP-360), a wrong epoch, and an id without an epoch, as at v4."""
    script, txn = Script(pair), unique_topic("txn-v5")
    find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    ours, _ = script.same(ApiKey.INIT_PRODUCER_ID, 5, init_producer_id(txn), learn=("producer_id", "pid"))
    assert (ours["error_code"], ours["producer_epoch"]) == (Errors.NONE, 0)
    script.same(ApiKey.INIT_PRODUCER_ID, 5, init_producer_id(None), learn=("producer_id", "idempotent"))
    bump = {**init_producer_id(txn), "producer_id": Sym("pid"), "producer_epoch": 0}
    ours, _ = script.same(ApiKey.INIT_PRODUCER_ID, 5, bump)
    assert (ours["error_code"], ours["producer_id"], ours["producer_epoch"]) == (Errors.NONE, "pid", 1)
    script.same(ApiKey.INIT_PRODUCER_ID, 5, bump)  # epoch 0 again: no longer the producer's
    script.same(ApiKey.INIT_PRODUCER_ID, 5, {**bump, "producer_epoch": -1})  # INVALID_REQUEST
    script.same(ApiKey.DESCRIBE_TRANSACTIONS, 0, describe_transactions(txn))


def test_list_transactions_v2_filters_by_a_transactional_id_pattern(pair):
    """KIP-1152: a pattern the whole transactional id must match (RE2/J's matches()); empty or null lists
    all; one RE2/J does not compile (a bad one, or Python-only lookahead) is INVALID_REGULAR_EXPRESSION,
    with nothing else in the answer."""
    script, prefix = Script(pair), unique_topic("pattern")
    txns = {f"{prefix}-a1", f"{prefix}-a2", f"{prefix}-b1"}
    for txn in sorted(txns):
        find_coordinator(pair, txn, TRANSACTION)
    producer_ids_ready(pair)
    for txn in sorted(txns):
        script.same(ApiKey.INIT_PRODUCER_ID, INIT, init_producer_id(txn), learn=("producer_id", txn))
    a1, a2, b1 = f"{prefix}-a1", f"{prefix}-a2", f"{prefix}-b1"
    for pattern, expected in ((f"{prefix}-a.*", {a1, a2}), (f"{prefix}-a", set()),
                              (f"{prefix}-[ab]1", {a1, b1}), ("", txns), (None, txns)):
        ours, apache = script.ask(ApiKey.LIST_TRANSACTIONS, 2, {
            "state_filters": [], "producer_id_filters": [], "duration_filter": -1,
            "transactional_id_pattern": pattern})
        assert only(ours, txns) == only(apache, txns)
        assert {t["transactional_id"] for t in only(ours, txns)["transaction_states"]} == expected
    for bad in ("(", f"{prefix}(?=-a).*", "[z-a]"):
        ours, _ = script.same(ApiKey.LIST_TRANSACTIONS, 2, {
            "state_filters": ["Nonsense"], "producer_id_filters": [], "duration_filter": -1,
            "transactional_id_pattern": bad})
        assert ours["error_code"] == Errors.INVALID_REGULAR_EXPRESSION


def test_write_txn_markers_v2_carries_each_markers_transaction_version(pair):
    """KIP-1228: v2 adds TransactionVersion per marker, as a coordinator sends it (0 for a TV_0 or TV_1
    client's transaction, 2 for TV_2). Markers for a producer neither broker has seen: the first and a
    repeat at the same epoch are written (at TV_2 a repeat at the epoch that ended no transaction is
    Kafka's idempotent retry), an older epoch is INVALID_PRODUCER_EPOCH, a topic not there
    UNKNOWN_TOPIC_OR_PARTITION."""
    topic = unique_topic("markers-v2")
    create_topic(pair, topic)

    def markers(epoch: int, version: int, name: str = topic) -> dict:
        return {"markers": [{"producer_id": 424242, "producer_epoch": epoch, "transaction_result": True,
                             "coordinator_epoch": 0, "transaction_version": version,
                             "topics": [{"name": name, "partition_indexes": [0]}]}]}

    fenced = Errors.INVALID_PRODUCER_EPOCH
    for epoch, version, error in ((5, 2, Errors.NONE), (5, 2, Errors.NONE), (3, 0, fenced), (3, 2, fenced),
                                  (5, 0, Errors.NONE)):
        ours = pair.same(ApiKey.WRITE_TXN_MARKERS, 2, markers(epoch, version))
        assert ours.markers[0].topics[0].partitions[0].error_code == error
    pair.same(ApiKey.WRITE_TXN_MARKERS, 2, markers(5, 2, unique_topic("nowhere")))
