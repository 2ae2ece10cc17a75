"""ShareGroupAutoOffsetResetStrategy: where a share partition starts when its group has no state for it
(Kafka's org.apache.kafka.coordinator.group.ShareGroupAutoOffsetResetStrategy).

A share group's share.auto.offset.reset (a group config, KIP-932) is `latest` (the default: only
records produced from now on), `earliest` (everything the log still holds) or
`by_duration:<ISO-8601 duration>` (records appended within that long before now, e.g.
`by_duration:PT1H`). Anything else is refused when the config is set (`validate`), with Kafka's
message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka.utils.time import Time

SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset"
_DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


@dataclass(frozen=True)
class ShareGroupAutoOffsetResetStrategy:
    """'latest', 'earliest' or 'by_duration' (with its duration)."""

    type: str
    duration_ms: int = 0

    def timestamp(self, time: Time) -> int:
        """by_duration's: the records from this append time on."""
        return time.milliseconds() - self.duration_ms

    @classmethod
    def parse(cls, value: str) -> ShareGroupAutoOffsetResetStrategy:
        """Kafka's fromString; ValueError for a value it refuses (its Validator's message)."""
        text = value.strip().lower()
        if text in ("latest", "earliest"):
            return cls(text)
        if text.startswith("by_duration:"):
            match = _DURATION.match(text.split(":", 1)[1].upper())
            if match and any(match.groups()):
                days, hours, minutes, seconds = (float(g or 0) for g in match.groups())
                return cls("by_duration", int((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000))
        raise ValueError(f"Invalid value `{value}` for configuration {SHARE_AUTO_OFFSET_RESET}. The value "
                         "must be either 'earliest', 'latest' or of the format "
                         "'by_duration:<PnDTnHnMn.nS>'.")

    @classmethod
    def validate(cls, value: str) -> str | None:
        """The Validator share.auto.offset.reset is declared with: None if good, else what is wrong."""
        try:
            cls.parse(value)
        except ValueError as e:
            return str(e)
        return None
