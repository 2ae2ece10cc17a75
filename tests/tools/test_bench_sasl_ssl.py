"""The cost of TLS in `make bench` (bench/sasl_ssl.py): the ratio it prints of each phase over SASL_SSL to
the same workload on PLAINTEXT, this broker's and Apache Kafka's (--apache), and the row the tables at
the end give it (this broker's and Apache Kafka's, not the reference's)."""

from __future__ import annotations

import sys

import pytest

from tests.helpers import REPO
from tests.tools.test_bench_ratios import ratios, row, sitting, throughput, write

pytestmark = pytest.mark.fast

sys.path.insert(0, str(REPO / "bench"))
from sasl_ssl import print_cost, replaced  # noqa: E402  (bench/ is scripts, not a package)


def test_the_cost_of_tls_is_each_phase_against_plaintext(tmp_path, capsys):
    write(tmp_path, "plain", throughput(200_000, 50.0, 50.0, 49.0), throughput(100_000, 50.0, 50.0, 49.0),
          throughput(300_000, 50.0, 50.0, 49.0))
    write(tmp_path, "tls", throughput(100_000, 60.0, 50.0, 49.0))
    print_cost(tmp_path / "plain.jsonl", tmp_path / "tls.jsonl")
    lines = capsys.readouterr().out.splitlines()
    # medians: 200k msg/s at 50% (2.5 µs a message) against 100k at 60% (6 µs)
    assert lines == [f"TLS_COST {phase}: SASL_SSL 100,000 msg/s, PLAINTEXT 200,000 msg/s: throughput 0.50 of "
                     "PLAINTEXT, broker CPU per message 2.40 times PLAINTEXT's"
                     for phase in ("produce", "consume")]


def test_the_sasl_ssl_row_is_this_brokers_alone_after_the_single_node_workloads(tmp_path):
    sitting(tmp_path, {"ours": (400_000, 40.0, 50.0), "reference": (300_000, 90.0, 200.0)})
    write(tmp_path, "ours-9-1KiB-1p-sasl-ssl", throughput(200_000, 40.0, 50.0, 49.0))
    out = ratios(tmp_path)
    medians = [line.split("  ")[0] for line in out.split("\n== ")[0].splitlines()[2:]]
    assert medians.index("9-1KiB-1p-sasl-ssl produce") == medians.index("8-20-idle-consumers") + 1
    assert "200,000 msg/s, 2.00 µs/msg" in row(out, 0, "9-1KiB-1p-sasl-ssl produce")
    assert row(out, 0, "9-1KiB-1p-sasl-ssl consume").rstrip().endswith("-")
    assert row(out, 1, "9-1KiB-1p-sasl-ssl produce").split()[-1] == "-"


def test_apache_kafkas_cost_of_tls_names_it(tmp_path, capsys):
    write(tmp_path, "plain", throughput(400_000, 40.0, 50.0, 49.0))
    write(tmp_path, "tls", throughput(300_000, 60.0, 50.0, 49.0))
    print_cost(tmp_path / "plain.jsonl", tmp_path / "tls.jsonl", "apache")
    lines = capsys.readouterr().out.splitlines()
    # 1 µs a message on PLAINTEXT, 2 over SASL_SSL
    assert lines[0] == ("TLS_COST apache produce: SASL_SSL 300,000 msg/s, PLAINTEXT 400,000 msg/s: "
                        "throughput 0.75 "
                        "of PLAINTEXT, broker CPU per message 2.00 times PLAINTEXT's")


def test_the_sasl_ssl_row_has_apache_kafkas_figures_beside_ours(tmp_path):
    sitting(tmp_path, {"ours": (400_000, 40.0, 50.0), "apache": (800_000, 40.0, 500.0)})
    write(tmp_path, "ours-9-1KiB-1p-sasl-ssl", throughput(200_000, 40.0, 50.0, 49.0))
    write(tmp_path, "apache-9-1KiB-1p-sasl-ssl", throughput(400_000, 60.0, 500.0, 499.0))
    out = ratios(tmp_path)
    assert "400,000 msg/s, 1.50 µs/msg" in row(out, 0, "9-1KiB-1p-sasl-ssl produce")
    # ours against Apache Kafka over SASL_SSL: half the rate, 2 µs a message against 1.5
    assert row(out, 1, "9-1KiB-1p-sasl-ssl produce").endswith("throughput 0.50, CPU/msg 0.75")


def test_bench_arguments_are_replaced_whole():
    args = ["--runs", "3", "-n", "200000", "--json", "a.jsonl"]
    assert replaced(args, "--json", "b.jsonl") == ["--runs", "3", "-n", "200000", "--json", "b.jsonl"]
    assert replaced(replaced(args, "--json", None), "--runs", "1") == ["-n", "200000", "--runs", "1"]
    assert replaced(["-n", "5"], "--json", "c.jsonl") == ["-n", "5", "--json", "c.jsonl"]
