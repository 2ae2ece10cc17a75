"""The JVM tier's plumbing: Kafka's jars (resolved by resolve.py), the scenarios compiled with javac,
and `java -cp` runs with a deadline.

Why javac from here and not `mvn package`: Maven's start-up costs seconds on every run and its output
could be stale when someone runs pytest without make; javac compiles the six small sources in about
two seconds, against each client version, into a fresh directory once per pytest session. Maven only
fetches the artifacts. The compile against both versions is itself a check: the scenarios use only
API that kafka-clients 3.9 and 4.x share, except those in src/clients4/ (the share consumer), compiled
against 4.x alone.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.jvm import resolve

SOURCES = Path(__file__).resolve().parent / "src" / "main" / "java"
# Scenarios of API kafka-clients 3.9 does not have (KafkaShareConsumer): compiled against clients-4 only.
CLIENTS_4_SOURCES = Path(__file__).resolve().parent / "src" / "clients4" / "java"
CLIENT_PROFILES = ("clients-4", "clients-3.9")


def classpath(profile: str) -> str:
    """Kafka's jars for one profile; a resolve failure fails the test in Maven's one line, never skips."""
    try:
        return resolve.classpath(profile)
    except resolve.ResolveError as e:
        pytest.fail(str(e), pytrace=False)
    except FileNotFoundError:
        pytest.fail("JVM tier: mvn not found: install Maven (`make test` does, with Debian's maven package)",
                    pytrace=False)


_COMPILED: dict[str, str] = {}  # profile -> classpath, for the rest of this pytest session


def compile_scenarios(profile: str, out_dir: Path) -> str:
    """javac the scenarios against one client version; the classpath to run them with. Once a
    session a profile: every later caller gets the first one's classes (pytest keeps its temporary
    directories until the session is over), which saves a javac of a few seconds each time."""
    if profile in _COMPILED:
        return _COMPILED[profile]
    jars = classpath(profile)
    sources = sorted(str(p) for p in SOURCES.rglob("*.java"))
    if profile == "clients-4":
        sources += sorted(str(p) for p in CLIENTS_4_SOURCES.rglob("*.java"))
    done = subprocess.run(["javac", "-nowarn", "-Xlint:none", "--release", "17", "-d", str(out_dir), "-cp",
                           jars,
                           *sources], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"javac against {profile} failed:\n{done.stderr}"
    _COMPILED[profile] = f"{out_dir}:{jars}"
    return _COMPILED[profile]


def run_java(cp: str, main: str, *args: str, timeout: float = 120.0, stdin: str | None = None,
             ) -> subprocess.CompletedProcess:
    """One JVM: `java -cp cp main args...`, killed at the deadline."""
    return subprocess.run(["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", cp, main, *args],
                          input=stdin, capture_output=True, text=True, timeout=timeout)


def run_scenarios(cp: str, bootstrap: str, *scenarios: str, timeout: float = 240.0) -> dict:
    """teaching.jvm.Main: the scenarios in one JVM, their JSON summary."""
    done = run_java(cp, "teaching.jvm.Main", bootstrap, *scenarios, timeout=timeout)
    assert done.returncode == 0, f"java exited {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])
