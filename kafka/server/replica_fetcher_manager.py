"""ReplicaFetcherManager: which fetcher thread copies which partition (Kafka's
kafka.server.ReplicaFetcherManager over AbstractFetcherManager).

A follower partition is assigned to the fetcher for (its leader, hash(partition) % num.replica.fetchers):
one thread and one connection per source broker by default, so a broker following 100 partitions
led by 2 other brokers runs 2 fetcher threads, each sending one Fetch for all its partitions.
When leadership moves, the metadata publisher removes the partition here and adds it again with the
new leader; a thread left with nothing to fetch is shut down.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass

from kafka.clients.metadata import Node
from kafka.server.remote_leader_end_point import RemoteLeaderEndPoint, ReplicaFetchConfig
from kafka.server.replica_fetcher_thread import ReplicaFetcherThread
from kafka.utils.time import Time
from kafka.utils.topic_partition import TopicPartition


@dataclass(frozen=True)
class InitialFetchState:
    leader: Node  # the leader's broker id and inter-broker listener address
    current_leader_epoch: int
    init_offset: int


class ReplicaFetcherManager:
    def __init__(self, broker_id: int, replica_manager, fetch_config: ReplicaFetchConfig, num_fetchers: int,
                 time: Time) -> None:
        self.broker_id = broker_id
        self.replica_manager = replica_manager
        self.fetch_config = fetch_config
        self.num_fetchers = max(1, num_fetchers)
        self.time = time
        self.fetchers: dict[tuple[int, int], ReplicaFetcherThread] = {}  # (leader id, fetcher id) -> thread
        self._lock = threading.Lock()

    def fetcher_id(self, tp: TopicPartition) -> int:
        """Kafka's getFetcherId: the same partition always goes to the same thread (a stable hash)."""
        return (31 * zlib.crc32(tp.topic.encode()) + tp.partition) % self.num_fetchers

    def add_fetcher_for_partitions(self, partitions: dict[TopicPartition, InitialFetchState]) -> None:
        with self._lock:
            for tp, initial in partitions.items():
                self._remove_locked([tp])
                key = (initial.leader.node_id, self.fetcher_id(tp))
                fetcher = self.fetchers.get(key)
                if fetcher is not None and ((fetcher.leader.leader.host, fetcher.leader.leader.port)
                                            != (initial.leader.host, initial.leader.port)):
                    fetcher.shutdown()  # the leader moved to another address: a new connection
                    fetcher = None
                if fetcher is None:
                    fetcher = self._create_fetcher_thread(key, initial.leader)
                fetcher.add_partitions({tp: (initial.init_offset, initial.current_leader_epoch)})

    def _create_fetcher_thread(self, key: tuple[int, int], leader: Node) -> ReplicaFetcherThread:
        leader_id, fetcher_id = key
        name = f"ReplicaFetcherThread-{fetcher_id}-{leader_id}"
        end_point = RemoteLeaderEndPoint(self.broker_id, leader, self.fetch_config, self.time,
                                         client_id=f"broker-{self.broker_id}-fetcher-{fetcher_id}")
        fetcher = ReplicaFetcherThread(name, end_point, self.replica_manager, self.fetch_config.backoff_ms,
                                       self.time)
        self.fetchers[key] = fetcher
        fetcher.start()
        return fetcher

    def remove_fetcher_for_partitions(self, tps) -> None:
        with self._lock:
            self._remove_locked(tps)

    def _remove_locked(self, tps) -> None:
        for fetcher in self.fetchers.values():
            fetcher.remove_partitions(tps)

    def shutdown_idle_fetcher_threads(self) -> None:
        with self._lock:
            idle = [key for key, fetcher in self.fetchers.items() if fetcher.partition_count() == 0]
            stopping = [self.fetchers.pop(key) for key in idle]
        for fetcher in stopping:
            fetcher.shutdown()

    def resize_thread_pool(self, new_size: int) -> None:
        """num.replica.fetchers changed at run time (Kafka's resizeThreadPool): every followed partition
        is handed to the fetcher its hash now names, from where it got to; fetchers left idle stop."""
        with self._lock:
            # Removed first, as Kafka's resizeThreadPool does: a fetcher appending a response finishes
            # before its partitions' offsets are read, so the next fetcher starts where it stopped.
            moving = {tp: InitialFetchState(fetcher.leader.leader, state.current_leader_epoch,
                                            state.fetch_offset)
                      for fetcher in self.fetchers.values()
                      for tp, state in fetcher.remove_partitions(list(fetcher.partition_states)).items()}
            self.num_fetchers = max(1, new_size)
        self.add_fetcher_for_partitions(moving)
        self.shutdown_idle_fetcher_threads()

    def fetching(self, tp: TopicPartition) -> int | None:
        """The leader id tp is being fetched from, or None (for tests and tools)."""
        with self._lock:
            for (leader_id, _), fetcher in self.fetchers.items():
                if tp in fetcher.partition_states:
                    return leader_id
        return None

    def max_lag(self) -> int:
        """ReplicaFetcherManager MaxLag: the most messages any followed partition is behind its leader."""
        with self._lock:
            return max((f.max_lag() for f in self.fetchers.values()), default=0)

    def shutdown(self) -> None:
        with self._lock:
            fetchers, self.fetchers = list(self.fetchers.values()), {}
        for fetcher in fetchers:
            fetcher.initiate_shutdown()
        for fetcher in fetchers:
            fetcher.shutdown()
