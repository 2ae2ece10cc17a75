"""Issue 38 with Apache Kafka's Java client 4.4: a transactional read-process-write copy
(teaching.jvm.CoordinatorFailoverCopy: KafkaConsumer with group.protocol consumer or classic,
read_committed; KafkaProducer with a transactional.id; sendOffsetsToTransaction(offsets,
consumer.groupMetadata())) of an input topic on three real nodes, while the leader of the group's
__consumer_offsets partition is killed with SIGKILL and restarted.

The cluster, the input, the kill and restart, and the checks are those of
tests/cluster/test_exactly_once_coordinator_failover.py: the JVM copies; Python kills once it has
reported a third copied, restarts the node once another leads the partition and coordinates the group
(the JVM waits at two thirds until the node is back in the ISR), and afterwards reads the output with
read_committed -- every input value exactly once -- and the group's committed offsets -- the input's
end offsets. 100,000 records (EOS_FAILOVER_RECORDS for another count).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest

from tests.cluster.kraft_cluster import started_cluster
from tests.cluster.test_exactly_once_coordinator_failover import (
    CLUSTER,
    assert_exactly_once,
    fill,
    kill_and_restart_the_coordinator,
    prepare_topics,
)
from tests.helpers import unique_topic
from tests.jvm.jvm import compile_scenarios

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def classpath(tmp_path_factory) -> str:
    return compile_scenarios("clients-4", tmp_path_factory.mktemp("classes-clients-4"))


class JavaCopy:
    """The JVM running CoordinatorFailoverCopy, its stdout parsed by a thread."""

    def __init__(self, cp: str, args: list[str], stderr_path) -> None:
        self.stderr_path = stderr_path
        with open(stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                ["java", "-XX:TieredStopAtLevel=1", "-cp", cp, "teaching.jvm.CoordinatorFailoverCopy", *args],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.copied = 0
        self.paused = threading.Event()
        self.result: dict | None = None
        self.reader = threading.Thread(target=self._read, daemon=True, name="java-copy-stdout")
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.startswith("COPIED "):
                self.copied = int(line.split()[1])
            elif line.startswith("PAUSED"):
                self.paused.set()
            elif line.startswith("{"):
                self.result = json.loads(line)

    def running_copied(self) -> int:
        assert self.process.poll() is None or self.result is not None, (
            f"the JVM exited {self.process.returncode}: {self.stderr()}")
        return self.copied

    def resume(self) -> None:
        self.process.stdin.write("resume\n")
        self.process.stdin.flush()

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


@pytest.mark.parametrize("protocol", ["consumer", "classic"])
def test_a_java_transactional_copy_is_exactly_once_across_a_group_coordinator_kill(protocol, classpath,
                                                                                   tmp_path,
                                                                                  request):
    started = time.monotonic()
    with started_cluster(tmp_path, request, extra=CLUSTER) as cluster:
        source, sink = unique_topic("jeos-in"), unique_topic("jeos-out")
        group = unique_topic(f"jeos-{protocol}")
        admin = prepare_topics(cluster, source, sink)
        bootstrap = cluster.bootstrap
        ends = fill(bootstrap, source)
        filled = time.monotonic()
        java = JavaCopy(classpath, [bootstrap, protocol, source, sink, group, unique_topic("jeos-copier")],
                        tmp_path / "java-copy.stderr")
        try:
            failover = kill_and_restart_the_coordinator(cluster, admin, group, java.running_copied)
            java.resume()
            java.process.wait(300)
            java.reader.join(10)
        except (AssertionError, subprocess.TimeoutExpired) as e:
            raise AssertionError(f"{e}; {protocol}: {java.copied} copied; stderr: {java.stderr()}") from None
        finally:
            java.stop()
        assert java.process.returncode == 0 and java.result is not None, java.stderr()
        context = f"{protocol}: {failover}, Java copy {java.result}"
        print(context, f"fill {filled - started:.1f} s, copy {time.monotonic() - filled:.1f} s")
        assert java.result["copied"] >= sum(ends.values()), context
        assert_exactly_once(admin, bootstrap, group, source, sink, ends, context)
