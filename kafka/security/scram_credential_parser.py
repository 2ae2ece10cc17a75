"""The SCRAM credential syntax of Kafka's tools: `SCRAM-SHA-512=[name=alice,password=alice-secret]`
(kafka-storage format --add-scram) and `SCRAM-SHA-512=[iterations=8192,password=alice-secret]`
(kafka-configs --add-config). Mirrors the parsing in Kafka's StorageTool and ConfigCommand.

Keys inside the brackets: name, password, iterations (default 4096; Kafka's salt and saltedpassword
are not taken). Errors are ValueErrors that quote the argument.
"""

from __future__ import annotations

import re

from kafka.security.scram_mechanism import MAX_ITERATIONS, MECHANISM_NAMES, MIN_ITERATIONS, ScramMechanism

DEFAULT_ITERATIONS = 4096
_ENTRY = re.compile(r"\s*(?P<mechanism>[A-Z0-9-]+)\s*=\s*\[(?P<body>[^\]]*)\]\s*")


def parse_scram_entries(text: str) -> list[tuple[ScramMechanism, dict[str, str]]]:
    """`MECH=[k=v,...]` entries separated by commas (between brackets); each mechanism checked."""
    out, pos = [], 0
    while pos < len(text):
        m = _ENTRY.match(text, pos)
        if m is None:
            raise ValueError(f"expected MECHANISM=[key=value,...] in {text!r}")
        mechanism = ScramMechanism.for_name(m.group("mechanism"))
        if mechanism is None:
            raise ValueError(f"unknown SCRAM mechanism {m.group('mechanism')!r} (expected one of "
                             f"{', '.join(MECHANISM_NAMES)})")
        options = {}
        for part in filter(None, (p.strip() for p in m.group("body").split(","))):
            key, sep, value = part.partition("=")
            if not sep:
                raise ValueError(f"expected key=value, got {part!r} in {text!r}")
            options[key.strip().lower()] = value.strip().strip('"')
        out.append((mechanism, options))
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise ValueError(f"expected ',' between SCRAM entries in {text!r}")
            pos += 1
    return out


def iterations_of(options: dict[str, str]) -> int:
    raw = options.get("iterations", str(DEFAULT_ITERATIONS))
    try:
        iterations = int(raw)
    except ValueError:
        raise ValueError(f"iterations must be a number, got {raw!r}") from None
    if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations {iterations} is outside {MIN_ITERATIONS}..{MAX_ITERATIONS}")
    return iterations
