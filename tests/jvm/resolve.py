"""Resolve the JVM tier's Kafka artifacts into the local Maven repository (~/.m2) and write one classpath
file per profile of pom.xml: target/classpath-clients-4.txt, classpath-clients-3.9.txt, classpath-tools.txt,
classpath-broker.txt, classpath-spark-kafka.txt (Spark's Kafka connector, for tests/spark),
classpath-broker-tiered.txt (Apache Kafka 4.3.1 with LocalTieredStorage, for bench/cold_read.py),
classpath-connect.txt (Kafka Connect and MirrorMaker 2: examples/connect/, examples/mirror/, their tests),
classpath-streams.txt (Kafka Streams, for tests/jvm/test_streams_group_protocol.py),
classpath-s3proxy.txt (the S3 server of tests/s3proxy.py; resolved on its own, not in PROFILES).

Run by `make test` (the stamp target/.resolved) and by the tier's fixtures when a file is missing. Offline
first, so a warm repository costs no network; online when something is missing. If Maven cannot fetch an
artifact the run fails with one line naming it: the tier never skips silently.
Standard library only: it runs before the virtual environment matters.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE / "target"
STAMP = TARGET / ".resolved"
PROFILES = ("clients-4", "clients-3.9", "tools", "broker", "broker-tiered", "spark-kafka", "connect",
            "streams")

# Maven's ways of saying which coordinate it could not get, most specific first.
_UNRESOLVED = (
    re.compile(r"Plugin (\S+:\S+:\S+) or one of its dependencies could not be resolved"),
    re.compile(r"artifact descriptor for (\S+:\S+:\S+)"),
    re.compile(r"[Cc]ould not (?:transfer|find) artifact (\S+:\S+:\S+)"),
    re.compile(r"artifacts could not be resolved: (\S+:\S+:\S+)"),
    re.compile(r"Failed to collect dependencies at (\S+:\S+:\S+)"),
)


class ResolveError(Exception):
    """One line: which artifact Maven could not resolve, and why in Maven's words."""


def classpath_file(profile: str) -> Path:
    return TARGET / f"classpath-{profile}.txt"


def classpath(profile: str) -> str:
    """The profile's classpath, resolving first if its file is missing or older than pom.xml."""
    path = classpath_file(profile)
    if not path.exists() or path.stat().st_mtime < (HERE / "pom.xml").stat().st_mtime:
        resolve_profile(profile)
    return path.read_text().strip()


def resolve_profile(profile: str) -> None:
    TARGET.mkdir(exist_ok=True)
    base = ["mvn", "-B", "-q", "-f", str(HERE / "pom.xml"),
            "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath", "-P", profile,
            f"-Dmdep.outputFile={classpath_file(profile)}"]
    offline = subprocess.run([*base, "-o"], capture_output=True, text=True)
    if offline.returncode == 0:
        return
    online = subprocess.run(base, capture_output=True, text=True)
    if online.returncode != 0:
        raise ResolveError(_one_line(profile, online.stdout + online.stderr))


def _one_line(profile: str, output: str) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", output)  # Maven colours its errors even with -B on some terminals
    artifact = next((m.group(1).rstrip(":,") for p in _UNRESOLVED if (m := p.search(text))), None)
    reason = next((line.removeprefix("[ERROR] ").strip() for line in text.splitlines()
                   if line.startswith("[ERROR]") and line.strip() != "[ERROR]"), text.strip()[:200])
    what = artifact or f"the artifacts of profile {profile}"
    return (f"JVM tier: could not resolve {what} from Maven Central (profile {profile} of "
            f"tests/jvm/pom.xml): {reason[:300]}")


def main(argv: list[str]) -> int:
    """``resolve.py`` resolves every profile and touches the stamp; ``resolve.py spark-kafka`` only
    those named."""
    try:
        for profile in argv or PROFILES:
            resolve_profile(profile)
    except ResolveError as e:
        print(e, file=sys.stderr)
        return 1
    except FileNotFoundError:
        print("JVM tier: mvn not found: install Maven (Debian's maven package)", file=sys.stderr)
        return 1
    if not argv:
        STAMP.touch()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
