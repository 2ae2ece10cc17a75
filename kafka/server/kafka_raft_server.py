"""KafkaRaftServer.initializeLogDirs: the node's directories checked, or formatted, before anything starts
(Kafka's kafka.server.KafkaRaftServer companion object, and the MetaPropertiesEnsemble checks it runs).

Seed 004: a KRaft node refuses to start on directories that are not formatted for it, because a
node that quietly formats an empty directory could join a cluster it does not belong to. Every
log.dirs entry and metadata.log.dir must hold the same meta.properties (cluster id, node id), as
`kafka-storage format` writes them. The one exception is the embedded default of `make run`: a node
that is the only voter of its own quorum formats empty directories itself, as `kafka-storage format`
would, and says so in its log. KafkaServer.startup calls initialize_log_dirs first; an I/O error
found later (the LogManager loading, the metadata log opening) is reported by storage_error, naming
the key and the directory at fault.
"""

from __future__ import annotations

import os

import structlog

from kafka.server.config_def import ConfigError
from kafka.server.kafka_config import KafkaConfig
from kafka.server.meta_properties import (
    LogDirectoryError,
    MetaPropertiesError,
    create_log_dir,
    format_directories,
    verify_meta_properties,
)
from kafka.utils.uuid import random_uuid

log = structlog.get_logger("kafka.server.KafkaRaftServer")


def initialize_log_dirs(config: KafkaConfig) -> str:
    """The cluster id of the node's directories, formatting them for a one-node cluster if allowed; a
    ConfigError naming the key when they cannot be used."""
    try:
        return _verify_or_format_directories(config)
    except LogDirectoryError as e:
        raise ConfigError(f"{key_of(config, e.log_dir)}: {e}") from None
    except MetaPropertiesError as e:
        raise ConfigError(str(e)) from None


def _verify_or_format_directories(config: KafkaConfig) -> str:
    dirs = list(dict.fromkeys([*config.log_dirs, config.metadata_log_dir]))
    for d in dirs:
        create_log_dir(d)
    cluster_id = verify_meta_properties(dirs, config.node_id)
    if cluster_id is not None:
        return cluster_id
    # A dynamic quorum (KIP-853) is formatted with kafka-storage format first, as a static one of many.
    dynamic_quorum = bool(config.controller_quorum_bootstrap_servers)
    if len(config.controller_quorum_voters) > 1 or not config.is_controller or dynamic_quorum:
        raise ConfigError(f"log directory {dirs[0]} is not formatted: this node is one of a quorum of "
                          f"{len(config.controller_quorum_voters)} voters, so every node must be formatted "
                          "with the same cluster id first: kafka-storage random-uuid, then kafka-storage "
                          "format -t <cluster id> -c <server.properties> on each node")
    cluster_id = random_uuid()
    format_directories(dirs, cluster_id, config.node_id)
    log.info("formatted empty log directories for a new one-node cluster (as kafka-storage format would)",
             cluster_id=cluster_id, directories=dirs)
    return cluster_id


def key_of(config: KafkaConfig, log_dir: str) -> str:
    """The config key that named a directory, for an error about it."""
    return "log.dirs" if log_dir in config.log_dirs else "metadata.log.dir"


def storage_error(config: KafkaConfig, error: OSError, dirs: list[str], doing: str) -> ConfigError:
    """An I/O error from below (the LogManager, the metadata log) as one line with key and directory."""
    filename = os.path.abspath(error.filename) if isinstance(error.filename, str) else ""
    log_dir = next((d for d in dirs if filename.startswith(os.path.abspath(d) + os.sep)
                    or filename == os.path.abspath(d)), None)
    where = log_dir if log_dir is not None else " or ".join(dirs)
    key = key_of(config, log_dir if log_dir is not None else dirs[0])
    return ConfigError(f"{key}: cannot use {where}: [Errno {error.errno}] {error.strerror} while {doing}")
