"""kafka-metadata-shell: browse the KRaft metadata as a file tree (Kafka's
org.apache.kafka.shell.MetadataShell, ``bin/kafka-metadata-shell.sh``).

    kafka-metadata-shell --snapshot data/__cluster_metadata-0/00000000000000000000.log
    >> ls /topics
    >> cat /topics/orders/0/data
    kafka-metadata-shell --snapshot FILE ls /brokers        # one command, then exit

Seed 004: the cluster's metadata is a log of records. This tool replays a metadata log segment (or a
snapshot file) into a MetadataImage, exactly as a broker's MetadataLoader does, and shows the image
as directories: brokers/, topics/, topicIds/, configs/, features/, producerIds/ (where the next
block of producer ids starts: Kafka's /image/producerIds/nextProducerId, -1 before the first). Run
it on a stopped node's files, or on a copy: it only reads.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from kafka.image.metadata_delta import MetadataDelta
from kafka.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafka.image.metadata_provenance import MetadataProvenance
from kafka.protocol.metadata_records import BROKER_RESOURCE, GROUP_RESOURCE, TOPIC_RESOURCE, deserialize
from kafka.tools.dump_log_segments import batches_in_file

Tree = dict[str, Any]


def load_image(path: str) -> MetadataImage:
    delta = MetadataDelta(EMPTY_IMAGE)
    last_offset, last_epoch = -1, -1
    for _, batch in batches_in_file(path):
        if batch.is_control_batch or not batch.is_valid():
            continue
        for record in batch:
            delta.replay(deserialize(record.value))
        last_offset, last_epoch = batch.last_offset, batch.partition_leader_epoch
    return delta.apply(MetadataProvenance(last_offset, last_epoch, -1))


def image_tree(image: MetadataImage) -> Tree:
    """The image as nested directories; leaves are strings (Kafka's MetadataNode tree)."""
    brokers = {str(b.id): {"registration": json.dumps({
        "id": b.id, "epoch": b.epoch, "incarnationId": str(b.incarnation_id), "rack": b.rack,
        "fenced": b.fenced,
        "inControlledShutdown": b.in_controlled_shutdown,
        "listeners": [{"name": e.name, "host": e.host, "port": e.port} for e in b.listeners.values()]})}
        for b in image.cluster.brokers.values()}
    topics, topic_ids = {}, {}
    for t in image.topics.topics_by_name.values():
        node: Tree = {"id": str(t.id), "name": t.name}
        for index, p in sorted(t.partitions.items()):
            node[str(index)] = {"data": json.dumps({
                "replicas": list(p.replicas), "isr": list(p.isr), "leader": p.leader,
                "leaderEpoch": p.leader_epoch, "partitionEpoch": p.partition_epoch})}
        topics[t.name] = node
        topic_ids[str(t.id)] = node
    configs: Tree = {"topic": {}, "broker": {}}
    for (resource_type, name), props in image.configs.resources.items():
        kind = {TOPIC_RESOURCE: "topic", BROKER_RESOURCE: "broker", GROUP_RESOURCE: "group"}.get(
            resource_type, str(resource_type))
        configs.setdefault(kind, {})[name] = dict(props)
    features = {name: str(level) for name, level in image.features.finalized_versions.items()}
    producer_ids = {"nextProducerId": str(image.producer_ids.next_producer_id)}
    return {"brokers": brokers, "topics": topics, "topicIds": topic_ids, "configs": configs,
            "features": features,
            "producerIds": producer_ids,
            "provenance": {"lastContainedOffset": str(image.provenance.last_contained_offset),
                           "lastContainedEpoch": str(image.provenance.last_contained_epoch)}}


class MetadataShell:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.cwd: list[str] = []

    def resolve(self, path: str | None) -> list[str]:
        parts = list(self.cwd) if path is None or not path.startswith("/") else []
        for piece in (path or "").split("/"):
            if piece in ("", "."):
                continue
            if piece == "..":
                parts = parts[:-1]
            else:
                parts.append(piece)
        return parts

    def node(self, parts: list[str]) -> Any:
        node: Any = self.tree
        for piece in parts:
            if not isinstance(node, dict) or piece not in node:
                raise KeyError("/" + "/".join(parts))
            node = node[piece]
        return node

    def run(self, line: str) -> str | None:
        """One command; returns its output, or None for exit."""
        words = shlex.split(line)
        if not words:
            return ""
        command, args = words[0], words[1:]
        try:
            if command in ("exit", "quit"):
                return None
            if command == "help":
                return "commands: ls [path], cd [path], cat path, pwd, tree [path], find [path], help, exit"
            if command == "pwd":
                return "/" + "/".join(self.cwd)
            if command == "cd":
                parts = self.resolve(args[0] if args else "/")
                if not isinstance(self.node(parts), dict):
                    return f"cd: {args[0]}: not a directory"
                self.cwd = parts
                return ""
            if command == "ls":
                node = self.node(self.resolve(args[0] if args else None))
                return "\n".join(sorted(node)) if isinstance(node, dict) else (args[0] if args else "")
            if command == "cat":
                if not args:
                    return "cat: a path is needed"
                node = self.node(self.resolve(args[0]))
                return f"cat: {args[0]}: is a directory" if isinstance(node, dict) else str(node)
            if command in ("tree", "find"):
                parts = self.resolve(args[0] if args else None)
                return "\n".join(self._walk(self.node(parts), "/" + "/".join(parts), command == "tree"))
            return f"unknown command {command!r}: try help"
        except KeyError as e:
            return f"{command}: {e.args[0]}: no such file or directory"

    def _walk(self, node: Any, path: str, with_values: bool) -> list[str]:
        lines = [path or "/"]
        if isinstance(node, dict):
            for name in sorted(node):
                lines += self._walk(node[name], f"{path.rstrip('/')}/{name}", with_values)
        elif with_values:
            lines[-1] += f": {node}"
        return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-metadata-shell",
                                     description="Browse KRaft metadata as a tree.")
    parser.add_argument("--snapshot", "-s", required=True,
                        help="a __cluster_metadata segment (.log) or snapshot (.checkpoint) file")
    parser.add_argument("command", nargs="*", help="run one command and exit")
    args = parser.parse_args(argv)
    try:
        shell = MetadataShell(image_tree(load_image(args.snapshot)))
    except OSError as e:
        print(f"kafka-metadata-shell: {e}", file=sys.stderr)
        return 1
    if args.command:
        output = shell.run(shlex.join(args.command))
        if output:
            print(output)
        return 0
    while True:
        try:
            line = input(">> ")
        except EOFError:
            return 0
        output = shell.run(line)
        if output is None:
            return 0
        if output:
            print(output)


if __name__ == "__main__":
    sys.exit(main())
