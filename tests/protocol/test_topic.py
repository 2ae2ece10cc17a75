"""Topic names (Kafka's Topic.validate): the rule the controller and the broker's auto-creation share."""

import pytest

from kafka.protocol import topic


@pytest.mark.parametrize("name", ["", ".", "..", "a" * 250, "with space", "ü", "a/b"])
def test_illegal_names_are_refused(name):
    with pytest.raises(topic.InvalidTopicError):
        topic.validate(name)


@pytest.mark.parametrize("name", ["a", "a" * 249, "orders.v2_EU-1", "__consumer_offsets"])
def test_legal_names_pass(name):
    topic.validate(name)
