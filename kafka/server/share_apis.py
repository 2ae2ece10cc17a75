"""The share-group data plane of KafkaApis: ShareFetch and ShareAcknowledge (Kafka's
KafkaApis.handleShareFetchRequest and handleShareAcknowledgeRequest).

    ShareFetch: authorise the group -> the share session (new_context: epoch 0 opens, N continues,
                -1 closes) -> the piggybacked acknowledgements (SharePartitionManager.acknowledge)
                and the fetch (fetch_messages, a DelayedShareFetch in the purgatory), side by side
                -> one response once both futures are done: per partition the records, the acquired
                ranges with their delivery counts, the fetch error and the acknowledgement error,
                and for a partition led elsewhere its current leader with the node's endpoint.
    ShareAcknowledge: authorise -> move the session's epoch -> acknowledge -> respond.

A plain class over its collaborators (the SharePartitionManager, the metadata cache for topic ids,
names and leaders, the AuthHelper, the group configs, and a responder whose send_response(request,
body) answers): answered from the futures' callbacks, never by a request thread that waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

import structlog

from kafka.network.request_channel import Request
from kafka.protocol.acl import AclOperation as Op
from kafka.protocol.acl import ResourceType as Res
from kafka.protocol.api_keys import ApiKey
from kafka.protocol.errors import Errors
from kafka.server.replica_manager import FetchParams
from kafka.server.share.share_acknowledgement_batch import AcknowledgeType, ShareAcknowledgementBatch
from kafka.server.share.share_errors import ShareError
from kafka.server.share.share_fetch import NO_CURRENT_LEADER, partition_response
from kafka.utils.topic_id_partition import TopicIdPartition

log = structlog.get_logger("kafka.server.ShareApis")

FINAL_EPOCH = -1
MAX_MEMBER_ID_LENGTH = 36  # Kafka's isMemberIdValid: a UUID's string
FETCH_MAX_BYTES_DEFAULT = 55 * 1024 * 1024  # Kafka's fetch.max.bytes


class ShareApis:
    def __init__(self, share_partition_manager, metadata_cache, auth_helper, responder, config_provider,
                 record_lock_duration_ms: int, fetch_max_bytes: int = FETCH_MAX_BYTES_DEFAULT,
                 share_groups_enabled: Callable[[], bool] = lambda: True) -> None:
        """`share_groups_enabled()`: share.version is finalized at 1 or more (else UNSUPPORTED_VERSION)."""
        self.manager = share_partition_manager
        self.metadata_cache = metadata_cache
        self.auth = auth_helper
        self.responder = responder  # send_response(request, body)
        self.config_provider = config_provider
        self.record_lock_duration_ms = record_lock_duration_ms  # group.share.record.lock.duration.ms
        self.fetch_max_bytes = fetch_max_bytes
        self.share_groups_enabled = share_groups_enabled

    def handlers(self) -> dict[int, Callable[[Request], None]]:
        return {ApiKey.SHARE_FETCH: self.handle_share_fetch_request,
                ApiKey.SHARE_ACKNOWLEDGE: self.handle_share_acknowledge_request}

    # ------------------------------------------------------------------ ShareFetch
    def handle_share_fetch_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        if not self.share_groups_enabled():
            self._send_fetch_error(request, ShareError(Errors.UNSUPPORTED_VERSION))
            return
        error = self._check_group_and_member(request, req.group_id, req.member_id)
        renew = version >= 2 and req.is_renew_ack
        if error is None and renew and any((req.max_bytes, req.min_bytes, req.max_records, req.max_wait_ms)):
            error = ShareError(Errors.INVALID_REQUEST,
                               "maxBytes, minBytes, maxRecords and maxWaitMs must be set to 0 "
                               "if isRenewAck is true.")
        if error is not None:
            self._send_fetch_error(request, error)
            return
        names = self._topic_names([t.topic_id for t in req.topics] + [t.topic_id
                                                                      for t in req.forgotten_topics_data])
        fetch_data = [TopicIdPartition(t.topic_id, names.get(t.topic_id), p.partition_index)
                      for t in req.topics for p in t.partitions]
        forgotten = [TopicIdPartition(t.topic_id, names.get(t.topic_id), p)
                     for t in req.forgotten_topics_data for p in t.partitions]
        acks_present = any(p.acknowledgement_batches for t in req.topics for p in t.partitions)
        try:
            context = self.manager.new_context(req.group_id, fetch_data, forgotten, req.member_id,
                                               req.share_session_epoch, acks_present, request.connection_id)
        except ShareError as e:
            if e.error == Errors.SHARE_SESSION_LIMIT_REACHED:  # the client backs off for its max wait first
                self.manager.create_idle_share_fetch_timer_task(req.max_wait_ms).add_done_callback(
                    lambda _, refused=e: self._send_fetch_error(request, refused))
            else:
                self._send_fetch_error(request, e)
            return
        erroneous, valid = context.erroneous_and_valid_partitions()
        authorized = self.auth.filter_by_authorized(
            request, Op.READ, Res.TOPIC,
            {tip.topic for tip in [*erroneous, *valid, *fetch_data] if tip.topic})
        acks: Future = _done({})
        if acks_present:
            ack_data, ack_errors = self._acknowledgements(req.topics, names)
            acks = self._handle_acknowledgements(ack_data, ack_errors, authorized, req.group_id,
                                                 req.member_id,
                                                 version >= 2, renew)
        fetched = _done({}) if renew else self._fetch(request, req, erroneous, valid, authorized)
        _both(fetched, acks).add_done_callback(lambda done: self._answering(
            request, lambda: self._respond_share_fetch(request, context, *done.result(), names)))

    def _fetch(self, request: Request, req, erroneous: dict, valid: list, authorized: set[str]) -> Future:
        results = dict(erroneous)
        interested = []
        for tip in valid:
            if tip.topic not in authorized:
                results[tip] = partition_response(tip, Errors.TOPIC_AUTHORIZATION_FAILED)
            elif not self._partition_exists(tip):
                results[tip] = partition_response(tip, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                interested.append(tip)
        if not interested:
            return _done(results)
        max_bytes = min(req.max_bytes, self.fetch_max_bytes)
        params = FetchParams(replica_id=-1, max_wait_ms=req.max_wait_ms,
                             min_bytes=min(req.min_bytes, max_bytes),
                             max_bytes=max_bytes,
                             isolation_level=self.config_provider.isolation_level(req.group_id))
        answer: Future = Future()
        self.manager.fetch_messages(req.group_id, req.member_id, params, req.get("share_acquire_mode", 0),
                                    req.share_session_epoch, req.max_records, req.batch_size, interested
                                    ).add_done_callback(lambda done: answer.set_result({**done.result(),
                                                                                        **results}))
        return answer

    def _respond_share_fetch(self, request: Request, context, fetched: dict, acks: dict, names: dict) -> None:
        req = request.body
        error, kept = context.update_and_generate_response_data(fetched)
        partitions = {tip: dict(data) for tip, data in kept.items()}
        for tip, (ack_error, message) in acks.items():
            data = partitions.setdefault(tip, partition_response(tip, Errors.NONE))
            data.update(acknowledge_error_code=ack_error, acknowledge_error_message=message)
        endpoints = self._set_current_leaders(request, partitions)
        body = dict(throttle_time_ms=0, error_code=error, error_message=None,
                    acquisition_lock_timeout_ms=self._lock_duration(req.group_id),
                    responses=_by_topic(partitions if error == Errors.NONE else {}), node_endpoints=endpoints)
        self.responder.send_response(request, body)
        if req.share_session_epoch == FINAL_EPOCH:
            self.manager.release_session(req.group_id, req.member_id)

    def _send_fetch_error(self, request: Request, error: ShareError) -> None:
        """Kafka's ShareFetchRequest.getErrorResponse: the code alone, its message only in the log."""
        log.debug("share fetch refused", error=error.error.name, reason=str(error))
        self.responder.send_response(request, dict(
            throttle_time_ms=0, error_code=error.error, error_message=None,
            acquisition_lock_timeout_ms=0, responses=[], node_endpoints=[]))

    # ------------------------------------------------------------------ ShareAcknowledge
    def handle_share_acknowledge_request(self, request: Request) -> None:
        req = request.body
        version = request.header.api_version
        error = (ShareError(Errors.UNSUPPORTED_VERSION) if not self.share_groups_enabled()
                 else self._check_group_and_member(request, req.group_id, req.member_id))
        if error is None:
            try:
                self.manager.acknowledge_session_update(req.group_id, req.member_id, req.share_session_epoch)
            except ShareError as e:
                error = e
        if error is not None:  # Kafka's getErrorResponse: the code alone
            log.debug("share acknowledge refused", error=error.error.name, reason=str(error))
            self.responder.send_response(request, dict(throttle_time_ms=0, error_code=error.error,
                                                       error_message=None, responses=[], node_endpoints=[]))
            return
        names = self._topic_names([t.topic_id for t in req.topics])  # unknown ids: UNKNOWN_TOPIC_ID
        ack_data, ack_errors = self._acknowledgements(req.topics, names)
        authorized = self.auth.filter_by_authorized(request, Op.READ, Res.TOPIC,
                                                    {tip.topic for tip in ack_data if tip.topic})
        renew = version >= 2 and req.is_renew_ack
        self._handle_acknowledgements(ack_data, ack_errors, authorized, req.group_id, req.member_id,
                                      version >= 2,
                                      renew).add_done_callback(lambda done: self._answering(
            request, lambda: self._respond_acknowledge(request, done.result())))

    def _respond_acknowledge(self, request: Request, acks: dict) -> None:
        req = request.body
        partitions = {tip: dict(partition_index=tip.partition, error_code=error, error_message=message,
                                current_leader=dict(NO_CURRENT_LEADER))
                      for tip, (error, message) in acks.items()}
        endpoints = self._set_current_leaders(request, partitions)
        self.responder.send_response(request, dict(
            throttle_time_ms=0, error_code=Errors.NONE, error_message=None,
            acquisition_lock_timeout_ms=self._lock_duration(req.group_id), responses=_by_topic(partitions),
            node_endpoints=endpoints))
        if req.share_session_epoch == FINAL_EPOCH:
            self.manager.release_session(req.group_id, req.member_id)

    # ------------------------------------------------------------------ acknowledgements, shared
    def _acknowledgements(self, topics, names: dict) -> tuple[dict, dict]:
        """({partition: [batches]}, {partition: (error, message)} for topic ids this broker does not know)."""
        data, errors = {}, {}
        for topic in topics:
            for partition in topic.partitions:
                tip = TopicIdPartition(topic.topic_id, names.get(topic.topic_id), partition.partition_index)
                if tip.topic is None:
                    errors[tip] = (Errors.UNKNOWN_TOPIC_ID, None)
                elif partition.acknowledgement_batches:
                    data[tip] = [ShareAcknowledgementBatch(b.first_offset, b.last_offset,
                                                           tuple(b.acknowledge_types))
                                 for b in partition.acknowledgement_batches]
        return data, errors

    def _handle_acknowledgements(self, ack_data: dict, errors: dict, authorized: set[str], group_id: str,
                                 member_id: str, supports_renew: bool, is_renew_ack: bool) -> Future:
        """Kafka's handleAcknowledgements: validate, authorise, acknowledge. A future of
        {partition: (error, message)}."""
        errors = dict(errors)
        interested = {}
        for tip, batches in ack_data.items():
            if not _valid_batches(batches, supports_renew, is_renew_ack):
                errors[tip] = (Errors.INVALID_REQUEST, None)
            elif tip.topic not in authorized:
                errors[tip] = (Errors.TOPIC_AUTHORIZATION_FAILED, None)
            elif not self._partition_exists(tip):
                errors[tip] = (Errors.UNKNOWN_TOPIC_OR_PARTITION, None)
            else:
                interested[tip] = batches
        if not interested:
            return _done(errors)
        answer: Future = Future()
        self.manager.acknowledge(member_id, group_id, interested).add_done_callback(
            lambda done: answer.set_result({**done.result(), **errors}))
        return answer

    # ------------------------------------------------------------------ helpers
    def _answering(self, request: Request, respond: Callable[[], None]) -> None:
        """Build and send the answer from a callback; a bug there still answers (UNKNOWN_SERVER_ERROR)."""
        try:
            respond()
        except Exception:  # noqa: BLE001
            log.exception("building a share response failed", api=request.header.api_key)
            self.responder.send_response(request,
                                         dict(throttle_time_ms=0, error_code=Errors.UNKNOWN_SERVER_ERROR,
                                              error_message=None, acquisition_lock_timeout_ms=0,
                                              responses=[], node_endpoints=[]))

    def _check_group_and_member(self, request: Request, group_id: str | None, member_id: str | None
                                ) -> ShareError | None:
        if group_id is None:
            return ShareError(Errors.INVALID_REQUEST, "Invalid group id in the request.")
        if not self.auth.authorize(request, Op.READ, Res.GROUP, group_id):
            return ShareError(Errors.GROUP_AUTHORIZATION_FAILED)
        if not member_id or len(member_id) > MAX_MEMBER_ID_LENGTH:
            return ShareError(Errors.INVALID_REQUEST, "Invalid member id in the request.")
        return None

    def _topic_names(self, topic_ids) -> dict:
        return {topic_id: name for topic_id in set(topic_ids)
                if (name := self.metadata_cache.topic_name_for_id(topic_id)) is not None}

    def _partition_exists(self, tip: TopicIdPartition) -> bool:
        topic = self.metadata_cache.get_topic(tip.topic)
        return topic is not None and topic.partition(tip.partition) is not None

    def _lock_duration(self, group_id: str | None) -> int:
        return self.config_provider.record_lock_duration_ms_or_default(group_id or "",
                                                                       self.record_lock_duration_ms)

    def _set_current_leaders(self, request: Request, partitions: dict) -> list[dict]:
        """For partitions led elsewhere: the current leader and epoch, and the leaders' endpoints."""
        endpoints = {}
        for tip, data in partitions.items():
            error = data.get("error_code") or 0
            if error not in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH) or tip.topic is None:
                continue
            topic = self.metadata_cache.get_topic(tip.topic)
            state = topic.partition(tip.partition) if topic is not None else None
            if state is None:
                continue
            data["current_leader"] = dict(leader_id=state.leader, leader_epoch=state.leader_epoch)
            leader, end_point = self.metadata_cache.partition_leader_end_point(tip.topic, tip.partition,
                                                                               request.listener)
            broker = self.metadata_cache.get_broker(leader) if leader >= 0 else None
            if end_point is not None:
                endpoints[leader] = dict(node_id=leader, host=end_point.host, port=end_point.port,
                                         rack=broker.rack if broker is not None else None)
        return list(endpoints.values())


def _valid_batches(batches: list[ShareAcknowledgementBatch], supports_renew: bool,
                   is_renew_ack: bool) -> bool:
    """Kafka's validateAcknowledgementBatches: ordered, non-overlapping batches with one type per offset or
    one for all, types 0-3 (0-4 from v2, and 4 only in a renewing request)."""
    max_type = AcknowledgeType.RENEW if supports_renew else AcknowledgeType.REJECT
    previous_end = -1
    for batch in batches:
        types = batch.acknowledge_types
        if batch.first_offset > batch.last_offset or batch.first_offset < previous_end or not types:
            return False
        if len(types) > 1 and batch.last_offset - batch.first_offset != len(types) - 1:
            return False
        if any(t < 0 or t > max_type for t in types) or (AcknowledgeType.RENEW in types and not is_renew_ack):
            return False
        previous_end = batch.last_offset
    return True


def _by_topic(partitions: dict[TopicIdPartition, dict]) -> list[dict]:
    topics: dict = {}
    for tip, data in partitions.items():
        topics.setdefault(tip.topic_id, []).append(data)
    return [dict(topic_id=topic_id, partitions=parts) for topic_id, parts in topics.items()]


def _done(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


def _both(first: Future, second: Future) -> Future:
    """A future of (first's result, second's result) once both are done, on whichever thread finishes last."""
    both: Future = Future()
    lock = threading.Lock()
    pending = [2]

    def one_done(_: Future) -> None:
        with lock:
            pending[0] -= 1
            last = pending[0] == 0
        if last:
            both.set_result((first.result(), second.result()))

    first.add_done_callback(one_done)
    second.add_done_callback(one_done)
    return both
