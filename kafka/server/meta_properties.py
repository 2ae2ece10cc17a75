"""MetaProperties: the `meta.properties` file that says which cluster and node a log directory belongs to
(Kafka's org.apache.kafka.metadata.properties.MetaProperties and MetaPropertiesEnsemble).

`kafka-storage format` writes one into every log directory and the metadata log directory before a
node first starts. At start-up each directory's file must name the same cluster and this node's
node.id: a directory copied from another node, or left over from another cluster, stops start-up
instead of mixing two clusters' data. The file is a Java properties file, as Kafka writes it:

    version=1
    cluster.id=MkU3OEVBNTcwNTJENDM2Qk
    node.id=1
    directory.id=J8aAPcfLQt2bqs1JT_rMgQ
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass

from kafka.log.log_manager import read_properties, write_properties
from kafka.utils.uuid import random_uuid

META_PROPERTIES_FILE = "meta.properties"


class MetaPropertiesError(ValueError):
    """A directory that is not formatted, or formatted for another cluster or node."""


class LogDirectoryError(MetaPropertiesError):
    """A directory the node cannot use at all: which one, the system's reason and what was being
    done, in one line (Kafka's MetaPropertiesEnsemble.Loader sets such directories aside as
    errorLogDirs). The server puts the config key in front: `log.dirs: cannot use /x: ...`."""

    def __init__(self, log_dir: str, error: OSError, doing: str) -> None:
        self.log_dir = log_dir
        super().__init__(f"cannot use {log_dir}: [Errno {error.errno}] {error.strerror} while {doing}")


def create_log_dir(log_dir: str) -> None:
    """The directory, made if missing; a file in its place, or a parent that is one, is a
    LogDirectoryError."""
    try:
        os.makedirs(log_dir, exist_ok=True)
    except FileExistsError:  # makedirs' word for "a file is in the way"
        raise LogDirectoryError(log_dir, NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)),
                                "creating the directory") from None
    except OSError as e:
        raise LogDirectoryError(log_dir, e, "creating the directory") from None


@dataclass(frozen=True)
class MetaProperties:
    cluster_id: str
    node_id: int
    directory_id: str
    version: int = 1

    def to_props(self) -> dict[str, str]:
        return {"node.id": str(self.node_id), "directory.id": self.directory_id, "version": str(self.version),
                "cluster.id": self.cluster_id}


def read_meta_properties(log_dir: str) -> MetaProperties | None:
    """The directory's meta.properties, or None if it was never formatted."""
    path = os.path.join(log_dir, META_PROPERTIES_FILE)
    if not os.path.exists(path):
        return None
    try:
        props = read_properties(path)
    except OSError as e:
        raise LogDirectoryError(log_dir, e, f"reading {META_PROPERTIES_FILE}") from None
    if "cluster.id" not in props:  # written by a LogManager that knew no cluster: not formatted
        return None
    try:
        return MetaProperties(props["cluster.id"], int(props["node.id"]), props.get("directory.id", ""),
                              int(props.get("version", "1")))
    except (KeyError, ValueError) as e:
        raise MetaPropertiesError(f"{path} is not a valid meta.properties file: {e}") from None


def write_meta_properties(log_dir: str, props: MetaProperties) -> None:
    """Written to a temporary file, fsynced and renamed: a crash leaves no half-formatted directory."""
    create_log_dir(log_dir)
    try:
        write_properties(os.path.join(log_dir, META_PROPERTIES_FILE), props.to_props())
    except OSError as e:  # a full disk names no file at all; this says which directory and what
        raise LogDirectoryError(log_dir, e, f"writing {META_PROPERTIES_FILE}") from None


def verify_meta_properties(log_dirs: list[str], node_id: int) -> str | None:
    """The cluster id that every formatted directory agrees on, or None if none is formatted.

    Raises MetaPropertiesError when directories disagree with each other or with node.id, or when
    only some of them are formatted (Kafka's MetaPropertiesEnsemble.verify)."""
    found = {d: read_meta_properties(d) for d in log_dirs}
    formatted = {d: p for d, p in found.items() if p is not None}
    if not formatted:
        return None
    missing = [d for d, p in found.items() if p is None]
    if missing:
        raise MetaPropertiesError(f"log directory {missing[0]} is not formatted, but {next(iter(formatted))} "
                                  "is: run kafka-storage format with --ignore-formatted to format it")
    cluster_ids = {p.cluster_id for p in formatted.values()}
    if len(cluster_ids) > 1:
        raise MetaPropertiesError(f"log directories belong to different clusters: {sorted(cluster_ids)}")
    for d, p in formatted.items():
        if p.node_id != node_id:
            raise MetaPropertiesError(f"{os.path.join(d, META_PROPERTIES_FILE)} is for node.id {p.node_id}, "
                                      f"but this node's node.id is {node_id}")
    return cluster_ids.pop()


def format_directories(log_dirs: list[str], cluster_id: str, node_id: int,
                       ignore_formatted: bool = False,
                       directory_ids: dict[str, str] | None = None) -> list[str]:
    """Write meta.properties into each directory; returns the directories formatted now. A directory
    named in `directory_ids` gets that directory.id (the metadata directory of an initial controller)."""
    done = []
    for d in log_dirs:
        if read_meta_properties(d) is not None:
            if ignore_formatted:
                continue
            raise MetaPropertiesError(f"Log directory {d} is already formatted. Use --ignore-formatted to "
                                      "ignore this directory and format the others.")
        write_meta_properties(d,
                              MetaProperties(cluster_id, node_id, (directory_ids or {}).get(d)
                                             or random_uuid()))
        done.append(d)
    return done
