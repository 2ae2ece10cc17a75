"""KRaftControlRecordStateMachine: the voter set and kraft.version as the log says at each offset (Kafka's
org.apache.kafka.raft.internals.KRaftControlRecordStateMachine with its VoterSetHistory; KIP-853).

The raft layer reads two kinds of control records from its own log, the way a listener reads
metadata records, but for itself:

    KRaftVersionRecord   which kraft.version the quorum runs (1: voters live in the log)
    VotersRecord         the whole voter set from this offset on

Both are kept as a history, (offset, value) in log order, starting from the latest snapshot (the
bootstrap checkpoint `00000000000000000000-0000000000.checkpoint` that `kafka-storage format
--standalone | --initial-controllers` writes counts as offset -1). A node uses the LATEST voter set
in its log, committed or not, as KIP-853 says: a leader counts its majority from the new set as
soon as it appends it. A follower whose uncommitted tail is cut (a diverging log) goes back to the
set before the cut: truncate_new_entries. With no VotersRecord anywhere, the static
`controller.quorum.voters` holds (kraft.version 0).
"""

from __future__ import annotations

from kafka.protocol.control_records import control_record_type
from kafka.protocol.kraft_control_records import KRAFT_VERSION, KRAFT_VOTERS, read_kraft_version, read_voters
from kafka.protocol.record_batch import iter_batches
from kafka.raft.replicated_log import ReplicatedLog
from kafka.raft.voter_set import VoterSet

_READ_BYTES = 1 << 20


class KRaftControlRecordStateMachine:
    def __init__(self, static_voters: VoterSet, log: ReplicatedLog) -> None:
        self.static_voters = static_voters
        self.log = log
        self.voter_set_history: list[tuple[int, VoterSet]] = []
        self.kraft_version_history: list[tuple[int, int]] = []
        self.next_offset = 0  # the first log offset not read yet
        self._snapshot_read = None  # the snapshot id the histories start from

    # ------------------------------------------------------------------ reading the log
    def update_state(self) -> None:
        """Read what the log gained since the last call (and a newer snapshot, if the log now
        starts after it)."""
        latest = self.log.latest_snapshot_id()
        if latest is not None and latest != self._snapshot_read and self.next_offset <= latest.offset \
                and (self.next_offset < self.log.start_offset() or self._snapshot_read is None):
            self._load_snapshot(latest)
        if self.log.end_offset() < self.next_offset:
            self.truncate_new_entries(self.log.end_offset())
        while self.next_offset < self.log.end_offset():
            records = self.log.read(self.next_offset, _READ_BYTES).records
            batches = list(iter_batches(records))
            if not batches:
                break
            for batch in batches:
                if batch.is_control_batch and batch.last_offset >= self.next_offset:
                    for i, record in enumerate(batch):
                        self._apply(control_record_type(record.key), record.value, batch.base_offset + i)
                self.next_offset = max(self.next_offset, batch.next_offset)

    def _load_snapshot(self, snapshot_id) -> None:
        reader = self.log.read_snapshot(snapshot_id)
        self.voter_set_history, self.kraft_version_history = [], []
        offset = snapshot_id.offset - 1  # the bootstrap checkpoint's records count as offset -1
        if reader is not None:
            for batch in iter_batches(reader.records()):
                if batch.is_control_batch:
                    for record in batch:
                        self._apply(control_record_type(record.key), record.value, offset)
        self._snapshot_read = snapshot_id
        self.next_offset = max(snapshot_id.offset, self.log.start_offset())

    def _apply(self, record_type: int | None, value: bytes, offset: int) -> None:
        if record_type == KRAFT_VERSION:
            self.kraft_version_history.append((offset, read_kraft_version(value)))
        elif record_type == KRAFT_VOTERS:
            self.voter_set_history.append((offset, VoterSet.from_voters_record(read_voters(value))))

    def truncate_new_entries(self, end_offset: int) -> None:
        """The log was cut at end_offset: what was read at or after it never happened."""
        self.voter_set_history = [(o, v) for o, v in self.voter_set_history if o < end_offset]
        self.kraft_version_history = [(o, v) for o, v in self.kraft_version_history if o < end_offset]
        self.next_offset = min(self.next_offset, end_offset)

    # ------------------------------------------------------------------ what it says
    def last_voter_set(self) -> VoterSet:
        return self.voter_set_history[-1][1] if self.voter_set_history else self.static_voters

    def last_voter_set_offset(self) -> int | None:
        """Where the latest VotersRecord is: -1 for the bootstrap checkpoint, None for the static voters."""
        return self.voter_set_history[-1][0] if self.voter_set_history else None

    def voter_set_at_offset(self, offset: int) -> VoterSet:
        found = [v for o, v in self.voter_set_history if o <= offset]
        return found[-1] if found else self.static_voters

    def last_kraft_version(self) -> int:
        return self.kraft_version_history[-1][1] if self.kraft_version_history else 0
