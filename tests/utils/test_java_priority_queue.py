"""JavaPriorityQueue breaks ties as java.util.PriorityQueue does: the order below is what Java 21's
PriorityQueue gives for the same offers and polls (a comparator on the load alone), not the order a
stable sort would give. The StickyTaskAssignor relies on it to pick the same process as Kafka among
equally loaded ones."""

from __future__ import annotations

import pytest

from kafka.utils.java_priority_queue import JavaPriorityQueue

pytestmark = pytest.mark.fast

LOADS = [("a", 1), ("b", 1), ("c", 0), ("d", 1), ("e", 0), ("f", 1), ("g", 1), ("h", 0)]
JAVA_ORDER = ["c", "e", "h", "g", "f", "b", "d", "a", "c'"]


def test_ties_come_out_in_javas_order():
    queue = JavaPriorityQueue(lambda item: item[1], LOADS)
    first = queue.poll()
    queue.add((first[0] + "'", 1))  # taken, loaded, offered again: as the assignor does with a process
    order = [first[0]]
    while not queue.is_empty():
        order.append(queue.poll()[0])
    assert order == JAVA_ORDER
    assert queue.poll() is None and len(queue) == 0


def test_first_come_first_served_among_equals_would_differ():
    queue = JavaPriorityQueue(lambda item: item[1], LOADS)
    java = [queue.poll()[0] for _ in LOADS]
    assert java == ["c", "e", "h", "f", "b", "d", "a", "g"]  # Java 21's
    assert java != [name for name, _ in sorted(LOADS, key=lambda item: item[1])], "not a stable sort"
