"""One member of a consumer group, run as its own process by test_group_consumers.py.

    python -m tests.clients.group_member BOOTSTRAP TOPIC GROUP STRATEGY

Prints one "EVENT <json>" line per event: {"assigned": [...]} after each rebalance and {"records": [[p,
offset], ...]} after each poll that returned records (committed synchronously before printing). A commit the
group refuses because it is rebalancing (Kafka's CommitFailedException) is reported as {"commit_failed": ...}
and those records are not counted: their next owner reads them from the last committed offset, as a Java
application that catches the exception would see. SIGTERM closes the consumer (leaving the group) and exits.
"""

import json
import signal
import sys

from kafka.clients.consumer import ConsumerRebalanceListener, KafkaConsumer
from kafka.clients.errors import KafkaError
from kafka.protocol.errors import Errors

REBALANCING = (Errors.REBALANCE_IN_PROGRESS, Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID)


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer):
        self.consumer = consumer

    def on_partitions_assigned(self, assigned):
        print("EVENT", json.dumps({"assigned": sorted(tp.partition for tp in self.consumer.assignment())}),
              flush=True)

    def on_partitions_revoked(self, revoked):
        print("EVENT", json.dumps({"revoked": sorted(tp.partition for tp in revoked)}), flush=True)


def main() -> None:
    bootstrap, topic, group, strategy = sys.argv[1:5]
    consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "group.id": group,
                              "auto.offset.reset": "earliest",
                              "enable.auto.commit": False, "partition.assignment.strategy": strategy,
                              "heartbeat.interval.ms": 200, "session.timeout.ms": 10000})
    running = [True]
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
    consumer.subscribe([topic], listener=Listener(consumer))
    while running[0]:
        records = list(consumer.poll(100))
        if records:
            try:
                consumer.commit()
            except KafkaError as e:
                if e.error not in REBALANCING:
                    raise
                print("EVENT", json.dumps({"commit_failed": e.error.name}), flush=True)
                continue
            print("EVENT", json.dumps({"records": [[r.partition, r.offset] for r in records]}), flush=True)
    consumer.close()
    print("EVENT", json.dumps({"closed": True}), flush=True)


if __name__ == "__main__":
    main()
