#!/usr/bin/env python3
"""What seed 002's hand-offs cost in CPython, with no Kafka work at all: the floor under every request.

A request's journey crosses threads twice: the network thread puts it on the request queue, an
I/O thread takes it, and the I/O thread hands the response back by queueing it and waking the
network thread's selector (kafka/network/request_channel.py). Each crossing wakes a sleeping
thread, which must take the GIL. This script measures that alone, in two 60-line servers:

    inline   one thread: select, read the 4-byte request, write it back
    handoff  the broker's shape: a network thread with a selector, a queue.Queue to a pool of
             I/O threads, a response queue and a socketpair to wake the selector

A client in another process sends one request at a time at a fixed rate and waits for the answer.
The server's CPU comes from /proc/<pid>/task/*/schedstat (nanoseconds, every thread).

    python bench/handoff_floor.py [--rate 400] [--seconds 15] [--io-threads 8]

docs/performance.md explains the figures: at the latency run's request rate the hand-offs alone
take a share of a core comparable to the whole of the reference broker's.
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import queue
import selectors
import socket
import threading
import time


def serve_inline(listener: socket.socket) -> None:
    conn, _ = listener.accept()
    selector = selectors.DefaultSelector()
    selector.register(conn, selectors.EVENT_READ)
    while True:
        for _ in selector.select(0.3):
            data = conn.recv(65536)
            if not data:
                return
            conn.sendall(data)


def serve_handoff(listener: socket.socket, io_threads: int) -> None:
    conn, _ = listener.accept()
    requests: queue.Queue = queue.Queue(maxsize=500)  # RequestChannel's request queue
    responses: queue.SimpleQueue = queue.SimpleQueue()  # the Processor's response queue
    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)

    def io_thread() -> None:  # KafkaRequestHandler: take a request, answer it, wake the network thread
        while True:
            request = requests.get()
            responses.put(request)
            wake_w.send(b"\0")

    for _ in range(io_threads):
        threading.Thread(target=io_thread, daemon=True).start()
    selector = selectors.DefaultSelector()
    selector.register(conn, selectors.EVENT_READ, "client")
    selector.register(wake_r, selectors.EVENT_READ, "wakeup")
    while True:  # the Processor's loop
        for key, _ in selector.select(0.3):
            if key.data == "client":
                data = conn.recv(65536)
                if not data:
                    return
                for i in range(0, len(data), 4):
                    requests.put(data[i : i + 4])
            else:
                wake_r.recv(4096)
                while True:
                    try:
                        conn.sendall(responses.get_nowait())
                    except queue.Empty:
                        break


def server_main(mode: str, listener: socket.socket, io_threads: int) -> None:
    if mode == "inline":
        serve_inline(listener)
    else:
        serve_handoff(listener, io_threads)


def cpu_ns(pid: int) -> int:
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except OSError:  # a thread that ended between the listing and the read
            pass
    return total


def measure(mode: str, rate: int, seconds: float, io_threads: int) -> float:
    """Server CPU per request, in µs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    # fork: the child inherits the listening socket
    server = multiprocessing.get_context("fork").Process(target=server_main,
                                                         args=(mode, listener, io_threads),
                                                         daemon=True)
    server.start()
    client = socket.create_connection(listener.getsockname())
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for _ in range(100):  # warm up: threads started, connection accepted
        client.sendall(b"ping")
        client.recv(4)
    n = int(rate * seconds)
    start, cpu_before = time.perf_counter(), cpu_ns(server.pid)
    for i in range(n):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        client.sendall(b"ping")
        client.recv(4)
    cpu = cpu_ns(server.pid) - cpu_before
    client.close()
    server.join(5)
    listener.close()
    return cpu / n / 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rate", type=int, default=400,
                    help="requests a second (the latency run makes about 400)")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--io-threads", type=int, default=8, help="num.io.threads")
    a = ap.parse_args()
    inline = measure("inline", a.rate, a.seconds, a.io_threads)
    handoff = measure("handoff", a.rate, a.seconds, a.io_threads)
    print(f"HANDOFF rate={a.rate}/s: inline {inline:.0f} µs a request, with the two hand-offs {handoff:.0f} "
          f"µs: {handoff - inline:.0f} µs a request, {(handoff - inline) * a.rate / 1e4:.1f}% of a "
          "core at this rate")


if __name__ == "__main__":
    main()
