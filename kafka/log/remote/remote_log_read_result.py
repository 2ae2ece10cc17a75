"""RemoteLogReadResult: what a reader thread hands back for one RemoteStorageFetchInfo (Kafka's
org.apache.kafka.storage.internals.log.RemoteLogReadResult): the records read, or why there are none.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka.log.fetch_data_info import FetchDataInfo


@dataclass(frozen=True)
class RemoteLogReadResult:
    fetch_data_info: FetchDataInfo | None = None
    error: BaseException | None = None
