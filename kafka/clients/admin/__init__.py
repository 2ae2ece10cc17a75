"""The admin client: topics, partitions, configs, offsets and consumer groups."""

from kafka.clients.admin.admin_client import (
    APPEND,
    BROKER_RESOURCE,
    DELETE,
    GROUP_RESOURCE,
    SET,
    SUBTRACT,
    TOPIC_RESOURCE,
    AdminClient,
    NewTopic,
)

__all__ = ["APPEND", "BROKER_RESOURCE", "DELETE", "GROUP_RESOURCE", "SET", "SUBTRACT", "TOPIC_RESOURCE",
           "AdminClient", "NewTopic"]
