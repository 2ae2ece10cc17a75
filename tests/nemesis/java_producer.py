"""The Java client among the nemesis's workloads: Apache Kafka's KafkaProducer (Java defaults:
enable.idempotence=true, acks=all) in a JVM beside the confluent-kafka producers.

tests/jvm/src/main/java/teaching/jvm/NemesisProducer.java sends unique values and prints a line per
event (sent, acked with partition and offset, failed, fatal); this thread parses them into the same
ProducerHistory the librdkafka producers fill, so the checker counts its records like theirs: each
acknowledged value present exactly once, in the order this producer sent it. The class is compiled
per run into the run's own directory (never into the shared tests/jvm/target), against the
kafka-clients jars the JVM tier resolves. Without a JDK or those jars the run says why and goes on.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

from tests.jvm import resolve
from tests.nemesis.workload import ProducerHistory

NAME = "java"  # its values are javag<generation>-<seq>; the librdkafka producers' are p<n>g<generation>-<seq>
PROFILE = "clients-4"
SOURCES = Path(__file__).resolve().parents[1] / "jvm" / "src" / "main" / "java"
MAIN = "teaching.jvm.NemesisProducer"


def compile_producer(out_dir: Path) -> tuple[str | None, str | None]:
    """(classpath, None) once NemesisProducer is compiled into out_dir; (None, why not) otherwise."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return None, f"{tool} not found (a JDK: Debian's default-jdk-headless)"
    try:
        jars = resolve.classpath(PROFILE)
    except resolve.ResolveError as e:
        return None, str(e)
    except FileNotFoundError:
        return None, "mvn not found, so kafka-clients cannot be resolved (Debian's maven package)"
    out_dir.mkdir(parents=True, exist_ok=True)
    source = SOURCES / "teaching" / "jvm" / "NemesisProducer.java"
    done = subprocess.run(["javac", "-nowarn", "-Xlint:none", "--release", "17", "-d", str(out_dir), "-cp", jars,
                           "-sourcepath", str(SOURCES), str(source)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return None, f"javac failed: {done.stderr.strip()[-500:]}"
    return f"{out_dir}:{jars}", None


class JavaProducer(threading.Thread):
    """Runs NemesisProducer until `stop` is set, recording its history; `errors` holds what went wrong
    with the JVM itself (exit status, unparsed lines), not the client's errors, which are history."""

    def __init__(self, classpath: str, bootstrap: str, topic: str, history: ProducerHistory,
                 stop: threading.Event, log_path: Path) -> None:
        super().__init__(daemon=True, name=f"producer-{NAME}")
        self.classpath, self.bootstrap, self.topic = classpath, bootstrap, topic
        self.history, self.stopping, self.log_path = history, stop, log_path
        self.errors: list[str] = []
        self.process: subprocess.Popen | None = None

    def run(self) -> None:
        with open(self.log_path, "ab") as stderr:
            self.process = subprocess.Popen(
                ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", self.classpath, MAIN, self.bootstrap,
                 self.topic, NAME], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True)
        threading.Thread(target=self._stop_when_told, daemon=True, name="producer-java-stop").start()
        for line in self.process.stdout:
            self.record(line.rstrip("\n"))
        code = self.process.wait()
        if code != 0:
            self.errors.append(f"java exited {code} (its stderr: {self.log_path})")

    def record(self, line: str) -> None:
        """One line of NemesisProducer's output into the history."""
        kind, _, rest = line.partition(" ")
        if kind == "sent":
            self.history.sent.setdefault(rest.rsplit("-", 1)[0], []).append(rest)
        elif kind == "acked":
            value, partition, offset = rest.split(" ")
            self.history.acknowledged[value] = (int(partition), int(offset))
        elif kind == "failed":
            value, _, error = rest.partition(" ")
            self.history.failed[value] = error
        elif kind == "fatal":
            self.history.fatal.append(rest)
        elif kind != "done":
            self.errors.append(f"unexpected line from {MAIN}: {line[:200]}")

    def _stop_when_told(self) -> None:
        self.stopping.wait()
        try:
            self.process.stdin.write("stop\n")
            self.process.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:  # its close() waits up to 120 s for what is in flight
            self.process.wait(150)
        except subprocess.TimeoutExpired:
            self.errors.append("java still running 150 s after stop: killed")
            self.process.kill()
