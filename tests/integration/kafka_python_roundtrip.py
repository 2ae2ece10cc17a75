"""Run by test_kafka_python.py with kafka-python 3.x's own interpreter (.venv-kafka-python): that
library's import name is `kafka` too, so it cannot share a process with this broker's package.

Produces N keyed records with kafka-python's default producer (idempotent since 3.0: acks=all,
an InitProducerId first, every batch numbered) and reads them back with its consumer; prints JSON.
"""

import json
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
futures = [producer.send(topic, key=b"key-%d" % (n % 7), value=b"value-%05d" % n) for n in range(count)]
producer.flush(30)
offsets = [f.get(timeout=30) for f in futures]
producer.close()

consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                         consumer_timeout_ms=5000)
partitions = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic))]
consumer.assign(partitions)
received = []
for message in consumer:
    received.append([message.partition, message.offset, message.key.decode(), message.value.decode()])
    if len(received) == count:
        break
consumer.close()
print(json.dumps({"idempotent": producer.config["enable_idempotence"],
                  "acked": [[m.partition, m.offset] for m in offsets], "received": received}))
