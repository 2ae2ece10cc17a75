"""Kafka's error codes, and the exceptions the protocol layer raises.

Mirrors ``org.apache.kafka.common.protocol.Errors`` (code, retriable-ness, message) and the
``org.apache.kafka.common.errors`` exception hierarchy, cut down to what a broker needs.

KAFKA-643 asks for "good error handling, error reporting": every failure in the codec raises one of
the exceptions below, which carries the wire error code the broker should answer with.
"""

from __future__ import annotations

from enum import IntEnum


class Errors(IntEnum):
    """Every error code a Kafka response can carry: ``Errors.X.retriable``, ``Errors.X.message``.

    "Retriable" follows the Java client: the exception class extends ``RetriableException``,
    i.e. a client may retry the same request and expect it to succeed eventually.
    """

    retriable: bool
    message: str

    def __new__(cls, code: int, retriable: bool = False, message: str = "") -> Errors:
        member = int.__new__(cls, code)
        member._value_ = code
        member.retriable = retriable
        member.message = message
        return member

    @classmethod
    def for_code(cls, code: int) -> Errors:
        """The member for ``code``; codes newer than this table map to UNKNOWN_SERVER_ERROR."""
        try:
            return cls(code)
        except ValueError:
            return cls.UNKNOWN_SERVER_ERROR

    # name = code, retriable, short message
    UNKNOWN_SERVER_ERROR = -1, False, "The server experienced an unexpected error."
    NONE = 0, False, ""
    OFFSET_OUT_OF_RANGE = 1, False, "The requested offset is outside the partition's log."
    CORRUPT_MESSAGE = 2, True, "A record batch failed its CRC, size or format checks."
    UNKNOWN_TOPIC_OR_PARTITION = 3, True, "This server does not host this topic-partition."
    INVALID_FETCH_SIZE = 4, False, "The requested fetch size is invalid."
    LEADER_NOT_AVAILABLE = 5, True, "The partition has no leader right now (election in progress)."
    NOT_LEADER_OR_FOLLOWER = 6, True, "This broker is not the leader (or not a replica) of the partition."
    REQUEST_TIMED_OUT = 7, True, "The request timed out."
    BROKER_NOT_AVAILABLE = 8, False, "The broker is not available."
    REPLICA_NOT_AVAILABLE = 9, True, "The replica is not available for the requested partition."
    MESSAGE_TOO_LARGE = 10, False, "A record batch is larger than the server accepts."
    STALE_CONTROLLER_EPOCH = 11, False, "The controller moved to another broker."
    OFFSET_METADATA_TOO_LARGE = 12, False, "The offset commit metadata is too large."
    NETWORK_EXCEPTION = 13, True, "The server disconnected before a response was received."
    COORDINATOR_LOAD_IN_PROGRESS = 14, True, "The coordinator is still loading its state."
    COORDINATOR_NOT_AVAILABLE = 15, True, "The coordinator is not available."
    NOT_COORDINATOR = 16, True, "This broker is not the coordinator."
    INVALID_TOPIC_EXCEPTION = 17, False, "The topic name is invalid."
    RECORD_LIST_TOO_LARGE = 18, False, "The batch is larger than the configured segment size."
    NOT_ENOUGH_REPLICAS = 19, True, "Fewer in-sync replicas than min.insync.replicas."
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20, True, "Written, but to fewer in-sync replicas than required."
    INVALID_REQUIRED_ACKS = 21, False, "acks must be -1, 0 or 1."
    ILLEGAL_GENERATION = 22, False, "The group generation id is not valid."
    INCONSISTENT_GROUP_PROTOCOL = 23, False, "The member's protocols do not match the group's."
    INVALID_GROUP_ID = 24, False, "The group id is invalid."
    UNKNOWN_MEMBER_ID = 25, False, "The coordinator does not know this member."
    INVALID_SESSION_TIMEOUT = 26, False, "The session timeout is outside the broker's allowed range."
    REBALANCE_IN_PROGRESS = 27, False, "The group is rebalancing; rejoin."
    INVALID_COMMIT_OFFSET_SIZE = 28, False, "The committed offset data size is not valid."
    TOPIC_AUTHORIZATION_FAILED = 29, False, "Not authorized to access the topic."
    GROUP_AUTHORIZATION_FAILED = 30, False, "Not authorized to access the group."
    CLUSTER_AUTHORIZATION_FAILED = 31, False, "Not authorized for the cluster operation."
    INVALID_TIMESTAMP = 32, False, "A record timestamp is out of the acceptable range."
    UNSUPPORTED_SASL_MECHANISM = 33, False, "The SASL mechanism is not supported."
    ILLEGAL_SASL_STATE = 34, False, "The request is not valid in the current SASL state."
    UNSUPPORTED_VERSION = 35, False, "This version of the API is not supported."
    TOPIC_ALREADY_EXISTS = 36, False, "A topic with this name already exists."
    INVALID_PARTITIONS = 37, False, "The number of partitions is invalid."
    INVALID_REPLICATION_FACTOR = 38, False, "The replication factor is invalid."
    INVALID_REPLICA_ASSIGNMENT = 39, False, "The replica assignment is invalid."
    INVALID_CONFIG = 40, False, "The configuration is invalid."
    NOT_CONTROLLER = 41, True, "This is not the active controller."
    INVALID_REQUEST = 42, False, "The request is malformed or not valid for this broker."
    UNSUPPORTED_FOR_MESSAGE_FORMAT = 43, False, "The message format does not support this request."
    POLICY_VIOLATION = 44, False, "The request violates a configured policy."
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45, False, "The broker received an out of order sequence number."
    DUPLICATE_SEQUENCE_NUMBER = 46, False, "The broker received a duplicate sequence number."
    INVALID_PRODUCER_EPOCH = 47, False, "The producer epoch is old."
    INVALID_TXN_STATE = 48, False, "The transactional operation is invalid in the current state."
    INVALID_PRODUCER_ID_MAPPING = 49, False, "The producer id is not assigned to this transactional id."
    INVALID_TRANSACTION_TIMEOUT = 50, False, "The transaction timeout exceeds transaction.max.timeout.ms."
    CONCURRENT_TRANSACTIONS = 51, True, "Another operation on the same transaction is in progress."
    TRANSACTION_COORDINATOR_FENCED = 52, False, "The transaction coordinator is no longer current."
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53, False, "Not authorized for the transactional id."
    SECURITY_DISABLED = 54, False, "Security features are disabled."
    OPERATION_NOT_ATTEMPTED = 55, False, "Not attempted because another part of the batch failed."
    KAFKA_STORAGE_ERROR = 56, True, "Disk error while accessing the log."
    LOG_DIR_NOT_FOUND = 57, False, "The log directory is not in the broker config."
    SASL_AUTHENTICATION_FAILED = 58, False, "SASL authentication failed."
    UNKNOWN_PRODUCER_ID = 59, False, "The broker has no state for this producer id."
    REASSIGNMENT_IN_PROGRESS = 60, False, "A partition reassignment is in progress."
    DELEGATION_TOKEN_AUTH_DISABLED = 61, False, "Delegation tokens are not enabled."
    DELEGATION_TOKEN_NOT_FOUND = 62, False, "The delegation token was not found."
    DELEGATION_TOKEN_OWNER_MISMATCH = 63, False, "The principal is not the token's owner or renewer."
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64, False, "Delegation token requests are not allowed here."
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65, False, "Delegation token authorization failed."
    DELEGATION_TOKEN_EXPIRED = 66, False, "The delegation token has expired."
    INVALID_PRINCIPAL_TYPE = 67, False, "The principal type is not supported."
    NON_EMPTY_GROUP = 68, False, "The group is not empty."
    GROUP_ID_NOT_FOUND = 69, False, "The group id does not exist."
    FETCH_SESSION_ID_NOT_FOUND = 70, True, "The fetch session id was not found."
    INVALID_FETCH_SESSION_EPOCH = 71, True, "The fetch session epoch is invalid."
    LISTENER_NOT_FOUND = 72, True, "The leader has no listener matching this request's listener."
    TOPIC_DELETION_DISABLED = 73, False, "Topic deletion is disabled."
    FENCED_LEADER_EPOCH = 74, True, "The request's leader epoch is older than the broker's."
    UNKNOWN_LEADER_EPOCH = 75, True, "The request's leader epoch is newer than the broker's."
    UNSUPPORTED_COMPRESSION_TYPE = 76, False, "The client does not support the partition's compression."
    STALE_BROKER_EPOCH = 77, False, "The broker epoch has changed."
    OFFSET_NOT_AVAILABLE = 78, True, "The high watermark has not caught up after a leader election."
    MEMBER_ID_REQUIRED = 79, False, "The member needs a member id before joining."
    PREFERRED_LEADER_NOT_AVAILABLE = 80, True, "The preferred leader is not available."
    GROUP_MAX_SIZE_REACHED = 81, False, "The consumer group is full."
    FENCED_INSTANCE_ID = 82, False, "Another member registered with the same group.instance.id."
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83, True, "No eligible leader is available."
    ELECTION_NOT_NEEDED = 84, True, "Leader election is not needed."
    NO_REASSIGNMENT_IN_PROGRESS = 85, False, "No partition reassignment is in progress."
    GROUP_SUBSCRIBED_TO_TOPIC = 86, False, "The group is still subscribed to the topic."
    INVALID_RECORD = 87, False, "A record failed broker-side validation."
    UNSTABLE_OFFSET_COMMIT = 88, True, "There are unstable offsets that must be cleared first."
    THROTTLING_QUOTA_EXCEEDED = 89, True, "The throttling quota has been exceeded."
    PRODUCER_FENCED = 90, False, "A newer producer with the same transactional id exists."
    RESOURCE_NOT_FOUND = 91, False, "The resource does not exist."
    DUPLICATE_RESOURCE = 92, False, "The same resource appears twice in the request."
    UNACCEPTABLE_CREDENTIAL = 93, False, "The credential does not meet the acceptance criteria."
    INCONSISTENT_VOTER_SET = 94, False, "Sender or receiver is not one of the expected voters."
    INVALID_UPDATE_VERSION = 95, False, "The update version is invalid."
    FEATURE_UPDATE_FAILED = 96, False, "Finalized features could not be updated."
    PRINCIPAL_DESERIALIZATION_FAILURE = 97, False, "The forwarded principal could not be deserialized."
    SNAPSHOT_NOT_FOUND = 98, False, "The snapshot was not found."
    POSITION_OUT_OF_RANGE = 99, False, "The snapshot position is out of range."
    UNKNOWN_TOPIC_ID = 100, True, "This server does not host this topic id."
    DUPLICATE_BROKER_REGISTRATION = 101, False, "This broker id is already in use."
    BROKER_ID_NOT_REGISTERED = 102, False, "The broker id is not registered."
    INCONSISTENT_TOPIC_ID = 103, True, "The log's topic id does not match the request's."
    INCONSISTENT_CLUSTER_ID = 104, False, "The cluster id does not match the server's."
    TRANSACTIONAL_ID_NOT_FOUND = 105, False, "The transactional id was not found."
    FETCH_SESSION_TOPIC_ID_ERROR = 106, True, "The fetch session used topic ids inconsistently."
    INELIGIBLE_REPLICA = 107, False, "The new ISR contains an ineligible replica."
    NEW_LEADER_ELECTED = 108, False, "The ISR was updated but the leader has changed."
    OFFSET_MOVED_TO_TIERED_STORAGE = 109, False, "The offset has moved to tiered storage."
    FENCED_MEMBER_EPOCH = 110, False, "The member epoch is fenced; rejoin."
    UNRELEASED_INSTANCE_ID = 111, False, "The instance id is still used by another member."
    UNSUPPORTED_ASSIGNOR = 112, False, "The assignor is not supported by the group."
    STALE_MEMBER_EPOCH = 113, False, "The member epoch is stale."
    MISMATCHED_ENDPOINT_TYPE = 114, False, "The request was sent to the wrong endpoint type."
    UNSUPPORTED_ENDPOINT_TYPE = 115, False, "This endpoint type is not supported yet."
    UNKNOWN_CONTROLLER_ID = 116, False, "This controller id is not known."
    UNKNOWN_SUBSCRIPTION_ID = 117, False, "The telemetry subscription id is unknown or outdated."
    TELEMETRY_TOO_LARGE = 118, False, "The telemetry push is too large."
    INVALID_REGISTRATION = 119, False, "The broker registration is invalid."
    TRANSACTION_ABORTABLE = 120, False, "The transaction failed and can be aborted."
    INVALID_RECORD_STATE = 121, False, "The record state is invalid."
    SHARE_SESSION_NOT_FOUND = 122, True, "The share session was not found."
    INVALID_SHARE_SESSION_EPOCH = 123, True, "The share session epoch is invalid."
    FENCED_STATE_EPOCH = 124, False, "The share-group state epoch does not match."
    INVALID_VOTER_KEY = 125, False, "The voter key does not match the replica's key."
    DUPLICATE_VOTER = 126, False, "The voter is already in the voter set."
    VOTER_NOT_FOUND = 127, False, "The voter is not in the voter set."
    INVALID_REGULAR_EXPRESSION = 128, False, "The regular expression is not valid."
    REBOOTSTRAP_REQUIRED = 129, False, ("Client metadata is stale. The client should rebootstrap to obtain "
                                        "new metadata.")
    STREAMS_INVALID_TOPOLOGY = 130, False, "The streams topology is not valid."
    STREAMS_INVALID_TOPOLOGY_EPOCH = 131, False, "The streams topology epoch is not valid."
    STREAMS_TOPOLOGY_FENCED = 132, False, "The streams topology epoch is behind the group's."
    SHARE_SESSION_LIMIT_REACHED = 133, True, "The limit of share sessions has been reached."
    STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED = 135, False, "The topology description update failed."
    CONTROLLER_ID_NOT_REGISTERED = 136, False, "The given controller ID was not registered."


class KafkaProtocolError(Exception):
    """Base of errors that map onto a wire error code (``exc.error``)."""

    error: Errors = Errors.UNKNOWN_SERVER_ERROR

    def __init__(self, message: str = "", error: Errors | None = None) -> None:
        if error is not None:
            self.error = error
        super().__init__(message or self.error.message)


class CorruptRecordError(KafkaProtocolError):
    error = Errors.CORRUPT_MESSAGE


class UnsupportedVersionError(KafkaProtocolError):
    error = Errors.UNSUPPORTED_VERSION


class InvalidRequestError(KafkaProtocolError):
    error = Errors.INVALID_REQUEST


class _PathError(KafkaProtocolError):
    """An error that knows where in a nested message it happened, e.g. ``topics[0].partitions[2].records``.

    Each level of the codec that re-raises it prepends its own step, so the message names the field.
    """

    def __init__(self, message: str, error: Errors | None = None) -> None:
        super().__init__(message, error)
        self.reason = message
        self.path: list[str] = []

    def at(self, step: str) -> _PathError:
        self.path.insert(0, step)
        return self

    def __str__(self) -> str:
        if not self.path:
            return self.reason
        where = self.path[0] + "".join(p if p.startswith("[") else "." + p for p in self.path[1:])
        return f"{where}: {self.reason}"


class ProtocolDecodeError(_PathError, InvalidRequestError):
    """The bytes do not parse: truncated, a bad length, invalid UTF-8, ... The broker answers
    INVALID_REQUEST or, when even the header is unreadable, closes the connection."""


class ProtocolEncodeError(_PathError):
    """A value cannot be written: wrong type, None for a non-nullable field, a non-default value
    in a version that cannot carry it. Always a bug on the writing side."""

    error = Errors.UNKNOWN_SERVER_ERROR
