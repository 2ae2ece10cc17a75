"""The share consumers' journals, and what they must show (tests/cluster/test_share_groups_on_a_cluster.py).

Each consumer of the test (tests/cluster/share_worker.py, and ShareGroupClusterScenario.java for the two Java
ones) writes one JSON line per event: a poll starting (it carries the acknowledgements made since the last
one), a record handed to the application with its delivery count, the broker's answer to an acknowledgement
(the acknowledgement commit callback: "acked" or "ack-failed"), and, for the consumer that is killed, the
records it held. `Journals` reads them as they grow; the checks below say what a share group owes its
consumers, in the journals' terms.

A delivery count says which acquisition of a record a delivery was: the share partition's leader counts
one more each time it hands the record out. Two things make the journals less simple than "one delivery,
one ACCEPT":

- acquisitions are not persisted. A new leader hands out again, at the same delivery count, what the old one
  had handed out and nobody had acknowledged; and an ACCEPT in flight when the leader died may have been
  applied (the new leader never hands the record out again) with its answer lost;
- a consumer may get a record after its acquisition lock ran out (its ShareFetch answer waited for the
  acknowledgements it carried, whose share coordinator was failing over), when another consumer already has
  it at a higher count. Its ACCEPT is then a late one: Kafka 4.4 answers NONE to an acknowledgement below the
  start offset ("already archived", SharePartition.acknowledge) and changes nothing.
"""

from __future__ import annotations

import bisect
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple


class Delivery(NamedTuple):
    consumer: str
    count: int
    t: int  # ms, the consumer's clock (one machine for all)
    partition: int
    offset: int


class Ack(NamedTuple):
    consumer: str
    count: int  # the delivery count of the delivery it acknowledged
    t: int
    type: str  # ACCEPT or RELEASE
    ok: bool  # the broker confirmed it; False: the client reported it failed
    err: str | None


@dataclass(frozen=True)
class Failover:
    """The partition whose leader was killed, when (ms), and when another replica led it."""
    partition: int
    killed_ms: int
    elected_ms: int


@dataclass
class Journals:
    """The consumers' JSON lines, read as they grow (whole lines only), by record value."""
    paths: list[Path]
    read_to: dict[Path, int] = field(default_factory=dict)
    deliveries: dict[str, list[Delivery]] = field(default_factory=lambda: defaultdict(list))
    acks: dict[str, list[Ack]] = field(default_factory=lambda: defaultdict(list))
    held: dict[str, Delivery] = field(default_factory=dict)
    polls: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # consumer -> times
    errors: list[str] = field(default_factory=list)  # the first 50 the clients reported
    accepted: set[str] = field(default_factory=set)  # values with a confirmed ACCEPT

    def read(self) -> Journals:
        for path in self.paths:
            if not path.exists():
                continue
            with open(path, "rb") as f:
                f.seek(self.read_to.get(path, 0))
                chunk = f.read()
            whole = chunk[:chunk.rfind(b"\n") + 1]
            self.read_to[path] = self.read_to.get(path, 0) + len(whole)
            for line in whole.decode().splitlines():
                self._add(json.loads(line))
        return self

    def _add(self, e: dict) -> None:
        event = e["e"]
        if event == "delivered":
            self.deliveries[e["v"]].append(Delivery(e["c"], e["n"], e["t"], e["p"], e["o"]))
        elif event == "held":
            self.held[e["v"]] = Delivery(e["c"], e["n"], e["t"], e["p"], e["o"])
        elif event in ("acked", "ack-failed"):
            ok = event == "acked"
            self.acks[e["v"]].append(Ack(e["c"], e["n"], e["t"], e["type"], ok, e.get("err")))
            if ok and e["type"] == "ACCEPT":
                self.accepted.add(e["v"])
        elif event == "poll":
            self.polls[e["c"]].append(e["t"])
        elif event == "error" and len(self.errors) < 50:
            self.errors.append(f"{e['c']}: {e['err']}")

    def acknowledgement_sent(self, d: Delivery) -> int:
        """When the acknowledgement of a delivery went, at the earliest: its consumer's next poll."""
        polls = self.polls[d.consumer]
        i = bisect.bisect_right(polls, d.t)
        return polls[i] if i < len(polls) else 2 ** 62


def check_accepted_exactly_once(journals: Journals, expected: list[str], failover: Failover) -> None:
    """Each record: one ACCEPT took effect, on its last acquisition; nothing acknowledged was delivered again.

    The acquisition that sticks is the last, the highest delivery count. It must end in a confirmed ACCEPT,
    or, on the killed leader's partition, in an ACCEPT sent before the leader died whose answer died with it.
    Off that partition no two deliveries of a record share a delivery count (one leader counted them all),
    and on it no record accepted before the leader died is delivered once another replica leads (a new
    leader that lost acknowledged state would hand it out). Confirmed ACCEPTs of earlier acquisitions are
    late ones, counted.
    """
    problems: list[str] = []
    in_doubt, late, counts = [], 0, defaultdict(int)
    for value in expected:
        deliveries = journals.deliveries.get(value, [])
        acks = journals.acks.get(value, [])
        if not deliveries:
            problems.append(f"{value}: never delivered")
            continue
        if any(a.ok and a.type != "ACCEPT" for a in acks):
            problems.append(f"{value}: acknowledged other than with ACCEPT: {acks}")
        partition = deliveries[0].partition
        if partition != failover.partition and len({d.count for d in deliveries}) < len(deliveries):
            problems.append(f"{value}: delivered twice at one delivery count: {deliveries}")
        top = max(d.count for d in deliveries)
        accepts = sorted((a for a in acks if a.ok and a.type == "ACCEPT"), key=lambda a: a.t)
        last = [a for a in accepts if a.count == top]
        late += len(accepts) - len(last)
        if not last:
            in_doubt.append(value)
            final = max(deliveries, key=lambda d: (d.count, d.t))
            if partition != failover.partition or journals.acknowledgement_sent(final) >= failover.killed_ms:
                problems.append(f"{value}: its last delivery was not accepted: {deliveries} {acks}")
            continue
        counts[top] += 1
        if len(last) > 1 and partition != failover.partition:
            problems.append(f"{value}: accepted {len(last)} times at delivery count {top}: {last}")
        if (partition == failover.partition and accepts[0].t < failover.killed_ms
                and any(d.t > failover.elected_ms for d in deliveries)):
            problems.append(f"{value}: accepted before its leader died and delivered again by the new one: "
                            f"{deliveries} {accepts}")
    print(f"accepted: {len(expected) - len(in_doubt)} confirmed, by delivery count "
          f"{dict(sorted(counts.items()))}; {len(in_doubt)} whose ACCEPT's answer died with the leader, "
          f"e.g. {in_doubt[:3]}; {late} late ACCEPTs of acquisitions whose lock had run out")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def check_the_leader_died_mid_stream(journals: Journals, where: dict[str, tuple[int, int]],
                                     failover: Failover) -> None:
    """The new leader handed out records of the partition nobody had had before: the kill came mid-stream.
    `where`: each record's (partition, offset)."""
    mine = [v for v, (p, _) in where.items() if p == failover.partition and v in journals.deliveries]
    after = [v for v in mine if min(d.t for d in journals.deliveries[v]) > failover.elected_ms]
    again = [v for v in mine if any(d.t > failover.elected_ms for d in journals.deliveries[v])
             and any(d.t <= failover.killed_ms for d in journals.deliveries[v])]
    print(f"partition {failover.partition}: {len(after)} of {len(mine)} records first delivered by its new "
          f"leader, {len(again)} delivered by the old one and again by the new one")
    assert after, "the leader died after its partition was done: nothing was delivered by the new one"


def check_held_records_came_back(journals: Journals, victim: str) -> None:
    """The killed consumer's acquired records: delivered to the others, one delivery count higher; accepted at
    that count, or at a higher one only after a delivery at each count between (an acquisition that did not
    stick: its lock ran out, or its ACCEPT failed)."""
    assert journals.held, f"{victim} journaled no held records"
    problems: list[str] = []
    accepted_at: dict[int, int] = defaultdict(int)
    for value, held in journals.held.items():
        later = [d for d in journals.deliveries[value] if d.count > held.count]
        if not later:
            problems.append(f"{value}: held by {victim} and never delivered again")
            continue
        first = min(later, key=lambda d: (d.count, d.t))
        if first.consumer == victim or first.count != held.count + 1:
            problems.append(f"{value}: held at delivery count {held.count}, next delivered as {first}")
        top = max(d.count for d in later)
        accepted_at[top] += 1
        if {d.count for d in later} != set(range(held.count + 1, top + 1)):
            problems.append(f"{value}: held at count {held.count}, later deliveries unexplained: {later}")
    print(f"{len(journals.held)} held by {victim}: accepted at delivery counts "
          f"{dict(sorted(accepted_at.items()))}")
    assert not problems, "\n".join(problems[:40])


def check_poison_archived(journals: Journals, poison: str, limit: int) -> None:
    """Released by everyone who got it, once at each delivery count up to the limit, never accepted; then
    archived (the start offset passing it says so: the caller's check). One count may be missing: the killed
    consumer's client may have acquired it without handing it to its application."""
    deliveries = sorted(journals.deliveries[poison], key=lambda d: d.count)
    counts = [d.count for d in deliveries]
    print(f"poison deliveries: {[(d.consumer, d.count) for d in deliveries]}")
    assert not [a for a in journals.acks[poison] if a.ok and a.type == "ACCEPT"], "the poison was accepted"
    assert len(set(counts)) == len(counts) and counts[-1] == limit, counts
    assert len(set(range(1, limit + 1)) - set(counts)) <= 1, counts
