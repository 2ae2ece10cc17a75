"""Kafka's Uuid strings: 22 characters of URL-safe base64, and a random id never starts with '-'
(so `kafka-storage format -t <id>` cannot mistake it for a flag; a CI run once drew such an id)."""

from __future__ import annotations

import uuid

from kafka.utils import uuid as kafka_uuid


def test_a_uuid_is_22_characters_of_url_safe_base64():
    assert kafka_uuid.uuid_to_string(uuid.UUID(int=0)) == "AAAAAAAAAAAAAAAAAAAAAA"
    assert len(kafka_uuid.random_uuid()) == 22


def test_random_uuid_draws_again_when_the_id_would_start_with_a_dash(monkeypatch):
    dash_first = uuid.UUID(bytes=b"\xf8" + bytes(15))  # 0b111110.. is base64 index 62, '-'
    draws = iter([dash_first, dash_first, uuid.UUID(int=1)])
    monkeypatch.setattr(kafka_uuid.uuid, "uuid4", lambda: next(draws))
    assert kafka_uuid.uuid_to_string(dash_first).startswith("-")
    assert kafka_uuid.random_uuid() == kafka_uuid.uuid_to_string(uuid.UUID(int=1))
