#!/usr/bin/env python3
"""The table at the end of `make bench`: each workload, this broker beside the reference broker,
as ratios from the same sitting (docs/performance.md keeps a dated copy).

    python bench/ratios.py RESULTS_DIR

RESULTS_DIR holds one JSON-lines file per broker and workload, `ours-LABEL.jsonl` and
`reference-LABEL.jsonl`, as bench/compare.sh writes them with bench.py's --json (one line a run)
or bench/idle_consumers.py's. For each workload it prints the medians and:

- throughput: ours over the reference (above 1: this broker is faster);
- broker CPU per message: the reference's over ours (above 1: this broker spends less CPU on each
  message). On two cores the client is often the bottleneck and both brokers wait on it; then
  throughput says little about the broker, and CPU per message is the measure that does;
- for the latency and idle runs, which have a fixed rate, broker CPU: ours over the reference
  (below 1: this broker is cheaper).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def runs(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip().startswith("{")]


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cpu_per_message_us(phase: dict) -> float | None:
    """Broker CPU time per message, in µs: its average CPU share over the phase, per message a second."""
    if not phase.get("msgs_s"):
        return None
    return phase["broker_cpu_avg"] / 100 / phase["msgs_s"] * 1e6


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def throughput_rows(label: str, ours: list[dict], ref: list[dict]) -> list[tuple]:
    rows = []
    for phase in ("produce", "consume"):
        o = [r[phase] for r in ours if phase in r]
        f = [r[phase] for r in ref if phase in r]
        if not o:
            continue
        o_rate, f_rate = median([x["msgs_s"] for x in o]), median([x["msgs_s"] for x in f])
        o_cpu, f_cpu = median([cpu_per_message_us(x) for x in o]), median([cpu_per_message_us(x) for x in f])
        o_client, f_client = median([x["client_cpu"] for x in o]), median([x["client_cpu"] for x in f])
        rows.append((f"{label} {phase}",
                     f"{o_rate:,.0f} msg/s, {o_cpu:.2f} µs/msg (client {o_client:.0f}%)",
                     f"{f_rate:,.0f} msg/s, {f_cpu:.2f} µs/msg (client {f_client:.0f}%)" if f_rate else "-",
                     f"throughput {ratio(o_rate, f_rate)}, CPU/msg {ratio(f_cpu, o_cpu)}"))
    return rows


def fixed_rate_row(label: str, ours: list[dict], ref: list[dict]) -> tuple:
    def cpu(rs: list[dict]) -> float | None:
        return median([r.get("broker_cpu_avg", r.get("broker_cpu")) for r in rs])

    def describe(rs: list[dict]) -> str:
        if not rs:
            return "-"
        text = f"broker {cpu(rs):.1f}% of a core"
        if "ack_p50_ms" in rs[0]:
            text += f", ack p50 {median([r['ack_p50_ms'] for r in rs]):.1f} ms"
            e2e = median([r.get("e2e_p50_ms") for r in rs])
            text += f", end-to-end p50 {e2e:.1f} ms" if e2e is not None else ""
        return text
    return label, describe(ours), describe(ref), f"broker CPU {ratio(cpu(ours), cpu(ref))}"


def main() -> None:
    results = Path(sys.argv[1])
    labels = sorted({p.name.split("-", 1)[1][: -len(".jsonl")] for p in results.glob("ours-*.jsonl")})
    rows = []
    for label in labels:
        ours, ref = runs(results / f"ours-{label}.jsonl"), runs(results / f"reference-{label}.jsonl")
        if ours and "produce" in ours[0]:
            rows += throughput_rows(label, ours, ref)
        elif ours:
            rows.append(fixed_rate_row(label, ours, ref))
    widths = [max(len(str(r[i])) for r in rows + [("workload", "this broker", "reference", "ratio")])
              for i in range(4)]
    print("== ratios, this broker beside the reference in this sitting (medians)")
    for row in [("workload", "this broker", "reference", "ratio"), *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    main()
