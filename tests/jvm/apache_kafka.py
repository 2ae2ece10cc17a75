"""Apache Kafka itself, started from its Maven artifacts in KRaft mode: the oracle of the differential
suite (tests/differential/) and the yardstick column of `make bench` (bench/compare.sh).

What a user of the release tarball would do, without the tarball: `kafka-storage format` and then
`kafka-server-start.sh config/server.properties`, which are the classes `kafka.tools.StorageTool` and
`kafka.Kafka` on the classpath of tests/jvm/pom.xml's `broker` profile, with the JVM options the start
script gives (a 1 GiB heap, G1) and the settings of the tarball's config/server.properties. One node is
broker and controller at once (the quickstart); three nodes form one static quorum of three.

As a script, for make bench and for a student who wants the real thing beside ours:

    python tests/jvm/apache_kafka.py --dir /tmp/ak --port 29192 [--nodes 3]   # prints the node pids
    # and with a SASL_SSL listener beside each PLAINTEXT one:
    PYTHONPATH=. python tests/jvm/apache_kafka.py --dir /tmp/ak --port 29192 --sasl-ssl 29193

With `--sasl-ssl PORT` (or `SaslSsl`) each node has a SASL_SSL listener beside its PLAINTEXT one, as
bench/sasl_ssl.py measures it: SCRAM-SHA-512 with one user written by `kafka-storage format
--add-scram`, a PEM keystore and truststore (KIP-651; the script makes them in DIR/certs with
tests/security/certificates.py, clients trust DIR/certs/ca.pem), no authoriser.

Standard library only without --sasl-ssl, besides the repository's own kafka/utils/free_port.py
(bench/compare.sh runs it before anything else).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: tests/jvm/resolve.py is a sibling, kafka/ two levels up
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import resolve  # type: ignore[no-redef]
else:
    from tests.jvm import resolve

from kafka.utils.free_port import free_port  # noqa: E402  (standard library only, as kafka/utils/ is)

# bin/kafka-server-start.sh's KAFKA_HEAP_OPTS and bin/kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS.
JVM_OPTIONS = ("-Xmx1G", "-Xms1G", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
               "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
               "-Djava.awt.headless=true")

# The tarball's config/server.properties (KRaft, combined mode), less what each node sets for itself.
SERVER_PROPERTIES = {
    "process.roles": "broker,controller",
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "num.network.threads": "3",
    "num.io.threads": "8",
    "socket.send.buffer.bytes": "102400",
    "socket.receive.buffer.bytes": "102400",
    "socket.request.max.bytes": "104857600",
    "num.partitions": "1",
    "num.recovery.threads.per.data.dir": "1",
    "offsets.topic.replication.factor": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "log.retention.hours": "168",
    "log.segment.bytes": "1073741824",
    "log.retention.check.interval.ms": "300000",
}

# Kafka's config/log4j2.yaml in spirit: INFO to the node's server.log, nothing on the console.
LOG4J2 = """\
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
"""


SCRAM_MECHANISM = "SCRAM-SHA-512"


@dataclass(frozen=True)
class SaslSsl:
    """A SASL_SSL listener on `port` (node i: port + i): SCRAM-SHA-512 with the one user `user`, and the
    broker's `ssl.*` keys (a PEM keystore and truststore), given without the listener's prefix."""

    port: int
    user: str
    password: str
    ssl_configs: dict[str, str] = field(default_factory=dict)

    def properties(self) -> dict[str, str]:
        prefix = "listener.name.sasl_ssl."
        return {f"{prefix}sasl.enabled.mechanisms": SCRAM_MECHANISM,
                f"{prefix}{SCRAM_MECHANISM.lower()}.sasl.jaas.config":
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;",
                **{prefix + key: value for key, value in self.ssl_configs.items()}}

    def format_arguments(self) -> list[str]:
        """kafka-storage format's --add-scram: the user's credential is in the bootstrap metadata."""
        return ["--add-scram", f"{SCRAM_MECHANISM}=[name={self.user},password={self.password}]"]


class ApacheKafkaNode:
    """One `kafka.Kafka` process with its own directory: server.properties, data/, server.log."""

    def __init__(self, home: Path, node_id: int, port: int, controller_port: int, voters: str,
                 overrides: dict[str, str], classpath: str, sasl_ssl: SaslSsl | None = None,
                 jvm_options: tuple[str, ...] = ()) -> None:
        self.home, self.node_id, self.port = home, node_id, port
        self.jvm_options = jvm_options
        self.bootstrap = f"127.0.0.1:{port}"
        self.log_path = home / "server.log"
        home.mkdir(parents=True, exist_ok=True)
        props = {**SERVER_PROPERTIES, "node.id": str(node_id), "log.dirs": str(home / "data"),
                 "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
                 "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                 "controller.quorum.voters": voters}
        self.sasl_ssl = sasl_ssl
        if sasl_ssl:
            tls_port = sasl_ssl.port + node_id - 1
            props["listeners"] += f",SASL_SSL://127.0.0.1:{tls_port}"
            props["advertised.listeners"] += f",SASL_SSL://127.0.0.1:{tls_port}"
            props["listener.security.protocol.map"] += ",SASL_SSL:SASL_SSL"
            props.update(sasl_ssl.properties())
        props.update(overrides)
        if overrides.get("offsets.topic.replication.factor") is None and voters.count("@") == 3:
            props.update({k: "3" for k in ("offsets.topic.replication.factor",
                                           "transaction.state.log.replication.factor")})
            props["transaction.state.log.min.isr"] = "2"
        self.config_path = home / "server.properties"
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        (home / "log4j2.properties").write_text(LOG4J2.format(log=self.log_path))
        self.classpath = classpath
        self.process: subprocess.Popen | None = None

    def format(self, cluster_id: str) -> None:
        """kafka-storage format: the meta.properties and bootstrap checkpoint a node refuses to start
        without."""
        done = subprocess.run(["java", "-cp", self.classpath, "kafka.tools.StorageTool", "format",
                               "-t", cluster_id, "-c", str(self.config_path),
                               *(self.sasl_ssl.format_arguments() if self.sasl_ssl else [])],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError("kafka-storage format failed for node "
                               f"{self.node_id}:\n{done.stdout}{done.stderr}")

    def start(self) -> None:
        out = open(self.home / "stdout.log", "wb")
        self.process = subprocess.Popen(
            ["java", *JVM_OPTIONS, *self.jvm_options,
             f"-Dlog4j2.configurationFile={self.home / 'log4j2.properties'}",
             f"-Dkafka.logs.dir={self.home}", "-cp", self.classpath, "kafka.Kafka", str(self.config_path)],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def output(self) -> str:
        parts = [p.read_text(errors="replace")[-5000:] for p in (self.home / "stdout.log", self.log_path)
                 if p.exists()]
        return "\n".join(parts)


class ApacheKafka:
    """One node (broker and controller in one process) or three (a quorum of three combined nodes)."""

    def __init__(self, home: Path, nodes: int = 1, port: int | None = None,
                 overrides: dict[str, str] | None = None, sasl_ssl: SaslSsl | None = None,
                 profile: str = "broker", jvm_options: tuple[str, ...] = ()) -> None:
        """profile: the classpath (tests/jvm/pom.xml), "broker" for Kafka 4.4; jvm_options: added to
        JVM_OPTIONS (a JMX port, say)."""
        classpath = resolve.classpath(profile)
        ports = [port + i for i in range(nodes)] if port else [free_port() for _ in range(nodes)]
        controller_ports = [free_port() for _ in range(nodes)]
        voters = ",".join(f"{i + 1}@127.0.0.1:{p}" for i, p in enumerate(controller_ports))
        self.nodes = [ApacheKafkaNode(Path(home) / f"node-{i + 1}", i + 1, ports[i], controller_ports[i],
                                      voters,
                                      dict(overrides or {}), classpath, sasl_ssl, jvm_options)
                      for i in range(nodes)]
        self.bootstrap = ",".join(n.bootstrap for n in self.nodes)

    def start(self, timeout: float = 120.0) -> ApacheKafka:
        cluster_id = _random_cluster_id()
        for node in self.nodes:
            node.format(cluster_id)
        for node in self.nodes:
            node.start()
        self._wait_serving(timeout)
        return self

    def restart(self, timeout: float = 120.0) -> ApacheKafka:
        """Stop every node (SIGTERM: a controlled shutdown) and start it again on the same data, as an
        operator's restart would: each partition's leader epoch moves on (the controller takes leadership
        away at shutdown and gives it back once the broker is unfenced)."""
        self.stop()
        for node in self.nodes:
            node.start()
        self._wait_serving(timeout)
        return self

    def _wait_serving(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for node in self.nodes:
            while not _serves_metadata(node.port, len(self.nodes)):
                if node.process.poll() is not None:
                    self.stop()  # the other nodes too: a caller that gets no pids cannot stop them
                    raise RuntimeError(f"Apache Kafka node {node.node_id} exited {node.process.returncode}:\n"
                                       f"{node.output()}")
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"Apache Kafka node {node.node_id} not serving after {timeout:.0f} "
                                       f"s:\n{node.output()}")
                time.sleep(0.2)  # a poll interval, not a wait for something: the condition is the loop's

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    @property
    def pids(self) -> list[int]:
        return [n.process.pid for n in self.nodes if n.process]

    def __enter__(self) -> ApacheKafka:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _random_cluster_id() -> str:
    """kafka-storage random-uuid: a Uuid in Kafka's URL-safe base64 without padding, never starting with
    '-' (Uuid.randomUuid's rule: `format -t -xyz` would read the id as an option)."""
    import base64
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _serves_metadata(port: int, brokers: int) -> bool:
    """A Metadata v1 request for no topics answers with every broker registered and unfenced."""
    request = struct.pack(">hhih", 3, 1, 1, 5) + b"ready" + struct.pack(">i", 0)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(struct.pack(">i", len(request)) + request)
            size = struct.unpack(">i", _read(sock, 4))[0]
            body = _read(sock, size)
    except OSError:
        return False
    return struct.unpack(">i", body[4:8])[0] >= brokers  # correlation id, then the broker array's length


def _read(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, help="the nodes' home (config, data, server.log)")
    parser.add_argument("--port", type=int, required=True, help="first client port; node i listens on port+i")
    parser.add_argument("--nodes", type=int, default=1, choices=(1, 3))
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--sasl-ssl", type=int, metavar="PORT",
                        help="a SASL_SSL listener too; node i on PORT+i")
    parser.add_argument("--scram", default="bench=bench-secret", metavar="USER=PASSWORD",
                        help="the SCRAM-SHA-512 user of --sasl-ssl")
    args = parser.parse_args()
    overrides = dict(o.split("=", 1) for o in args.override)
    sasl_ssl = None
    if args.sasl_ssl:
        # Imported here: it needs the cryptography package and PYTHONPATH=. (the repository's tests/).
        from tests.security.certificates import Certificates
        user, password = args.scram.split("=", 1)
        certs = Certificates.create(args.dir / "certs")
        sasl_ssl = SaslSsl(args.sasl_ssl, user, password, certs.broker_ssl_configs())
    try:
        kafka = ApacheKafka(args.dir, args.nodes, args.port, overrides, sasl_ssl).start()
    except (RuntimeError, resolve.ResolveError) as e:
        print(e, file=sys.stderr)
        return 1
    print(" ".join(map(str, kafka.pids)))
    os._exit(0)  # leave the nodes running: the caller stops them with kill


if __name__ == "__main__":
    sys.exit(main())
