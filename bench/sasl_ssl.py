#!/usr/bin/env python3
"""The shared harness (../shared/bench/bench.py) over SASL_SSL: what TLS costs this broker.

Starts a broker of its own, as `make bench` starts ours (config/server.properties, one node), with a
SASL_SSL listener beside its PLAINTEXT one: a PEM keystore and CA made at run time by
tests/security/certificates.py (never committed), SCRAM-SHA-512 with one user written by
`kafka-storage format --add-scram`, no authoriser (the cost measured is the transport's, not the
ACLs'). Then it runs bench.py unchanged against the SASL_SSL listener, its producer, consumer and
admin client given `security.protocol=SASL_SSL` and the login, and prints the ratio of each phase's
throughput and broker CPU per message to a PLAINTEXT run of the same workload: the cost of TLS here.
On PLAINTEXT a fetch's records go to the socket with `os.sendfile`; over TLS they are read and
encrypted in Python's `ssl` module (docs/security.md, "The cost: no zero-copy"), and every produce
is decrypted before it is parsed.

With --apache the broker is Apache Kafka 4.4.0 instead (tests/jvm/apache_kafka.py, one KRaft node with
the same SASL_SSL listener, SCRAM user and certificates), which loses zero-copy over TLS too
(`SslTransportLayer.transferFrom` reads and encrypts what `FileChannel.transferTo` would send): its own
cost of TLS is the yardstick for ours. As bench/compare.sh does with Apache Kafka, it is warmed up
first, the workload once over each listener and nothing recorded, so that its JIT has compiled the
PLAINTEXT and the TLS paths; then PLAINTEXT and SASL_SSL are measured in the same sitting, and the
TLS_COST lines name it.

    PYTHONPATH=. python bench/sasl_ssl.py --harness ../shared/bench/bench.py --plaintext-json
    R/ours-1-1KiB-1p.jsonl \
        -- --runs 3 -n 200000 -s 1024 --json R/ours-9-1KiB-1p-sasl-ssl.jsonl
    PYTHONPATH=. python bench/sasl_ssl.py --also-plaintext -- --runs 1 -n 200000 -s 1024   # alone: both here
    PYTHONPATH=. python bench/sasl_ssl.py --apache -- --runs 3 -n 200000 -s 1024 --json
    R/apache-9-1KiB-1p-sasl-ssl.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from replicated import load_harness

from kafka.utils.free_port import free_port
from tests.jvm.apache_kafka import ApacheKafka, SaslSsl
from tests.security.certificates import Certificates

REPO = Path(__file__).resolve().parents[1]
USER, PASSWORD = "bench", "bench-secret"


def wait_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"sasl_ssl.py: the broker did not listen on {port} within {timeout:.0f} s")


def start_broker(directory: Path, certs: Certificates, plain_port: int,
                 tls_port: int) -> tuple[int, Callable]:
    """A formatted node with a PLAINTEXT and a SASL_SSL listener; its one SCRAM user made at format time."""
    props = {"listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_SSL://127.0.0.1:{tls_port}",
             "advertised.listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_SSL://127.0.0.1:{tls_port}",
             "log.dirs": str(directory / "data"), "metrics.listener": "",
             "listener.name.sasl_ssl.sasl.enabled.mechanisms": "SCRAM-SHA-512",
             "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config":
                 f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{USER}" '
                 f'password="{PASSWORD}";',
             **certs.broker_ssl_configs(prefix="listener.name.sasl_ssl.")}
    overrides = [arg for key, value in props.items() for arg in ("--override", f"{key}={value}")]
    config = str(REPO / "config" / "server.properties")
    cluster_id = subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "random-uuid"], cwd=REPO,
                                check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "kafka.tools.storage_tool", "format", "-t", cluster_id, "-c",
                    config,
                    *overrides, "--add-scram", f"SCRAM-SHA-512=[name={USER},password={PASSWORD}]"],
                   cwd=REPO, check=True, capture_output=True)
    log = open(directory / "broker.log", "wb")  # noqa: SIM115 (the broker's for its lifetime)
    broker = subprocess.Popen([sys.executable, "-m", "kafka", config, *overrides], cwd=REPO, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        wait_port(tls_port)
    except SystemExit:
        broker.kill()
        raise

    def stop() -> None:
        broker.terminate()
        broker.wait(60)
    return broker.pid, stop


def start_apache(directory: Path, certs: Certificates, plain_port: int,
                 tls_port: int) -> tuple[int, Callable]:
    """One Apache Kafka node (tests/jvm/apache_kafka.py) with the same two listeners and SCRAM user."""
    kafka = ApacheKafka(directory / "apache", port=plain_port,
                        sasl_ssl=SaslSsl(tls_port, USER, PASSWORD, certs.broker_ssl_configs())).start()
    return kafka.pids[0], kafka.stop


def secured(cls, extra: dict):
    """A confluent-kafka class whose every instance gets `extra` added to its settings."""
    return lambda conf, *args, **kwargs: cls({**conf, **extra}, *args, **kwargs)


def run_harness(harness_path: str, args: list[str], bootstrap: str, pid: int, extra: dict | None) -> None:
    harness = load_harness(harness_path)
    if extra:
        harness.Producer = secured(harness.Producer, extra)
        harness.Consumer = secured(harness.Consumer, extra)
        harness.AdminClient = secured(harness.AdminClient, extra)
    sys.argv = ["bench.py", "--bootstrap", bootstrap, "--broker-pid", str(pid), *args]
    harness.main()


def replaced(args: list[str], option: str, value: str | None) -> list[str]:
    """bench.py's arguments with `option` and its value taken out, and put back with `value` if given."""
    if option in args:
        i = args.index(option)
        args = [*args[:i], *args[i + 2:]]
    return [*args, option, value] if value is not None else args


def medians(path: Path) -> dict[str, tuple[float, float]]:
    """Per phase: the median msg/s and the median broker CPU per message (µs) of the runs in `path`."""
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    out = {}
    for phase in ("produce", "consume"):
        rates = [r[phase]["msgs_s"] for r in runs if phase in r]
        cpu = [r[phase]["broker_cpu_avg"] / 100 / r[phase]["msgs_s"] * 1e6 for r in runs
               if phase in r and r[phase]["msgs_s"]]
        if rates:
            out[phase] = (statistics.median(rates), statistics.median(cpu) if cpu else 0.0)
    return out


def print_cost(plaintext: Path, tls: Path, broker: str = "") -> None:
    """The TLS_COST lines, `broker` (e.g. "apache") after the tag when it is not this broker."""
    plain, over_tls = medians(plaintext), medians(tls)
    for phase in ("produce", "consume"):
        if phase in plain and phase in over_tls:
            (p_rate, p_cpu), (t_rate, t_cpu) = plain[phase], over_tls[phase]
            cpu = f"{t_cpu / p_cpu:.2f}" if p_cpu else "-"
            print(f"TLS_COST {broker + ' ' if broker else ''}{phase}: SASL_SSL {t_rate:,.0f} msg/s, "
                  f"PLAINTEXT {p_rate:,.0f} msg/s: throughput {t_rate / p_rate:.2f} of PLAINTEXT, "
                  f"broker CPU per message {cpu} times PLAINTEXT's")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", default="../shared/bench/bench.py")
    ap.add_argument("--plaintext-json", type=Path, help="bench.py's --json of the same workload on PLAINTEXT")
    ap.add_argument("--also-plaintext", action="store_true",
                    help="first run the workload on this broker's PLAINTEXT listener, for the ratio")
    ap.add_argument("--apache", action="store_true",
                    help="Apache Kafka instead: warmed up over both listeners, then PLAINTEXT and SASL_SSL "
                         "measured")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="bench.py's own arguments, after --")
    a = ap.parse_args()
    if a.apache and a.plaintext_json:
        ap.error("--apache measures its own PLAINTEXT run: no --plaintext-json")
    args = [x for x in a.rest if x != "--"]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below stops the broker
    with tempfile.TemporaryDirectory(prefix="kafka-bench-tls-") as tmp:
        directory = Path(tmp)
        certs = Certificates.create(directory / "certs")
        plain_port, tls_port = free_port(), free_port()
        pid, stop = (start_apache if a.apache else start_broker)(directory, certs, plain_port, tls_port)
        try:
            tls_json = Path(args[args.index("--json") + 1]) if "--json" in args else directory / "tls.jsonl"
            args = replaced(args, "--json", str(tls_json))
            plain, tls = f"127.0.0.1:{plain_port}", f"127.0.0.1:{tls_port}"
            login = {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                     "sasl.username": USER,
                     "sasl.password": PASSWORD, "ssl.ca.location": certs.ca_file}
            if a.apache:
                print("== apache: warm-up, the workload once over PLAINTEXT and once over SASL_SSL (not "
                      "recorded)")
                warm_up = replaced(replaced(args, "--json", None), "--runs", "1")
                with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                    run_harness(a.harness, warm_up, plain, pid, None)
                    run_harness(a.harness, warm_up, tls, pid, login)
            plaintext_json = a.plaintext_json
            if a.also_plaintext or a.apache:
                plaintext_json = directory / "plaintext.jsonl"
                print("== PLAINTEXT, on the same broker")
                run_harness(a.harness, replaced(args, "--json", str(plaintext_json)), plain, pid, None)
                print("== SASL_SSL (SCRAM-SHA-512, TLS 1.3)")
            run_harness(a.harness, args, tls, pid, login)
            if plaintext_json is not None and plaintext_json.exists():
                print_cost(plaintext_json, tls_json, "apache" if a.apache else "")
        finally:
            stop()


if __name__ == "__main__":
    main()
