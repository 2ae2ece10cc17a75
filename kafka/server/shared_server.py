"""SharedServer: what the broker and controller halves of one node share (Kafka's kafka.server.SharedServer
and KafkaRaftManager).

Seed 004: "New Metadata on KRaft". Every node, whatever its roles, is one member of the metadata
quorum: a voter if it is in controller.quorum.voters, an observer (a broker that only reads) if not.
That membership is this object:

    KafkaMetadataLog        the __cluster_metadata-0 partition in metadata.log.dir (our UnifiedLog),
                            its snapshots (NNNN-EEEE.checkpoint) and the quorum-state file
    KafkaRaftClient         the Raft state machine of KIP-595, without I/O
    KafkaRaftClientDriver   the thread that steps it, with a KafkaNetworkChannel to the voters
    MetadataLoader          turns committed records into MetadataImages for the broker's publishers
    SnapshotGenerator       a snapshot of the image every so many bytes or minutes (KIP-630), so a
                            restart loads it instead of replaying the whole log

KIP-853: with controller.quorum.bootstrap.servers instead of controller.quorum.voters, the voters
come from the metadata log (the bootstrap checkpoint `kafka-storage format` wrote, then VotersRecords);
the bootstrap servers are where a node that knows no voter yet fetches first (ids -2, -3, ...).
"""

from __future__ import annotations

import os
import random

import structlog

from kafka.image.loader.metadata_loader import MetadataLoader
from kafka.image.publisher.snapshot_generator import SnapshotGenerator
from kafka.log.log_config import LogConfig
from kafka.protocol.metadata_records import serialize
from kafka.raft.file_quorum_state_store import FileQuorumStateStore
from kafka.raft.kafka_metadata_log import KafkaMetadataLog
from kafka.raft.kafka_raft_client import KafkaRaftClient
from kafka.raft.kafka_raft_client_driver import KafkaRaftClientDriver
from kafka.raft.raft_config import RaftConfig
from kafka.raft.replicated_log import OffsetAndEpoch
from kafka.raft.voter_set import VoterSet
from kafka.server.kafka_network_channel import KafkaNetworkChannel
from kafka.utils.time import Time

log = structlog.get_logger("kafka.server.SharedServer")

METADATA_TOPIC = "__cluster_metadata"


def metadata_log_config(config) -> LogConfig:
    return LogConfig.from_props({
        "segment.bytes": str(config.metadata_log_segment_bytes),
        "segment.ms": str(config.metadata_log_segment_ms),
        "retention.bytes": str(config.metadata_max_retention_bytes),
        "retention.ms": str(config.metadata_max_retention_ms),
    })


class SharedServer:
    def __init__(self, config, cluster_id: str, voters: dict[int, tuple[str, int]], time: Time) -> None:
        self.config = config
        self.cluster_id = cluster_id
        self.voters = voters
        self.time = time
        self._listeners = []
        self.metadata_log: KafkaMetadataLog | None = None  # open() builds these
        self.raft_driver: KafkaRaftClientDriver | None = None
        self.loader: MetadataLoader | None = None

    def open(self) -> None:
        config = self.config
        directory = os.path.join(config.metadata_log_dir, f"{METADATA_TOPIC}-0")
        self.metadata_log = KafkaMetadataLog(directory, metadata_log_config(config), self.time)
        self.quorum_state_store = FileQuorumStateStore(os.path.join(directory, "quorum-state"))
        self.raft_client = KafkaRaftClient(
            node_id=config.node_id, voters=VoterSet.from_static(self.voters, config.controller_listener_name),
            log=self.metadata_log,
            quorum_state_store=self.quorum_state_store, time=self.time, random=random.Random(),
            config=RaftConfig.from_kafka_config(config), cluster_id=self.cluster_id)
        bootstrap = {-2 - i: address for i, address in enumerate(config.controller_quorum_bootstrap_servers)}
        self.raft_client.bootstrap_ids = sorted(bootstrap, reverse=True)
        self.channel = KafkaNetworkChannel(config.node_id, {**bootstrap, **self.voters},
                                           config.controller_quorum_request_timeout_ms,
                                           config.controller_quorum_retry_backoff_ms, self.time,
                                           config.client_configs(config.controller_listener_name))
        self.channel.listener_name = config.controller_listener_name
        self.raft_driver = KafkaRaftClientDriver(self.raft_client, self.channel, self.time, config.node_id)
        self.loader = MetadataLoader(node_id=config.node_id, time=self.time,
                                     high_watermark=self.metadata_log.known_high_watermark)
        self.register_raft_listener(self.loader)
        self.snapshot_generator = SnapshotGenerator(
            self._emit_snapshot, self.time, config.metadata_log_max_record_bytes_between_snapshots,
            config.metadata_log_max_snapshot_interval_ms)
        self.loader.install_publishers([self.snapshot_generator])

    def _emit_snapshot(self, image) -> None:
        """The image's records become a snapshot at the image's offset (raft writes it at its next poll)."""
        provenance = image.provenance
        snapshot_id = OffsetAndEpoch(provenance.last_contained_offset + 1, provenance.last_contained_epoch)
        records = [serialize(r) for r in image.write()]
        self.raft_driver.submit(lambda client: client.schedule_snapshot(snapshot_id, records))

    def register_raft_listener(self, listener) -> None:
        self.raft_driver.register(listener)

    def start(self) -> None:
        self.raft_driver.start()  # initializes the raft client, then starts the raft thread
        voters = self.raft_driver.published.voter_ids()
        role = "voter" if self.config.node_id in voters else "observer"
        log.info("joined the metadata quorum", role=role, voters=voters, cluster_id=self.cluster_id)

    # ------------------------------------------------------------------ what the others ask
    # From the state the raft thread published after its last turn: never waiting for that thread.
    def leader_id(self) -> int | None:
        """The active controller: the leader of the metadata quorum, if one is known."""
        return self.raft_driver.published.leader_id

    def voter_endpoint(self, voter_id: int) -> tuple[str, int] | None:
        """Where a voter listens, from the latest voter set (KIP-853: controllers come and go)."""
        return self.raft_driver.published.voter_endpoint(voter_id, self.config.controller_listener_name)

    def shutdown(self) -> None:
        """Kafka's SharedServer.stop: the loader (closing the publishers still installed), then the raft
        client's thread (a leader resigns, so the others elect at once), then the metadata log. open()
        builds them in the other order: a server whose open() failed half-way stops what it built."""
        if self.loader is not None:
            self.loader.close()
        if self.raft_driver is not None:
            self.raft_driver.shutdown()
        if self.metadata_log is not None:
            self.metadata_log.close()
