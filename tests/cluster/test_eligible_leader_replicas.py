"""Eligible leader replicas (KIP-966) on a split cluster: three controllers, three brokers (issue 41).

A topic of three replicas with min.insync.replicas=2. The producer sends with acks=all throughout. One
follower is stopped for good (the ISR keeps two: nothing changes). Then the two ISR members are stopped
one after the other, cleanly (SIGTERM, so each records the epoch its run ended in .kafka_cleanshutdown):
the first leaves the ISR for the ELR, the high watermark stops moving, and acks=all is refused; the
second, the leader, empties the ISR and the partition is offline. Restarting the first brings back an
ELR member: the controller elects it, a clean leader, though the ISR was empty and unclean election
is off. Once the spare has rejoined (the HW moves only at min.insync.replicas), every record the
cluster acknowledged is read back.

Without the ELR (Kafka 3) the ISR would keep its last member (the leader stopped second) and only its
return could bring the partition back.
"""

from __future__ import annotations

import pytest

from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_replication import NumberedProducer, describe, read_all
from tests.cluster.test_split_cluster import FAST_FAILURE_DETECTION, SPLIT, create_replicated_topic
from tests.helpers import wait_until

pytestmark = pytest.mark.timeout(300)


def test_a_clean_leader_from_the_elr_when_the_isr_has_emptied(tmp_path, request):
    with started_cluster(tmp_path, request, FAST_FAILURE_DETECTION, roles=SPLIT) as cluster:
        topic = create_replicated_topic(cluster, via=4)
        first = describe(cluster, topic)
        leader = first.leader
        first_member, spare = [r for r in first.replicas if r != leader]

        producer = NumberedProducer(cluster.bootstrap, topic)
        producer.start()
        wait_until(lambda: len(producer.acknowledged) >= 200, timeout=60, message="200 acknowledged")
        cluster.nodes[spare].stop()  # the ISR keeps two members, min.insync.replicas: acks=all goes on
        wait_until(lambda: (p := describe(cluster, topic)) and len(p.isr) == 2, timeout=30,
                   message="the spare out of the ISR")
        acked_at_two = len(producer.acknowledged)
        wait_until(lambda: len(producer.acknowledged) >= acked_at_two + 200, timeout=60,
                   message="200 more acknowledged by an ISR of two")

        cluster.nodes[first_member].stop()  # under min ISR: it goes to the ELR, the HW stops
        wait_until(lambda: (p := describe(cluster, topic)) and list(p.isr) == [leader], timeout=30,
                   message="the ISR down to the leader")
        acknowledged = stop_refused(producer)
        cluster.nodes[leader].stop()  # the ISR empties: offline, but the ELR knows two clean replicas

        cluster.nodes[first_member].start()
        elected = wait_until(lambda: (p := describe(cluster, topic)) and p.leader >= 0 and p, timeout=60,
                             message="a leader elected from the ELR")
        assert (elected.leader, list(elected.isr)) == (first_member, [first_member])

        # An ISR of one is under min.insync.replicas: the new leader's high watermark stays where its
        # follower's was (Kafka 4.4's rule), so what it holds above that is not readable yet. The spare
        # catches up and joins the ISR; at the minimum again, the HW moves up to everything.
        cluster.nodes[spare].start()
        wait_until(lambda: (p := describe(cluster, topic)) and len(p.isr) == 2, timeout=60,
                   message="the spare back in the ISR, at min.insync.replicas again")
        seen, _ = read_all(cluster, topic)
        lost = acknowledged - seen
        assert not lost, f"{len(lost)} acknowledged records lost, e.g. {sorted(lost)[:10]}"


def stop_refused(producer: NumberedProducer) -> set[int]:
    """What was acknowledged, once the producer is stopped: what it still holds is refused (the ISR is
    under min.insync.replicas), so it is purged rather than retried until message.timeout.ms."""
    producer._stopping.set()
    producer.join(30)
    producer.producer.purge()
    producer.producer.flush(10)
    return set(producer.acknowledged)
