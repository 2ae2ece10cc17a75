"""`make cluster`: three KRaft nodes on loopback, each a real process (like running Kafka's
bin/kafka-server-start.sh three times in three terminals, in one).

    python -m kafka.tools.local_cluster config/cluster/node-1.properties node-2... node-3...

Directories that were never formatted are formatted first with one new cluster id (what
`kafka-storage random-uuid` and `kafka-storage format` do). Each node's log lines are prefixed with
its name. Ctrl-C stops all three (each one cleanly: a controlled shutdown, then its logs closed).
`make cluster-split` runs the same with three controller-only and three broker-only nodes; the
brokers are stopped first, while the controllers can still answer their controlled shutdowns.
SIGUSR1 starts again any node that died (`make demo-streams` kills one with kill -9, then sends it).
`make cluster-secure` runs it on config/cluster-secure/ once kafka/tools/secure_cluster_setup.py has made
the certificates and formatted the nodes with their SCRAM users.
`--override key=value` (repeatable) applies to every node, as kafka-server-start's does to one:
`make cluster TIERED=s3` turns tiered storage on with it (docs/tiered_storage.md).
Its controllers form a dynamic quorum (KIP-853, controller.quorum.bootstrap.servers): formatted
together for the first time, they are formatted as `kafka-storage format --initial-controllers`
would, each with a new directory id, so that controllers can later be added and removed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

from kafka.raft.snapshots import write_bootstrap_snapshot
from kafka.raft.voter_set import ReplicaKey, VoterNode, VoterSet, directory_id_from_string
from kafka.server.kafka_config import ConfigError, KafkaConfig
from kafka.server.kafka_server_start import parse_overrides
from kafka.server.meta_properties import format_directories, read_meta_properties
from kafka.tools.storage_tool import directories
from kafka.utils.uuid import random_uuid, uuid_to_string


def unformatted(configs: dict[str, KafkaConfig]) -> dict[str, KafkaConfig]:
    return {name: c for name, c in configs.items()
            if any(read_meta_properties(d) is None for d in directories(c))}


def cluster_id_of(configs: dict[str, KafkaConfig]) -> str:
    """The id the nodes already formatted agree on, or a new one (kafka-storage random-uuid)."""
    formatted_ids = {p.cluster_id for c in configs.values() for d in directories(c)
                     if (p := read_meta_properties(d)) is not None}
    return formatted_ids.pop() if len(formatted_ids) == 1 else random_uuid()


def format_if_needed(configs: dict[str, KafkaConfig]) -> None:
    todo = unformatted(configs)
    if not todo:
        return
    cluster_id = cluster_id_of(configs)
    initial = initial_controllers(configs, todo)
    for name, config in todo.items():
        voter = initial.voter_node(config.node_id) if initial is not None else None
        ids = {config.metadata_log_dir: uuid_to_string(voter.key.directory_id)} if voter is not None else None
        format_directories(directories(config), cluster_id, config.node_id, ignore_formatted=True,
                           directory_ids=ids)
        if voter is not None:
            write_bootstrap_snapshot(os.path.join(config.metadata_log_dir, "__cluster_metadata-0"),
                                     initial.to_voters_record(), int(time.time() * 1000))
        print(f"[{name}] formatted {', '.join(directories(config))} for cluster {cluster_id}", flush=True)


def initial_controllers(configs: dict[str, KafkaConfig], todo: dict[str, KafkaConfig]) -> VoterSet | None:
    """The dynamic quorum's first voters: every controller without controller.quorum.voters, if none of them
    is formatted yet (a later one joins as an observer, kafka-storage format --no-initial-controllers)."""
    dynamic = {n: c for n, c in configs.items() if c.is_controller and not c.controller_quorum_voters}
    if not dynamic or any(n not in todo for n in dynamic):
        return None
    voters = {}
    for config in dynamic.values():
        listener = config.controller_listener_name
        end_point = next(e for e in config.listeners if e.listener_name == listener)
        voters[config.node_id] = VoterNode(ReplicaKey(config.node_id,
                                                      directory_id_from_string(random_uuid())),
                                           {listener: (end_point.host or "localhost", end_point.port)})
    return VoterSet(voters)


def client_hints(configs: dict[str, KafkaConfig]) -> str:
    """A --bootstrap-server line per client listener (a secured one needs the client's settings too)."""
    bootstraps: dict[tuple[str, str], list[str]] = {}
    for config in configs.values():
        for e in config.advertised_listeners:
            key = (e.listener_name, e.security_protocol.name)
            bootstraps.setdefault(key, []).append(f"{e.host or '127.0.0.1'}:{e.port}")
    client_settings = " --command-config <client properties>"
    lines = []
    for (listener, protocol), addresses in bootstraps.items():
        settings = "" if protocol == "PLAINTEXT" else f"{client_settings} (docs/security.md)"
        lines.append(f"  clients on {listener}: --bootstrap-server {','.join(addresses)}{settings}\n")
    first = next(iter(bootstraps.items()), None)
    if first is not None:
        (_, protocol), addresses = first
        settings = "" if protocol == "PLAINTEXT" else client_settings
        lines.append(f"  quorum: kafka-metadata-quorum --bootstrap-server {addresses[0]}{settings} "
                     "describe --status\n")
    return "".join(lines)


def pump(name: str, stream) -> None:
    for line in stream:
        sys.stdout.write(f"[{name}] {line}")
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="local-cluster", description="Run KRaft nodes on loopback.")
    parser.add_argument("configs", nargs="+", help="one server.properties per node")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE",
                        help="a config for every node, over the files' (kafka-server-start's --override)")
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.override)
        configs = {os.path.splitext(os.path.basename(p))[0]: KafkaConfig.from_file(p, overrides)
                   for p in args.configs}
    except ConfigError as e:
        parser.error(str(e))
    paths = dict(zip(configs, args.configs, strict=True))
    format_if_needed(configs)
    node_args = {name: [path, *(f"--override={o}" for o in args.override)] for name, path in paths.items()}
    processes = {name: start_node(name, node_args[name]) for name in paths}
    roles = ", ".join(f"{n} {'+'.join(sorted(c.process_roles))}" for n, c in configs.items())
    print(f"cluster of {len(configs)} nodes starting ({roles})\n{client_hints(configs)}"
          "  Ctrl-C stops every node", flush=True)
    stop, restart = threading.Event(), threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # SIGUSR1: start again the nodes that died (`make demo-streams` kills a node with kill -9, then asks)
    signal.signal(signal.SIGUSR1, lambda *_: restart.set())
    while not stop.wait(0.5):
        if restart.is_set():
            restart.clear()
            dead = [name for name, process in processes.items() if process.poll() is not None]
            processes.update({name: start_node(name, node_args[name]) for name in dead})
        if all(p.poll() is not None for p in processes.values()):
            break
    brokers = {n: p for n, p in processes.items() if configs[n].is_broker}
    stop_all(brokers)
    stop_all({n: p for n, p in processes.items() if n not in brokers})
    return 0


def start_node(name: str, args: list[str]) -> subprocess.Popen:
    """`python -m kafka <its server.properties> [--override k=v ...]`: one node, a process of its own."""
    process = subprocess.Popen([sys.executable, "-m", "kafka", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    print(f"[{name}] started: pid {process.pid}", flush=True)
    threading.Thread(target=pump, args=(name, process.stdout), daemon=True).start()
    return process


def stop_all(processes: dict[str, subprocess.Popen]) -> None:
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for name, process in processes.items():
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            print(f"[{name}] did not stop in 30 s; killing it", flush=True)
            process.kill()


if __name__ == "__main__":
    sys.exit(main())
