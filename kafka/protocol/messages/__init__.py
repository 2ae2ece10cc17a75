"""One module per API, each registering its request/response Schemas in ``kafka.protocol.api_keys.APIS``.

Importing this package fills the registry.
"""

from kafka.protocol.messages import (  # noqa: F401  (imported for their registration side effect)
    api_versions,
    create_topics,
    delete_topics,
    fetch,
    list_offsets,
    metadata,
    produce,
)
