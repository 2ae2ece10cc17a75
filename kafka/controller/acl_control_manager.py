"""AclControlManager: creating and deleting ACLs (Kafka's org.apache.kafka.controller.AclControlManager).

CreateAcls and DeleteAcls arrive here (forwarded by a broker, or sent to the controller directly).
A new ACL is checked (a concrete resource type, a LITERAL or PREFIXED pattern, a concrete operation,
ALLOW or DENY, a name) and, unless the same ACL exists already, given a fresh random id and written
as an AccessControlEntryRecord; a delete filter removes every ACL it matches with one
RemoveAccessControlEntryRecord each. Nothing changes here until the records are replayed, so a
standby controller and every broker reach the same set by the same road.

A host is "*", an address, or (KIP-1107) a CIDR such as 10.0.0.0/8 or 2001:db8::/32. A CIDR host needs
metadata.version 4.4-IV1: below it every broker might not match it, so it is refused with
UNSUPPORTED_VERSION; a malformed one is INVALID_REQUEST with Commons Net's words (kafka/utils/cidr_utils.py).
"""

from __future__ import annotations

import uuid

from kafka.image.metadata_version import IBP_4_4_IV1, from_feature_level, is_cidr_acl_supported
from kafka.image.standard_acl import StandardAcl
from kafka.protocol.acl import (
    CLUSTER_NAME,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record
from kafka.utils import cidr_utils

MAX_RECORDS_PER_USER_OP = 10_000  # Kafka's QuorumController.MAX_RECORDS_PER_USER_OP


class AclError(Exception):
    def __init__(self, message: str, error: Errors = Errors.INVALID_REQUEST) -> None:
        super().__init__(message)
        self.error = error


class AclControlManager:
    def __init__(self, features=None) -> None:
        self.features = features  # the FeatureControlManager: the finalized metadata.version
        self.id_to_acl: dict[uuid.UUID, StandardAcl] = {}
        self.existing_acls: set[StandardAcl] = set()

    def reset(self) -> None:
        self.id_to_acl, self.existing_acls = {}, set()

    # ------------------------------------------------------------------ decide
    def create_acls(self, creations) -> tuple[list[ApiMessageAndVersion], dict]:
        """CreateAcls: records for the new ACLs, and the response, one result per creation in order
        (an ACL that exists already succeeds and writes nothing)."""
        records: list[ApiMessageAndVersion] = []
        results: list[dict] = []
        pending: set[StandardAcl] = set()
        cidr_supported = self._cidr_acl_supported()
        for c in creations:
            binding = AclBinding.of(c.resource_type, c.resource_name, c.get("resource_pattern_type", 3),
                                    c.principal,
                                    c.host, c.operation, c.permission_type)
            try:
                validate_new_acl(binding, cidr_supported)
                acl = StandardAcl.from_binding(binding)
                if acl not in self.existing_acls and acl not in pending:
                    if len(records) >= MAX_RECORDS_PER_USER_OP:
                        raise AclError(f"Cannot create more than {MAX_RECORDS_PER_USER_OP} acls in a single "
                                       "request.")
                    pending.add(acl)
                    records.append(acl.to_record(self._new_acl_id(records)))
            except AclError as e:
                results.append(dict(error_code=e.error, error_message=str(e)))
                continue
            results.append(dict(error_code=Errors.NONE, error_message=""))  # Kafka's default: empty, not null
        return records, dict(throttle_time_ms=0, results=results)

    def _cidr_acl_supported(self) -> bool:
        """Kafka's metadataVersion.isCidrAclSupported(); with no feature manager (a bare unit test), yes."""
        if self.features is None:
            return True
        return is_cidr_acl_supported(self.features.metadata_version)

    def _new_acl_id(self, records: list[ApiMessageAndVersion]) -> uuid.UUID:
        taken = {r.data.id for r in records}
        while True:
            acl_id = uuid.uuid4()
            if acl_id not in self.id_to_acl and acl_id not in taken:
                return acl_id

    def delete_acls(self, filters) -> tuple[list[ApiMessageAndVersion], dict]:
        """DeleteAcls: one RemoveAccessControlEntryRecord per matched ACL (once, however many filters
        match it), and per filter the ACLs it removed, or the error that stopped it."""
        removed: dict[uuid.UUID, ApiMessageAndVersion] = {}
        results: list[dict] = []
        for f in filters:
            acl_filter = AclBindingFilter.of(f.resource_type_filter, f.resource_name_filter,
                                             f.get("pattern_type_filter", 3), f.principal_filter,
                                             f.host_filter,
                                             f.operation, f.permission_type)
            try:
                matched = self._matching(acl_filter)
                if len(removed) + len(matched) > MAX_RECORDS_PER_USER_OP:
                    raise AclError(f"Cannot remove more than {MAX_RECORDS_PER_USER_OP} acls in a single "
                                   "delete "
                                   "operation.")
            except AclError as e:
                results.append(dict(error_code=e.error, error_message=str(e), matching_acls=[]))
                continue
            for acl_id, _ in matched:
                removed.setdefault(acl_id,
                                   record(MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD, id=acl_id))
            results.append(dict(error_code=Errors.NONE, error_message=None,
                                matching_acls=[matching_acl(acl) for _, acl in matched]))
        return list(removed.values()), dict(throttle_time_ms=0, filter_results=results)

    def _matching(self, acl_filter: AclBindingFilter) -> list[tuple[uuid.UUID, StandardAcl]]:
        if acl_filter.pattern_type == PatternType.UNKNOWN or acl_filter.resource_type == ResourceType.UNKNOWN:
            raise AclError("Unknown patternFilter.")
        if acl_filter.is_unknown():
            raise AclError("Unknown entryFilter.")
        return sorted(((i, acl) for i, acl in self.id_to_acl.items() if acl_filter.matches(acl.to_binding())),
                      key=lambda e: e[1])

    # ------------------------------------------------------------------ replay
    def replay(self, r) -> None:
        acl = StandardAcl.from_record(r)
        self.id_to_acl[r.id] = acl
        self.existing_acls.add(acl)

    def replay_remove(self, r) -> None:
        acl = self.id_to_acl.pop(r.id, None)
        if acl is not None:
            self.existing_acls.discard(acl)


def validate_new_acl(binding: AclBinding, cidr_supported: bool = True) -> None:
    """Kafka's AclApis checks (the cluster's name, an empty name), then AclControlManager.validateNewAcl."""
    pattern, entry = binding.pattern, binding.entry
    # Kafka's AclApis first
    if pattern.resource_type == ResourceType.CLUSTER and pattern.name != CLUSTER_NAME:
        raise AclError(f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
    if not pattern.name:
        raise AclError("Invalid empty resource name")
    if pattern.resource_type in (ResourceType.UNKNOWN, ResourceType.ANY):
        raise AclError(f"Invalid resourceType {pattern.resource_type.name}")
    if pattern.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED):
        raise AclError(f"Invalid patternType {pattern.pattern_type.name}")
    if entry.operation in (AclOperation.UNKNOWN, AclOperation.ANY):
        raise AclError(f"Invalid operation {entry.operation.name}")
    if entry.permission_type not in (AclPermissionType.DENY, AclPermissionType.ALLOW):
        raise AclError(f"Invalid permissionType {entry.permission_type.name}")
    kind, colon, name = entry.principal.partition(":")
    if not colon or not kind or not name:
        raise AclError(f"Could not parse principal from `{entry.principal}` (no colon is present separating "
                       "the "
                       "principal type from the principal name)")
    validate_host_pattern(entry.host, cidr_supported)


def validate_host_pattern(host: str | None, cidr_supported: bool) -> None:
    """Kafka's AclControlManager.validateHostPattern: "*", an address, or a CIDR from 4.4-IV1 on."""
    if not host:
        raise AclError("Host pattern cannot be null or empty")
    if host == "*" or not cidr_utils.is_cidr(host):
        return
    if not cidr_supported:
        raise AclError(f"CIDR-based ACL host patterns require metadata version "
                       f"{from_feature_level(IBP_4_4_IV1)} or higher.", Errors.UNSUPPORTED_VERSION)
    try:
        cidr_utils.validate(host)
    except ValueError as e:
        raise AclError(f"Invalid CIDR notation '{host}': {e}") from None


def matching_acl(acl: StandardAcl) -> dict:
    """One DeleteAclsMatchingAcl of a DeleteAcls response."""
    return dict(error_code=Errors.NONE, error_message=None, resource_type=int(acl.resource_type),
                resource_name=acl.resource_name, pattern_type=int(acl.pattern_type), principal=acl.principal,
                host=acl.host, operation=int(acl.operation), permission_type=int(acl.permission_type))


def not_controller_acls_response(request) -> dict:
    """CreateAcls' or DeleteAcls' answer from a controller that is not the active one."""
    if hasattr(request, "creations"):
        return dict(throttle_time_ms=0,
                    results=[dict(error_code=Errors.NOT_CONTROLLER) for _ in request.creations])
    return dict(throttle_time_ms=0, filter_results=[dict(error_code=Errors.NOT_CONTROLLER, matching_acls=[])
                                                    for _ in request.filters])
