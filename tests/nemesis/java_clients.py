"""The Java client among the nemesis's workloads: Apache Kafka's KafkaProducer and KafkaConsumer, each
in a JVM beside the confluent-kafka clients.

NemesisProducer (tests/jvm/src/main/java/teaching/jvm/NemesisProducer.java; Java defaults:
enable.idempotence=true, acks=all) sends unique values, and NemesisConsumer, a read_committed member
of the run's consumer group, commits what it polled with commitSync. Each prints a line per event;
a JavaClient thread parses them into the same histories the librdkafka clients fill
(ProducerHistory, ConsumerHistory), so the checker judges their records like the others': each
acknowledged value present exactly once, in the order its producer sent it; no commit beyond a log
end; nothing read that the final log lacks. The classes are compiled per run into the run's own
directory (never into the shared tests/jvm/target), against the kafka-clients jars the JVM tier
resolves. Without a JDK or those jars the run says why and goes on without them.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.jvm import resolve
from tests.nemesis.workload import ConsumerHistory, ProducerHistory

# the producer's values are javag<generation>-<seq>; the librdkafka ones' p<n>g<generation>-<seq>
NAME = "java"
PROFILE = "clients-4"
SOURCES = Path(__file__).resolve().parents[1] / "jvm" / "src" / "main" / "java"
PRODUCER, CONSUMER = "teaching.jvm.NemesisProducer", "teaching.jvm.NemesisConsumer"


def compile_clients(out_dir: Path) -> tuple[str | None, str | None]:
    """(classpath, None) once NemesisProducer and NemesisConsumer are compiled into out_dir; (None, why
    not) otherwise."""
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
    sources = [str(SOURCES / "teaching" / "jvm" / f"{main.rsplit('.', 1)[1]}.java")
               for main in (PRODUCER, CONSUMER)]
    done = subprocess.run(["javac", "-nowarn", "-Xlint:none", "--release", "17", "-d", str(out_dir), "-cp",
                           jars,
                           "-sourcepath", str(SOURCES), *sources], capture_output=True, text=True,
                           timeout=120)
    if done.returncode != 0:
        return None, f"javac failed: {done.stderr.strip()[-500:]}"
    return f"{out_dir}:{jars}", None


class JavaClient(threading.Thread):
    """One JVM running `main` until `stop` is set, each line of its output handed to `record`; `errors`
    holds what went wrong with the JVM itself (exit status, unparsed lines), not the client's errors,
    which are history."""

    def __init__(self, name: str, classpath: str, main: str, args: list[str],
                 record: Callable[[str, str], bool],
                 stop: threading.Event, log_path: Path) -> None:
        super().__init__(daemon=True, name=name)
        self.command = ["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath, main, *args]
        self.record, self.stopping, self.log_path = record, stop, log_path
        self.errors: list[str] = []
        self.process: subprocess.Popen | None = None

    def run(self) -> None:
        with open(self.log_path, "ab") as stderr:
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=stderr, text=True)
        threading.Thread(target=self._stop_when_told, daemon=True, name=f"{self.name}-stop").start()
        for line in self.process.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind != "done" and not self.record(kind, rest):
                self.errors.append(f"unexpected line: {line[:200]}")
        code = self.process.wait()
        if code != 0:
            self.errors.append(f"java exited {code} (its stderr: {self.log_path})")

    def _stop_when_told(self) -> None:
        self.stopping.wait()
        try:
            self.process.stdin.write("stop\n")
            self.process.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        try:  # the producer's close() waits up to 120 s for what is in flight
            self.process.wait(150)
        except subprocess.TimeoutExpired:
            self.errors.append("java still running 150 s after stop: killed")
            self.process.kill()


def producer_recorder(history: ProducerHistory) -> Callable[[str, str], bool]:
    """NemesisProducer's lines into a ProducerHistory: sent, acked, failed, fatal."""
    def record(kind: str, rest: str) -> bool:
        if kind == "sent":
            history.sent.setdefault(rest.rsplit("-", 1)[0], []).append(rest)
        elif kind == "acked":
            value, partition, offset = rest.split(" ")
            history.acknowledged[value] = (int(partition), int(offset))
        elif kind == "failed":
            value, _, error = rest.partition(" ")
            history.failed[value] = error
        elif kind == "fatal":
            history.fatal.append(rest)
        else:
            return False
        return True
    return record


def consumer_recorder(history: ConsumerHistory) -> Callable[[str, str], bool]:
    """NemesisConsumer's lines into the Java member's ConsumerHistory: read, commit, error."""
    def record(kind: str, rest: str) -> bool:
        if kind == "read":
            partition, offset, value = rest.split(" ", 2)
            history.read.append((int(partition), int(offset), value))
        elif kind == "commit":
            partition, offset = rest.split(" ")
            history.commits.append((int(partition), int(offset)))
        elif kind == "error":
            history.errors.append(rest)
        else:
            return False
        return True
    return record


class JavaClients:
    """The run's two JVMs and the Java member's own history (its commits and what it read)."""

    def __init__(self, classpath: str, bootstrap: str, topic: str, group_id: str, produced: ProducerHistory,
                 stop: threading.Event, workdir: Path) -> None:
        self.group = ConsumerHistory()
        self.produced = produced
        self.producer = JavaClient(f"producer-{NAME}", classpath, PRODUCER, [bootstrap, topic, NAME],
                                   producer_recorder(produced), stop, workdir / "java-producer.log")
        self.consumer = JavaClient(f"consumer-{NAME}", classpath, CONSUMER, [bootstrap, topic, group_id],
                                   consumer_recorder(self.group), stop, workdir / "java-consumer.log")

    def histories(self, group: ConsumerHistory,
                  reader: ConsumerHistory) -> tuple[ConsumerHistory, ConsumerHistory]:
        """What the checker judges: the group's commits with the Java member's, and every read_committed
        read (the librdkafka reader's and the Java member's) for dirty reads."""
        return (ConsumerHistory(commits=[*group.commits, *self.group.commits], errors=group.errors),
                ConsumerHistory(read=[*reader.read, *self.group.read], errors=reader.errors))

    def summary(self) -> str:
        def mine(values) -> int:
            return sum(v.startswith(NAME) for v in values)
        sent = sum(len(v) for name, v in self.produced.sent.items() if name.startswith(NAME))
        errors = self.producer.errors + self.consumer.errors
        return (f"nemesis: Java producer {sent} sent, {mine(self.produced.acknowledged)} acknowledged, "
                f"{mine(self.produced.failed)} not acknowledged (indeterminate), {mine(self.produced.fatal)} "
                f"fatal, {mine(self.produced.sent)} producer(s); Java consumer {len(self.group.read)} "
                f"records read, {len(self.group.commits)} offsets committed, {len(self.group.errors)} errors"
                + (f"; JVM: {'; '.join(errors)}" if errors else ""))


def add_java_clients(threads: list[threading.Thread], bootstrap: str, topic: str, group_id: str,
                     produced: ProducerHistory, stop: threading.Event, workdir: Path,
                     log) -> JavaClients | None:
    """Compile the Java clients and add their threads to the workload's; None, and why in the log,
    where there is no JDK or no kafka-clients."""
    started = time.monotonic()
    classpath, reason = compile_clients(workdir / "java-classes")
    if classpath is None:
        log(f"nemesis: the Java clients do not run: {reason}")
        return None
    log(f"nemesis: the Java clients (KafkaProducer, KafkaConsumer; {PROFILE}) compiled in "
        f"{time.monotonic() - started:.1f}s; they run beside the librdkafka ones")
    clients = JavaClients(classpath, bootstrap, topic, group_id, produced, stop, workdir)
    threads.extend([clients.producer, clients.consumer])
    return clients
