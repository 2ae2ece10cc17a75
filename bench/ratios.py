#!/usr/bin/env python3
"""The tables at the end of `make bench`: each workload on this broker, the reference broker and
Apache Kafka, then the ratios of each pair, all from the same sitting (docs/performance.md keeps a
dated copy).

    python bench/ratios.py RESULTS_DIR

RESULTS_DIR holds one JSON-lines file per broker and workload, `BROKER-LABEL.jsonl` with BROKER one
of `ours`, `reference`, `apache`, as bench/compare.sh writes them with bench.py's --json (one line a
run) or bench/idle_consumers.py's; labels starting `rf3-` are the three-node runs
(bench/replicated.py, the broker figures those of the three nodes added up), and `BROKER-memory.jsonl`
holds the resident memory compare.sh read between the runs. A broker with no files has no column.

The first table gives the medians; the second, for each pair (this broker against the reference,
this broker against Apache Kafka, the reference against Apache Kafka), the first's figure against
the second's:

- throughput: the first's over the second's (above 1: the first is faster);
- broker CPU per message: the second's over the first's (above 1: the first spends less CPU on each
  message). On two cores the client is often the bottleneck and the brokers wait on it; then
  throughput says little about the broker, and CPU per message is the measure that does;
- for the latency and idle runs, which have a fixed rate, broker CPU, and for memory the peak: the
  first's over the second's (below 1: the first is cheaper).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

BROKERS = {"ours": "this broker", "reference": "reference", "apache": "Apache Kafka"}
PAIRS = (("ours", "reference"), ("ours", "apache"), ("reference", "apache"))


def runs(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip().startswith("{")]


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cpu_per_message_us(phase: dict) -> float | None:
    """Broker CPU time per message, in µs: its average CPU share over the phase, per message a second."""
    if not phase.get("msgs_s") or not phase.get("broker_cpu_avg"):
        return None  # no broker pid was given (its CPU reads as 0)
    return phase["broker_cpu_avg"] / 100 / phase["msgs_s"] * 1e6


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def pair_ratios(describe) -> dict[tuple[str, str], str]:
    """For each pair, describe(first, second): the ratio cell, or "-" when either broker has no figure."""
    return {pair: describe(*pair) for pair in PAIRS}


def throughput_rows(label: str, by_broker: dict[str, list[dict]]) -> list[tuple[str, dict, dict]]:
    rows = []
    for phase in ("produce", "consume"):
        phases = {b: [r[phase] for r in rs if phase in r] for b, rs in by_broker.items()}
        if phases.get("ours"):
            rows.append(phase_row(f"{label} {phase}", phases))
    return rows


def phase_row(label: str, phases: dict[str, list[dict]]) -> tuple[str, dict, dict]:
    """One phase (produce or consume) of a throughput workload: msg/s, broker CPU a message, client CPU."""
    rate = {b: median([x["msgs_s"] for x in ps]) for b, ps in phases.items()}
    cpu = {b: median([cpu_per_message_us(x) for x in ps]) for b, ps in phases.items()}
    client = {b: median([x["client_cpu"] for x in ps]) for b, ps in phases.items()}

    def cell(b: str) -> str:
        if not rate.get(b):
            return "-"
        per_message = f"{cpu[b]:.2f} µs/msg" if cpu[b] is not None else "broker CPU not measured"
        return f"{rate[b]:,.0f} msg/s, {per_message} (client {client[b]:.0f}%)"

    def describe(a: str, b: str) -> str:
        if not rate.get(a) or not rate.get(b):
            return "-"
        return f"throughput {ratio(rate[a], rate[b])}, CPU/msg {ratio(cpu[b], cpu[a])}"
    return label, {b: cell(b) for b in phases}, pair_ratios(describe)


def fixed_rate_row(label: str, by_broker: dict[str, list[dict]]) -> tuple[str, dict, dict]:
    def cpu(rs: list[dict]) -> float | None:
        return median([r.get("broker_cpu_avg", r.get("broker_cpu")) for r in rs])

    def cell(rs: list[dict]) -> str:
        if not rs:
            return "-"
        text = f"broker {cpu(rs):.1f}% of a core"
        if "ack_p50_ms" in rs[0]:
            text += f", ack p50 {median([r['ack_p50_ms'] for r in rs]):.1f} ms"
            e2e = median([r.get("e2e_p50_ms") for r in rs])
            text += f", end-to-end p50 {e2e:.1f} ms" if e2e is not None else ""
        return text

    def describe(a: str, b: str) -> str:
        if not by_broker.get(a) or not by_broker.get(b):
            return "-"
        return f"broker CPU {ratio(cpu(by_broker[a]), cpu(by_broker[b]))}"
    return label, {b: cell(rs) for b, rs in by_broker.items()}, pair_ratios(describe)


def memory_row(results: Path, brokers: list[str], labels: list[str]) -> tuple[str, dict, dict]:
    """Resident memory: idle at start (and after the warm-up, for a JVM), the peak of the single-node
    runs, after each throughput run deleted its topic, and at the end."""
    peaks, cells = {}, {}
    for b in brokers:
        single = [r for label in labels if not label.startswith("rf3-")
                  for r in runs(results / f"{b}-{label}.jsonl")]
        read = {k: v for line in runs(results / f"{b}-memory.jsonl") for k, v in line.items()}
        peaks[b] = peak_rss(single)
        after = [r["broker_rss_after_delete_mb"] for r in single if "broker_rss_after_delete_mb" in r]
        parts = [f"idle {read['idle_start_mb']}" if "idle_start_mb" in read else None,
                 f"warm {read['idle_warm_mb']}" if "idle_warm_mb" in read else None,
                 f"peak {peaks[b]:.0f}" if peaks[b] else None,
                 f"after delete {min(after):.0f}-{max(after):.0f}" if after else None,
                 f"end {read['end_mb']}" if "end_mb" in read else None]
        parts = [p for p in parts if p]
        cells[b] = " / ".join(parts) + " MB" if parts else "-"

    def describe(a: str, b: str) -> str:
        return f"peak RSS {ratio(peaks.get(a), peaks.get(b))}" if peaks.get(a) and peaks.get(b) else "-"
    return "resident memory", cells, pair_ratios(describe)


def peak_rss(rs: list[dict]) -> float | None:
    """The highest resident memory bench.py saw in these runs (its sampler's peak, per phase)."""
    values = [phase["broker_rss_peak_mb"] for r in rs for phase in (r.get("produce"), r.get("consume"), r)
              if isinstance(phase, dict) and "broker_rss_peak_mb" in phase]
    return max(values, default=None)


def order(label: str) -> tuple:
    """The single-node workloads by their number, then the three-node ones by theirs."""
    cluster = label.startswith("rf3-")
    number = re.match(r"\d+", label.removeprefix("rf3-"))
    return cluster, int(number.group()) if number else 0, label


def table(title: str, header: tuple, rows: list[tuple]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print(title)
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def main() -> None:
    results = Path(sys.argv[1])
    brokers = [b for b in BROKERS if any(results.glob(f"{b}-*.jsonl"))]
    labels = sorted({p.name[len("ours-"): -len(".jsonl")] for p in results.glob("ours-*.jsonl")} - {"memory"},
                    key=order)
    rows = []
    for label in labels:
        by_broker = {b: runs(results / f"{b}-{label}.jsonl") for b in brokers}
        if by_broker["ours"] and "produce" in by_broker["ours"][0]:
            rows += throughput_rows(label, by_broker)
        elif by_broker["ours"]:
            rows.append(fixed_rate_row(label, by_broker))
    rows.append(memory_row(results, brokers, labels))
    pairs = [p for p in PAIRS if p[0] in brokers and p[1] in brokers]
    table("== medians in this sitting (rf3-: three nodes, broker CPU and memory of the three added up)",
          ("workload", *(BROKERS[b] for b in brokers)),
          [(label, *(cells.get(b, "-") for b in brokers)) for label, cells, _ in rows])
    table("== ratios, each pair in this sitting (throughput: first/second, above 1 the first is faster; "
          "CPU/msg: second/first, above 1 the first is cheaper; broker CPU and peak RSS: first/second, "
          "below 1 the first is cheaper)",
          ("workload", *(f"{BROKERS[a]} / {BROKERS[b]}" for a, b in pairs)),
          [(label, *(ratios[p] for p in pairs)) for label, _, ratios in rows])


if __name__ == "__main__":
    main()
