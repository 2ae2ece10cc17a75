"""ManualMetadataUpdater: a client's view of the cluster that is set by hand and never refreshed
(Kafka's org.apache.kafka.clients.ManualMetadataUpdater).

Servers talking to servers use it: a raft voter knows its peers from controller.quorum.voters, and
a broker knows where the controllers listen. No Metadata request is ever sent, so seed 003's
"metadata first" rule never holds their requests back.
"""

from __future__ import annotations

from kafka.clients.metadata import Cluster, Metadata, Node

_NEVER = 2**62


class ManualMetadataUpdater(Metadata):
    def __init__(self, nodes: list[Node]) -> None:
        super().__init__()
        self.need_update = False
        self.set_nodes(nodes)

    def set_nodes(self, nodes: list[Node]) -> None:
        with self._condition:
            self.cluster = Cluster({n.node_id: n for n in nodes})

    def add_nodes(self, nodes: list[Node]) -> None:
        """Learn or move some nodes, keep the others (a raft voter set that changed, KIP-853)."""
        with self._condition:
            known = dict(self.cluster.nodes)
            if all(known.get(n.node_id) == n for n in nodes):
                return
            known.update({n.node_id: n for n in nodes})
            self.cluster = Cluster(known)

    def bootstrap(self, addresses: list[str]) -> None:
        """The nodes were given to the constructor; bootstrap.servers is not used."""

    def request_update(self) -> int:
        return self.update_version

    def time_to_next_update(self, now_ms: int) -> int:
        return _NEVER
