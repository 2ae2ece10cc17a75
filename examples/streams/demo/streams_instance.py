"""One instance of a Kafka Streams application: a JVM running WordCount or OrderPayments from the examples'
jar, with a state directory of its own.

Its stdout (the lines StreamsInstance.java prints: state changes, tasks, stores restored from changelogs) is
read line by line, kept, and passed to ``say`` with the instance's name in front; its stderr (Kafka's
warnings) goes to a log file beside the state directory. ``kill()`` is ``kill -9``: no commit, no leaving
the group, a transaction left open; ``start()`` again runs a new JVM on the same state directory.
"""

from __future__ import annotations

import re
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

RESTORED = re.compile(r"^restored store (\S+) from (\S+): (\d+) records")
# The JVM's start-up is most of an instance's start: C1 only, and a heap the size of a small demo.
JAVA_OPTIONS = ("-XX:TieredStopAtLevel=1", "-Xmx256m", "-XX:+UseSerialGC")


class StreamsInstance:
    def __init__(self, name: str, main_class: str, jar: Path, bootstrap: str, state_dir: Path,
                 say: Callable[[str], None]) -> None:
        self.name = name
        self.main_class = main_class
        self.jar = jar
        self.bootstrap = bootstrap
        self.state_dir = state_dir
        self.log_path = state_dir.parent / f"{name}.log"
        self.say = say
        self.process: subprocess.Popen | None = None
        self.lines: list[str] = []  # every stdout line, of every start
        self.starts = 0
        self._lock = threading.Lock()

    def start(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with open(self.log_path, "ab") as log:
            command = ["java", *JAVA_OPTIONS, "-cp", str(self.jar), self.main_class, self.bootstrap,
                       str(self.state_dir)]
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        threading.Thread(target=self._read_stdout, args=(self.process, self.starts), daemon=True,
                         name=f"{self.name}-stdout").start()
        self.say(f"[{self.name}] started: pid {self.process.pid}, state directory {self.state_dir}")

    def _read_stdout(self, process: subprocess.Popen, start: int) -> None:
        for line in process.stdout:
            line = line.rstrip("\n")
            with self._lock:
                self.lines.append(f"{start} {line}")
            self.say(f"[{self.name}] {line}")

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """kill -9: the JVM dies at once, in the middle of whatever transaction it had open."""
        if self.running:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
            self.say(f"[{self.name}] killed with SIGKILL (kill -9)")

    def stop(self, timeout: float = 40.0) -> None:
        """SIGTERM: KafkaStreams.close() commits, leaves the group and stops; kill -9 if it takes too long."""
        if self.running:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def said(self, start: int | None = None) -> list[str]:
        """The stdout lines of one start (1, 2, ...), or of all of them."""
        with self._lock:
            return [line.split(" ", 1)[1] for line in self.lines
                    if start is None or line.split(" ", 1)[0] == str(start)]

    def restored(self, start: int) -> dict[tuple[str, str], int]:
        """{(store, changelog partition): records restored from it} during one start."""
        return {(m.group(1), m.group(2)): int(m.group(3))
                for line in self.said(start) if (m := RESTORED.match(line))}

    def is_running_streams(self) -> bool:
        """Its last state change of this start was to RUNNING."""
        states = [line for line in self.said(self.starts) if line.startswith("state ")]
        return bool(states) and " -> RUNNING" in states[-1]

    def stderr_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""
