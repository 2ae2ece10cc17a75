"""FileQuorumStateStore: the `quorum-state` file (Kafka's org.apache.kafka.raft.FileQuorumStateStore).

JSON as Kafka writes it, in the __cluster_metadata-0 directory:

    {"clusterId":"","leaderId":2,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,
     "currentVoters":[{"voterId":1},{"voterId":2},{"voterId":3}],"data_version":0}

Written to a temporary file, fsynced, then renamed over the old one: after a crash the file holds
the old state or the new, never half of each.
"""

from __future__ import annotations

import json
import os

from kafka.raft.quorum_state_store import ElectionState


class FileQuorumStateStore:
    def __init__(self, path: str) -> None:
        self.path = path

    def read_election_state(self) -> ElectionState | None:
        try:
            with open(self.path, encoding="utf-8") as f:
                doc = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise ValueError(f"cannot read {self.path}: {e}") from None
        return ElectionState(epoch=doc["leaderEpoch"],
                             leader_id=doc["leaderId"] if doc.get("leaderId", -1) >= 0 else None,
                             voted_id=doc["votedId"] if doc.get("votedId", -1) >= 0 else None,
                             voters=frozenset(v["voterId"] for v in doc.get("currentVoters") or []))

    def write_election_state(self, state: ElectionState) -> None:
        doc = {"clusterId": "", "leaderId": -1 if state.leader_id is None else state.leader_id,
               "leaderEpoch": state.epoch, "votedId": -1 if state.voted_id is None else state.voted_id,
               "appliedOffset": 0, "currentVoters": [{"voterId": v} for v in sorted(state.voters)],
               "data_version": 0}
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def clear(self) -> None:
        for path in (self.path, self.path + ".tmp"):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
