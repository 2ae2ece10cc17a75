"""The PartitionChangeBuilder's eligible leader replicas (KIP-966), decision by decision, as Kafka 4.4's
builder takes them: replicas 1, 2, 3 and min.insync.replicas 2 unless a test says otherwise."""

from __future__ import annotations

import uuid

import pytest

from kafka.controller.partition_change_builder import Election, PartitionChangeBuilder
from kafka.image.topics_image import PartitionRegistration
from kafka.protocol.metadata_records import NO_LEADER

TOPIC_ID = uuid.UUID(int=7)


def partition(isr, leader, elr=(), last_known_elr=()) -> PartitionRegistration:
    return PartitionRegistration((1, 2, 3), tuple(isr), leader, 5, 9, elr=tuple(elr),
                                 last_known_elr=tuple(last_known_elr))


def change(p: PartitionRegistration, target_isr, alive=(1, 2, 3), elr_enabled=True, min_isr=2,
           unclean_shutdown=(), election=Election.ONLINE) -> PartitionRegistration:
    """The partition after the change the builder writes (itself if it writes none)."""
    builder = PartitionChangeBuilder(TOPIC_ID, 0, p, lambda r: r in alive, min_isr, elr_enabled)
    builder.set_target_isr(target_isr).set_election(election).set_unclean_shutdown_replicas(unclean_shutdown)
    record = builder.build()
    return p.merge(record.data) if record is not None else p


def test_members_the_isr_loses_below_min_isr_join_the_elr():
    after = change(partition((1, 2, 3), 1), (1, 2), alive=(1, 2))
    assert (after.isr, after.elr) == ((1, 2), ()), "at min ISR: no ELR"
    after = change(after, (1,), alive=(1,))
    assert (after.isr, after.elr, after.leader) == ((1,), (2,), 1)


def test_the_isr_empties_and_a_live_elr_member_leads_alone():
    below = partition((1,), 1, elr=(2,))
    offline = change(below, (), alive=())
    assert (offline.leader, offline.isr, offline.elr) == (NO_LEADER, (), (1, 2))
    assert offline.last_known_elr == (1,), "the leader the ISR emptied under"
    back = change(offline, (), alive=(2,))
    assert (back.leader, back.isr, back.elr, back.last_known_elr) == (2, (2,), (1,), ())


def test_back_at_min_isr_the_elr_is_emptied():
    after = change(partition((2,), 2, elr=(1,)), (2, 3))
    assert (after.isr, after.elr) == ((2, 3), ())


def test_an_unclean_shutdown_leaves_the_elr():
    after = change(partition((), NO_LEADER, elr=(1, 2), last_known_elr=(1,)), (), alive=(3,),
                   unclean_shutdown=(2,))
    assert (after.leader, after.elr) == (NO_LEADER, (1,))


def test_with_no_isr_and_no_elr_the_last_known_leader_is_elected_alone():
    """A lone broker back from kill -9: it left the ISR and the ELR, but it was the last leader."""
    after = change(partition((), NO_LEADER, last_known_elr=(1,)), (), alive=(1,))
    assert (after.leader, after.isr, after.last_known_elr) == (1, (1,), ())


@pytest.mark.parametrize("election", [Election.ONLINE, Election.UNCLEAN])
def test_without_elr_the_isr_keeps_its_last_member(election):
    after = change(partition((1,), 1), (), alive=(), elr_enabled=False, election=election)
    assert (after.leader, after.isr, after.elr) == (NO_LEADER, (1,), ())


def test_an_unclean_election_takes_a_live_replica_and_clears_the_elr():
    after = change(partition((), NO_LEADER, elr=(1,)), (), alive=(3,), election=Election.UNCLEAN)
    assert (after.leader, after.isr, after.elr) == (3, (3,), ())
