"""One module per API, each registering its request/response Schemas in ``kafka.protocol.api_keys.APIS``.

Importing this package fills the registry.
"""

from kafka.protocol.messages import (  # noqa: F401  (imported for their registration side effect)
    alter_configs,
    api_versions,
    create_partitions,
    create_topics,
    delete_groups,
    delete_records,
    delete_topics,
    describe_cluster,
    describe_configs,
    describe_groups,
    describe_log_dirs,
    describe_producers,
    fetch,
    find_coordinator,
    heartbeat,
    incremental_alter_configs,
    join_group,
    leave_group,
    list_groups,
    list_offsets,
    metadata,
    offset_commit,
    offset_delete,
    offset_fetch,
    produce,
    sync_group,
)
