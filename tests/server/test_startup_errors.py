"""Acceptance (issue 27, item 7): a broker that cannot start says which key, which directory or
address, and why, in one line, and exits non-zero without a traceback. Each case runs
`python -m kafka` as a user would."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO

pytestmark = pytest.mark.broker  # each case starts `python -m kafka` as its own process


def start_broker(tmp_path: Path, **overrides: str) -> subprocess.CompletedProcess:
    props = {"listeners": "PLAINTEXT://127.0.0.1:0", "advertised.listeners": "PLAINTEXT://127.0.0.1:0",
             "metrics.listener": "http://127.0.0.1:0", "log.dirs": str(tmp_path / "data"), **overrides}
    args = [sys.executable, "-m", "kafka", str(REPO / "config" / "server.properties")]
    for key, value in props.items():
        args += ["--override", f"{key}={value}"]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=REPO)


def the_error(result: subprocess.CompletedProcess) -> str:
    """The one line the broker printed about why it stopped; no traceback anywhere."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.startswith("kafka-server-start: ")]
    assert len(lines) == 1, output
    return lines[0].removeprefix("kafka-server-start: ")


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A tmpfs of 64 KB, mounted for the test and unmounted after (needs root and mount rights)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount_point = tmp_path / "tmpfs"
    mount_point.mkdir()

    def mount(*options: str) -> Path:
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(["size=64k", *options]), "tmpfs",
                                 str(mount_point)], capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
        return mount_point

    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount_point)], capture_output=True)


def test_a_file_as_log_dirs(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory\n")
    assert the_error(start_broker(tmp_path, **{"log.dirs": str(a_file)})) == (
        f"log.dirs: cannot use {a_file}: [Errno 20] Not a directory while creating the directory")


def test_a_file_as_metadata_log_dir(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory\n")
    assert the_error(start_broker(tmp_path, **{"metadata.log.dir": str(a_file)})) == (
        f"metadata.log.dir: cannot use {a_file}: [Errno 20] Not a directory while creating the directory")


def test_an_unwritable_log_dir(tmp_path, tiny_tmpfs):
    # Root writes through any permission bits; a read-only mount stops even root.
    read_only = tiny_tmpfs("ro")
    assert the_error(start_broker(tmp_path, **{"log.dirs": str(read_only)})) == (
        f"log.dirs: cannot use {read_only}: [Errno 30] Read-only file system while writing meta.properties")


def test_a_full_disk(tmp_path, tiny_tmpfs):
    full = tiny_tmpfs()
    fd = os.open(full / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with pytest.raises(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    assert the_error(start_broker(tmp_path, **{"log.dirs": str(full)})) == (
        f"log.dirs: cannot use {full}: [Errno 28] No space left on device while writing meta.properties")
    metadata_dir = full / "metadata"
    assert the_error(start_broker(tmp_path, **{"metadata.log.dir": str(metadata_dir)})) == (
        f"metadata.log.dir: cannot use {metadata_dir}: [Errno 28] No space left on device while writing "
        "meta.properties")


@pytest.fixture
def taken_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_taken_listener_port(tmp_path, taken_port):
    error = the_error(start_broker(tmp_path, listeners=f"PLAINTEXT://127.0.0.1:{taken_port}"))
    assert error.startswith(f"listeners: cannot bind listener PLAINTEXT://127.0.0.1:{taken_port}: "), error


def test_a_taken_metrics_listener_port(tmp_path, taken_port):
    assert the_error(start_broker(tmp_path, **{"metrics.listener": f"http://127.0.0.1:{taken_port}"})) == (
        f"metrics.listener: cannot bind http://127.0.0.1:{taken_port}: [Errno 98] Address already in use")
