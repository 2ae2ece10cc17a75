"""TimelineLong: Kafka's 64-bit twin of TimelineInteger (org.apache.kafka.timeline.TimelineLong).

A Python int has no width, so the two are the same counter; the second name lets code that mirrors
Kafka's say TimelineLong where Kafka does.
"""

from __future__ import annotations

from kafka.timeline.timeline_integer import TimelineInteger


class TimelineLong(TimelineInteger):
    pass
