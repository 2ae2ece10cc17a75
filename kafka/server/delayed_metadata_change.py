"""DelayedMetadataChange: an admin change the controller has committed, waiting until this broker's
MetadataCache shows it (Kafka's DelayedCreatePartitions and DelayedDeleteTopics, which waited in the
"topic" purgatory of the ZooKeeper-era AdminManager, in one class).

A client that creates a topic and then produces to the same broker should find the topic there, so
the broker answers CreateTopics (DeleteTopics, CreatePartitions, config changes) once its own
metadata has caught up. It does not wait for that on an I/O thread: the operation waits in the
purgatory like a DelayedProduce waiting for its high watermark, every metadata update the
BrokerMetadataPublisher applies tries it again (check_and_complete on METADATA_UPDATE_KEY), and it
completes when its condition holds or, after its timeout, without it (logged: the change is
committed, this broker is just behind).
"""

from __future__ import annotations

from collections.abc import Callable

import structlog

from kafka.purgatory.delayed_operation import DelayedOperation

log = structlog.get_logger("kafka.server.DelayedMetadataChange")

METADATA_UPDATE_KEY = "metadata-update"  # the one watch key: any update may be the awaited one


class DelayedMetadataChange(DelayedOperation):
    def __init__(self, delay_ms: int, metadata_cache, condition: Callable[[object], bool], what: str,
                 on_done: Callable[[], None]) -> None:
        super().__init__(delay_ms)
        self.metadata_cache = metadata_cache
        self.condition = condition
        self.what = what
        self.on_done = on_done

    def try_complete(self) -> bool:
        if self.condition(self.metadata_cache):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        self.on_done()

    def on_expiration(self) -> None:
        log.warning("change committed by the controller but not yet seen by this broker", change=self.what)
