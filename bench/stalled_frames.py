#!/usr/bin/env python3
"""What stalled clients cost the broker in memory (issue 27, item 5): its RSS idle, then under
twenty connections that each announce a 100 MB request, send 20 MB of it and stop.

Before queued.max.request.bytes existed the broker buffered whatever each connection sent (445 MB
for these twenty). With it, the network threads take a frame's buffer from a MemoryPool of that
size and stop reading a connection when the pool is empty, so the pool bounds what is pinned; and
connections.max.idle.ms closes the stalled connections in the end (10 minutes by default, longer
than this measurement).

    python bench/stalled_frames.py [--queued-max-request-bytes 104857600] [--connections 20]

--queued-max-request-bytes 0 leaves the key out (a broker that does not know it, or Kafka's default -1).
"""

from __future__ import annotations

import argparse
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb(pid: int, seconds: float) -> float:
    peak = 0.0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        peak = max(peak, rss_mb(pid))
        time.sleep(0.1)
    return peak


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(data_dir: str, port: int, queued_max_request_bytes: int) -> subprocess.Popen:
    overrides = {"listeners": f"PLAINTEXT://127.0.0.1:{port}",
                 "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                 "log.dirs": data_dir, "metrics.listener": ""}
    if queued_max_request_bytes:
        overrides["queued.max.request.bytes"] = str(queued_max_request_bytes)
    args = [sys.executable, "-m", "kafka", str(REPO / "config" / "server.properties")]
    for key, value in overrides.items():
        args += ["--override", f"{key}={value}"]
    broker = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return broker
        except OSError:
            time.sleep(0.1)
    broker.kill()
    raise SystemExit("the broker did not start")


def stall(port: int, connections: int, announced: int, sent: int, quiet_s: float) -> list[socket.socket]:
    """Open the connections, announce `announced` bytes on each and push `sent` of them, until the
    broker has stopped taking bytes for `quiet_s` (it reads no further than its pool allows)."""
    selector = selectors.DefaultSelector()
    socks = []
    for _ in range(connections):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        socks.append(sock)
        selector.register(sock, selectors.EVENT_WRITE, [struct.pack(">i", announced), sent])
    chunk = b"\x00" * (256 * 1024)
    last_progress = time.monotonic()
    while selector.get_map() and time.monotonic() - last_progress < quiet_s:
        for key, _ in selector.select(0.2):
            prefix, left = key.data
            try:
                n = key.fileobj.send(prefix if prefix else chunk[: min(len(chunk), left)])
            except (BlockingIOError, ConnectionError):
                continue
            last_progress = time.monotonic()
            if prefix:
                key.data[0] = prefix[n:]
            else:
                key.data[1] = left - n
                if key.data[1] <= 0:
                    selector.unregister(key.fileobj)
    selector.close()
    return socks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queued-max-request-bytes", type=int, default=104857600)
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--announced-mb", type=int, default=100)
    parser.add_argument("--sent-mb", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kafka-bench-stalled-") as data_dir:
        port = free_port()
        broker = start_broker(data_dir, port, args.queued_max_request_bytes)
        try:
            time.sleep(3)  # let start-up settle before the idle figure
            idle = rss_mb(broker.pid)
            socks = stall(port, args.connections, args.announced_mb * MB, args.sent_mb * MB, quiet_s=3)
            stalled = peak_rss_mb(broker.pid, seconds=1.0)
            for sock in socks:
                sock.close()
        finally:
            broker.terminate()
            broker.wait(30)
    pool = f"queued.max.request.bytes={args.queued_max_request_bytes}" if args.queued_max_request_bytes \
        else "queued.max.request.bytes unset"
    print(f"STALLED_FRAMES idle RSS {idle:.0f} MB; under {args.connections} stalled {args.announced_mb} MB "
          f"frames ({args.sent_mb} MB sent each) {stalled:.0f} MB, +{stalled - idle:.0f} MB "
          f"({pool})", flush=True)


if __name__ == "__main__":
    main()
