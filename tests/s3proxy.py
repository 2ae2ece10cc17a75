"""S3Proxy: a real S3 server on loopback, for the S3 RemoteStorageManager's tests and for a broker that
tiers its segments to S3 on a laptop (docs/tiered_storage.md).

S3Proxy (Apache-2.0; org.gaul:s3proxy on Maven Central, the `s3proxy` profile of tests/jvm/pom.xml)
answers the S3 API from a directory: buckets are directories, objects files. It checks what S3 checks
for the calls tiered storage makes: every request's Signature Version 4 (a wrong secret is 403
SignatureDoesNotMatch), the body against its x-amz-content-sha256, Range reads, the XML error codes
(404 NoSuchKey, 400 InvalidBucketName). One jar, run with the Java 17 that `make test` installs.

    .venv/bin/python -m tests.s3proxy --port 9000 --data-dir data/s3     # what `make s3` runs

A test starts one with S3Proxy(tmp_path).start() on a free port and stops it with stop().
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
from pathlib import Path

from kafka.log.remote.aws_v4_signer import AwsCredentials
from kafka.log.remote.s3_client import S3Client, S3ClientConfig
from kafka.utils.free_port import free_port
from kafka.utils.time import SYSTEM
from tests.helpers import wait_until
from tests.jvm import resolve

BUCKET = "kafka-tiered-storage"
ACCESS_KEY_ID = "kafka-teaching"
SECRET_ACCESS_KEY = "kafka-teaching-secret"
REGION = "us-east-1"
START_TIMEOUT_S = 60  # the JVM and Jetty take a few seconds on a quiet machine; more on a busy one


class S3Proxy:
    """One S3Proxy process serving data_dir on 127.0.0.1:port, with BUCKET created."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log_file = data_dir / "s3proxy.log"

    def start(self) -> S3Proxy:
        jar = resolve.classpath("s3proxy")
        (self.data_dir / "buckets").mkdir(parents=True, exist_ok=True)
        properties = self.data_dir / "s3proxy.properties"
        properties.write_text("\n".join((
            f"s3proxy.endpoint={self.endpoint}",
            "s3proxy.authorization=aws-v4",  # as S3 does now: Signature Version 2 is refused
            f"s3proxy.identity={ACCESS_KEY_ID}",
            f"s3proxy.credential={SECRET_ACCESS_KEY}",
            "jclouds.provider=filesystem-nio2",
            f"jclouds.filesystem.basedir={self.data_dir / 'buckets'}",
        )) + "\n")
        with open(self.log_file, "ab") as log:
            self.process = subprocess.Popen(
                ["java", "-Xmx256m", "-cp", jar, "org.gaul.s3proxy.Main", "--properties", str(properties)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            wait_until(self._listening, START_TIMEOUT_S, f"S3Proxy listening on {self.port} "
                       f"(its log: {self.log_file})", interval=0.1)
            self.client().create_bucket()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def __enter__(self) -> S3Proxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def rsm_configs(self, key_prefix: str = "") -> dict[str, str]:
        """The S3RemoteStorageManager's configs for this server (without the `rsm.config.` prefix)."""
        return {"s3.bucket.name": BUCKET, "s3.endpoint.url": self.endpoint, "s3.region": REGION,
                "aws.access.key.id": ACCESS_KEY_ID, "aws.secret.access.key": SECRET_ACCESS_KEY,
                "key.prefix": key_prefix}

    def client(self) -> S3Client:
        credentials = AwsCredentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY)
        return S3Client(S3ClientConfig(self.endpoint, REGION, BUCKET, credentials), SYSTEM)

    def _listening(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"S3Proxy exited with {self.process.returncode}: "
                               f"{self.log_file.read_text(errors='replace')[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="S3Proxy on 127.0.0.1 for a broker's tiered storage")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--data-dir", type=Path, default=Path("data/s3"))
    args = parser.parse_args(argv)
    server = S3Proxy(args.data_dir.resolve(), args.port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.start()
    print(f"S3Proxy on {server.endpoint}, bucket {BUCKET}, objects under {args.data_dir}/buckets/{BUCKET}; "
          "a broker tiers to it with (docs/tiered_storage.md):")
    print("  remote.log.storage.system.enable=true")
    print("  remote.log.storage.manager.class.name="
          "kafka.log.remote.s3_remote_storage_manager.S3RemoteStorageManager")
    for key, value in server.rsm_configs().items():
        print(f"  rsm.config.{key}={value}")
    print("or, for the three nodes of make cluster: make cluster TIERED=s3\nCtrl-C stops it.", flush=True)
    try:
        assert server.process is not None
        server.process.wait()
        return server.process.returncode
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
