"""One share consumer in a process of its own (confluent-kafka's ShareConsumer, explicit acknowledgement), for
tests/cluster/test_share_groups_on_a_cluster.py: a process can be killed with SIGKILL while it holds records.

    python -m tests.cluster.share_worker BOOTSTRAP GROUP TOPIC NAME JOURNAL [--work-ms MS] [--hold-after N]

It works on each record for --work-ms (a job takes time: that is what a share group shares out), then
accepts it, but for the poison one, which it "fails to process" every time and hands back with RELEASE
(lab 14's step 3). Everything it sees goes to JOURNAL as JSON lines, flushed after each poll and
each acknowledgement answer, so a kill -9 loses nothing written before it:

    {"c": NAME, "e": "delivered", "v": value, "p": partition, "o": offset, "n": delivery count, "t": ms}
    {"c": NAME, "e": "acked", "type": "ACCEPT" | "RELEASE", ...}      the broker confirmed it
    {"c": NAME, "e": "ack-failed", "type": ..., "err": "...", ...}     the broker (or the client) refused it
    {"c": NAME, "e": "held", ...}                                      acquired and never acknowledged
    {"c": NAME, "e": "poll", "t": ms}                                   a poll starts: it sends the acks

"acked" is written from the acknowledgement commit callback only: the broker has answered, and a share
partition's leader answers once the share coordinator has the new state. An acknowledgement that got no
answer (its leader died with the request in flight) is neither.

With --hold-after N, once N of its acceptances are confirmed, it takes the next poll of two records or more,
accepts the first half (and waits for the broker to confirm them), writes the rest as "held", prints
`HOLDING <count>` and waits to be killed: "mid-batch, while it holds acquired records".

Closing standard input stops a worker: it leaves the group as a share consumer does (close() sends what it
has not acknowledged yet) and writes {"e": "closed"}.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import defaultdict, deque

from confluent_kafka import AcknowledgeType, KafkaException, ShareConsumer

POISON = "poison"
TYPE_NAMES = {AcknowledgeType.ACCEPT: "ACCEPT", AcknowledgeType.RELEASE: "RELEASE"}


class Journal:
    def __init__(self, path: str, name: str) -> None:
        self.out = open(path, "a", encoding="utf-8")
        self.name = name
        self.lock = threading.Lock()

    def write(self, event: str, **fields) -> None:
        line = json.dumps({"c": self.name, "e": event, **fields, "t": int(time.time() * 1000)})
        with self.lock:
            self.out.write(line + "\n")

    def flush(self) -> None:
        with self.lock:
            self.out.flush()


class Worker:
    def __init__(self, args: argparse.Namespace) -> None:
        self.journal = Journal(args.journal, args.name)
        self.hold_after = args.hold_after
        self.work_s = args.work_ms / 1000
        self.stop = threading.Event()
        # (partition, offset) -> what was sent for it, oldest first: a record whose lock ran out may come
        # back to this consumer before the answer to its first acknowledgement; answers come in order.
        self.pending: dict[tuple[int, int], deque[dict]] = defaultdict(deque)
        self.accepted = 0  # confirmed by the broker
        self.consumer = ShareConsumer({"bootstrap.servers": args.bootstrap, "group.id": args.group,
                                       "client.id": args.name, "share.acknowledgement.mode": "explicit"})
        self.consumer.set_acknowledgement_commit_callback(self.on_complete)
        self.consumer.subscribe([args.topic])

    def on_complete(self, offsets, exception) -> None:
        """The broker's answer to acknowledgements (on this thread, from poll, commit_sync or close)."""
        for tp, acknowledged in offsets.items():
            for offset in sorted(acknowledged):
                waiting = self.pending.get((tp.partition, offset))
                if not waiting:
                    continue
                sent = waiting.popleft()
                if not waiting:
                    del self.pending[(tp.partition, offset)]
                if exception is None:
                    self.journal.write("acked", **sent)
                    self.accepted += sent["type"] == "ACCEPT"
                else:
                    self.journal.write("ack-failed", **sent, err=str(exception))
        self.journal.flush()

    def acknowledge(self, message, fields: dict) -> None:
        ack = AcknowledgeType.RELEASE if fields["v"] == POISON else AcknowledgeType.ACCEPT
        self.consumer.acknowledge(message, ack)
        self.pending[(fields["p"], fields["o"])].append({**fields, "type": TYPE_NAMES[ack]})

    def run(self) -> None:
        while not self.stop.is_set():
            got = []
            self.journal.write("poll")  # what was acknowledged since the last poll goes with this one
            try:
                messages = self.consumer.poll(0.5)
            except KafkaException as e:  # the client says so; a share consumer carries on after it
                self.journal.write("error", err=str(e))
                continue
            for message in messages:
                if message.error() is not None:
                    self.journal.write("error", err=str(message.error()))
                    continue
                fields = {"v": message.value().decode(), "p": message.partition(), "o": message.offset(),
                          "n": message.delivery_count()}
                self.journal.write("delivered", **fields)
                got.append((message, fields))
            self.journal.flush()
            time.sleep(self.work_s * len(got))  # the work the records are for
            data = [g for g in got if g[1]["v"] != POISON]
            if self.hold_after is not None and self.accepted >= self.hold_after and len(data) >= 2:
                self.hold(got, data[len(data) // 2:])
                return
            for message, fields in got:
                self.acknowledge(message, fields)
        self.consumer.close()  # the last poll's acknowledgements go; the callback hears their answers
        self.journal.write("closed")
        self.journal.flush()

    def hold(self, got: list, held: list) -> None:
        """Acknowledge all but `held` and wait for the broker's answer; then keep `held` until killed."""
        kept = {fields["o"] for _, fields in held}
        for message, fields in got:
            if fields["o"] not in kept:
                self.acknowledge(message, fields)
        self.consumer.commit_sync(30)
        for _, fields in held:
            self.journal.write("held", **fields)
        self.journal.flush()
        print(f"HOLDING {len(held)}", flush=True)
        self.stop.wait()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("bootstrap", "group", "topic", "name", "journal"):
        parser.add_argument(name)
    parser.add_argument("--work-ms", type=float, default=0.0)
    parser.add_argument("--hold-after", type=int, default=None)
    worker = Worker(parser.parse_args(argv))

    def until_stdin_closes() -> None:
        sys.stdin.read()
        worker.stop.set()
    threading.Thread(target=until_stdin_closes, daemon=True).start()
    worker.run()


if __name__ == "__main__":
    main(sys.argv[1:])
