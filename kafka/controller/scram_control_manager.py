"""ScramControlManager: users' SCRAM credentials (Kafka's org.apache.kafka.controller.ScramControlManager).

AlterUserScramCredentials arrives here (forwarded by any broker). Each deletion and upsertion names
a user and a mechanism; an upsertion carries the salt and the salted password the client computed,
from which the controller derives StoredKey and ServerKey (ScramFormatter) and writes only those: the
salted password is dropped here, before anything reaches the log. A user's alterations are checked
together: one bad alteration fails all of that user's (UNACCEPTABLE_CREDENTIAL for a name or
iteration count, UNSUPPORTED_SASL_MECHANISM, RESOURCE_NOT_FOUND for deleting what is not there,
DUPLICATE_RESOURCE for altering one credential twice), other users are unaffected.
"""

from __future__ import annotations

from kafka.protocol.errors import Errors
from kafka.protocol.metadata_records import ApiMessageAndVersion, MetadataRecordType, record
from kafka.security.scram_formatter import ScramFormatter
from kafka.security.scram_mechanism import MAX_ITERATIONS, MIN_ITERATIONS, ScramMechanism

T = MetadataRecordType
SCRAM_RECORDS = (T.USER_SCRAM_CREDENTIAL_RECORD, T.REMOVE_USER_SCRAM_CREDENTIAL_RECORD)


class _AlterationError(Exception):
    def __init__(self, error: Errors, message: str) -> None:
        super().__init__(message)
        self.error = error


class ScramControlManager:
    def __init__(self) -> None:
        self.credentials: dict[tuple[str, int], int] = {}  # (user, mechanism) -> iterations

    def reset(self) -> None:
        self.credentials = {}

    def replay(self, r: ApiMessageAndVersion) -> None:
        data = r.data
        if r.type == T.USER_SCRAM_CREDENTIAL_RECORD:
            self.credentials[(data.name, data.mechanism)] = data.iterations
        else:
            self.credentials.pop((data.name, data.mechanism), None)

    # ------------------------------------------------------------------ decide
    def alter_credentials(self, deletions, upsertions) -> tuple[list[ApiMessageAndVersion], list[dict]]:
        users = list(dict.fromkeys([d.name for d in deletions] + [u.name for u in upsertions]))
        seen: dict[tuple[str, int], int] = {}
        for alteration in [*deletions, *upsertions]:
            seen[(alteration.name, alteration.mechanism)] = seen.get((alteration.name, alteration.mechanism),
                                                                     0) + 1
        records, results = [], []
        for user in users:
            try:
                user_records = [self._delete(d, seen) for d in deletions if d.name == user]
                user_records += [self._upsert(u, seen) for u in upsertions if u.name == user]
            except _AlterationError as e:
                results.append(dict(user=user, error_code=e.error, error_message=str(e)))
                continue
            records += user_records
            results.append(dict(user=user, error_code=Errors.NONE, error_message=None))
        return records, results

    @staticmethod
    def _check(alteration, seen) -> ScramMechanism:
        if not alteration.name:
            raise _AlterationError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
        mechanism = ScramMechanism.from_type(alteration.mechanism)
        if mechanism is None:
            raise _AlterationError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
        if seen[(alteration.name, alteration.mechanism)] > 1:
            raise _AlterationError(Errors.DUPLICATE_RESOURCE,
                                   "A user credential cannot be altered twice in the "
                                   "same request")
        return mechanism

    def _delete(self, deletion, seen) -> ApiMessageAndVersion:
        self._check(deletion, seen)
        if (deletion.name, deletion.mechanism) not in self.credentials:
            raise _AlterationError(Errors.RESOURCE_NOT_FOUND,
                                   "Attempt to delete a user credential that does not "
                                   "exist")
        return record(T.REMOVE_USER_SCRAM_CREDENTIAL_RECORD, name=deletion.name, mechanism=deletion.mechanism)

    def _upsert(self, upsertion, seen) -> ApiMessageAndVersion:
        mechanism = self._check(upsertion, seen)
        if upsertion.iterations < MIN_ITERATIONS:
            raise _AlterationError(Errors.UNACCEPTABLE_CREDENTIAL,
                                   f"Too few iterations (minimum {MIN_ITERATIONS})")
        if upsertion.iterations > MAX_ITERATIONS:
            raise _AlterationError(Errors.UNACCEPTABLE_CREDENTIAL,
                                   f"Too many iterations (maximum {MAX_ITERATIONS})")
        if not upsertion.salt or not upsertion.salted_password:
            raise _AlterationError(Errors.UNACCEPTABLE_CREDENTIAL,
                                   "Salt and salted password must not be empty")
        c = ScramFormatter(mechanism).credential_from_salted(bytes(upsertion.salt),
                                                             bytes(upsertion.salted_password),
                                                             upsertion.iterations)
        return record(T.USER_SCRAM_CREDENTIAL_RECORD, name=upsertion.name, mechanism=mechanism.type_id,
                      salt=c.salt,
                      stored_key=c.stored_key, server_key=c.server_key, iterations=c.iterations)
