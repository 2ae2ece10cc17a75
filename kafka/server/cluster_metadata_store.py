"""ClusterMetadataStore: the durable record of which topics exist, their ids, partitions and configs.

In Kafka this is the KRaft metadata log (`__cluster_metadata`, replayed into the MetadataCache at
start-up). Until this edition grows a controller, one JSON file in the first log dir plays that
part; it is written to a temporary file, fsynced and renamed, so a crash leaves the old or the new
version and never half of one.
"""

from __future__ import annotations

import base64
import json
import os
import uuid

from kafka.server.metadata_cache import TopicMetadata

FILE_NAME = "__cluster_metadata.json"


class ClusterMetadataStore:
    def __init__(self, log_dir: str) -> None:
        self.path = os.path.join(log_dir, FILE_NAME)

    def load(self) -> tuple[str, list[TopicMetadata]]:
        """(cluster id, topics); a new cluster id when there is no file yet."""
        if not os.path.exists(self.path):
            return _new_cluster_id(), []
        with open(self.path, encoding="utf-8") as f:
            doc = json.load(f)
        topics = [TopicMetadata(t["name"], uuid.UUID(t["topic_id"]), t["num_partitions"], t["configs"],
                                t.get("is_internal", False)) for t in doc["topics"]]
        return doc["cluster_id"], topics

    def save(self, cluster_id: str, topics: list[TopicMetadata]) -> None:
        doc = {"version": 1, "cluster_id": cluster_id,
               "topics": [{"name": t.name, "topic_id": str(t.topic_id), "num_partitions": t.num_partitions,
                           "configs": t.configs, "is_internal": t.is_internal} for t in topics]}
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


def _new_cluster_id() -> str:
    # Kafka's cluster ids are 16 random bytes in URL-safe base64 without padding (22 characters).
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
