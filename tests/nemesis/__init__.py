"""The nemesis: faults on a live three-node KRaft cluster in network namespaces, and a checker
(docs/replication.md)."""
