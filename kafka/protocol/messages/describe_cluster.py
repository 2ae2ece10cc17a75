"""DescribeCluster (key 60): the cluster id, the controller and every broker (KIP-700).

Mirrors ``common/message/DescribeClusterRequest.json`` and ``DescribeClusterResponse.json``
(versions 0-2, flexible in all). Admin clients use it instead of Metadata when they want the
brokers without any topics; v1 can ask for controllers (endpoint type 2) instead of brokers; v2 can
ask for the fenced brokers as well, and says of each broker whether it is fenced (KIP-1073).
"""

from kafka.protocol.api_keys import Api, ApiKey, register
from kafka.protocol.schema import Array, Field, Schema
from kafka.protocol.types import Boolean, Int8, Int16, Int32, String

BROKERS_ENDPOINT_TYPE = 1
CONTROLLERS_ENDPOINT_TYPE = 2

DESCRIBE_CLUSTER_REQUEST = Schema(
    "DescribeClusterRequest",
    Field("include_cluster_authorized_operations", Boolean, "0+"),
    Field("endpoint_type", Int8, "1+", default=BROKERS_ENDPOINT_TYPE),
    Field("include_fenced_brokers", Boolean, "2+"),
)

DESCRIBE_CLUSTER_BROKER = Schema(
    "DescribeClusterBroker",
    Field("broker_id", Int32, "0+"),
    Field("host", String, "0+"),
    Field("port", Int32, "0+"),
    Field("rack", String, "0+", nullable_versions="0+", default=None),
    Field("is_fenced", Boolean, "2+"),
)

DESCRIBE_CLUSTER_RESPONSE = Schema(
    "DescribeClusterResponse",
    Field("throttle_time_ms", Int32, "0+"),
    Field("error_code", Int16, "0+"),
    Field("error_message", String, "0+", nullable_versions="0+", default=None),
    Field("endpoint_type", Int8, "1+", default=BROKERS_ENDPOINT_TYPE),
    Field("cluster_id", String, "0+"),
    Field("controller_id", Int32, "0+", default=-1),
    Field("brokers", Array(DESCRIBE_CLUSTER_BROKER), "0+"),
    Field("cluster_authorized_operations", Int32, "0+", default=-(2**31)),
)

DESCRIBE_CLUSTER = register(
    Api(ApiKey.DESCRIBE_CLUSTER, "DescribeCluster", 0, 2, 0, DESCRIBE_CLUSTER_REQUEST,
        DESCRIBE_CLUSTER_RESPONSE)
)
