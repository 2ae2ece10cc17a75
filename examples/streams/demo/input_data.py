"""The demo's input, known in advance, and the output it implies.

Word count: sentences drawn (seeded, so every run writes the same ones) from a small vocabulary; the count of
each word is what a Counter of their words says. Orders and payments: one order every six seconds of record
time, and for each a payment pattern that the five-minute join window either accepts or rejects:

    order id % 10   payments                                      joins
    0,1,2,4,6,8     one, 30 s to 270 s after the order            1
    3               two (paid in two parts), 1 and 4 min after    2
    5               one, 2 minutes *before* the order (prepaid)    1: a join window looks both ways
    7               one, 8 minutes after                          0: outside the window
    9               none                                          0

Every record carries its own timestamp (record time, which Streams' windows use), starting two hours before
the demo: the whole input spans half an hour, well inside OrderPayments' grace period.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

VOCABULARY = ("kafka streams log partition offset broker topic record commit replica leader follower "
              "consumer producer group window join state store changelog task thread transaction "
              "exactly once").split()
MINUTE_MS = 60_000


@dataclass(frozen=True)
class InputRecord:
    topic: str
    key: str
    value: str
    timestamp_ms: int


@dataclass(frozen=True)
class DemoInput:
    """What the producer writes, in three phases, and what the applications must make of it."""
    phases: tuple[tuple[InputRecord, ...], ...]
    sentences: int
    orders: int
    payments: int

    @property
    def records(self) -> list[InputRecord]:
        return [r for phase in self.phases for r in phase]

    def expected_word_counts(self) -> Counter[str]:
        return Counter(word for r in self.records if r.topic == "sentences" for word in words(r.value))

    def expected_joins(self) -> Counter[tuple[str, str]]:
        """(order id, joined value) for every order and payment at most five minutes apart: what
        OrderPayments' joiner makes of the pair."""
        orders = {r.key: r for r in self.records if r.topic == "orders"}
        joins: Counter[tuple[str, str]] = Counter()
        for payment in (r for r in self.records if r.topic == "payments"):
            order = orders.get(payment.value.split(",", 1)[0])
            if order is not None and abs(order.timestamp_ms - payment.timestamp_ms) <= 5 * MINUTE_MS:
                joins[(order.key, f"order {order.value} paid by {payment.value}")] += 1
        return joins


def words(sentence: str) -> list[str]:
    """WordCount's flatMapValues and filter: lower case, split on non-word characters, no empty words."""
    return [w for w in re.split(r"[^a-z0-9_]+", sentence.lower()) if w]


def demo_input(sentences: int, orders: int, start_ms: int, seed: int = 42, phases: int = 3) -> DemoInput:
    """The input in ``phases`` consecutive parts: each part holds a share of the sentences, and a share of
    the orders with their payments."""
    rng = random.Random(seed)
    parts: list[list[InputRecord]] = [[] for _ in range(phases)]
    for i in range(sentences):
        line = " ".join(rng.choices(VOCABULARY, k=rng.randint(3, 8)))
        record = InputRecord("sentences", f"line-{i}", line, start_ms + i * 1000)
        parts[i * phases // sentences].append(record)
    payments = 0
    for i in range(orders):
        at = start_ms + i * 6000
        total = 10 + i % 90
        part = parts[i * phases // orders]
        part.append(InputRecord("orders", f"order-{i}", f"customer-{i % 17},{total}", at))
        delays = _payment_delays(i)
        amounts = [total] if len(delays) == 1 else [total - total // 2, total // 2]  # paid in two parts
        for delay_ms, amount in zip(delays, amounts, strict=False):
            part.append(InputRecord("payments", f"payment-{payments}", f"order-{i},{amount}", at + delay_ms))
            payments += 1
    return DemoInput(tuple(tuple(p) for p in parts), sentences, orders, payments)


def _payment_delays(order: int) -> list[int]:
    kind = order % 10
    if kind == 9:
        return []
    if kind == 7:
        return [8 * MINUTE_MS]
    if kind == 5:
        return [-2 * MINUTE_MS]
    if kind == 3:
        return [1 * MINUTE_MS, 4 * MINUTE_MS]
    return [30_000 + (order * 37_000) % 240_000]
