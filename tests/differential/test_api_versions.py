"""ApiVersions asked of both brokers: the APIs each advertises on its client listener and their
version ranges. The differences allowed are listed here with their reasons (docs/clients.md,
"Apache Kafka as the oracle"): APIs not built, and newer versions of built ones not built yet; any other
difference fails, a lower newest version too."""

from __future__ import annotations

from kafka.protocol.api_keys import ApiKey
from tests.differential.oracle import Intended
from tests.differential.test_features import FEATURE_DIFFERENCES

# APIs Apache Kafka 4.4 serves that this broker does not build, by the feature they belong to.
NOT_BUILT = {
    "delegation tokens (KIP-48): SASL logs in with PLAIN and SCRAM only": (38, 39, 40, 41),
    "moving replicas between log directories of one broker (JBOD)": (34,),
    "unregistering brokers from a client": (64,),
}
NOT_BUILT_KEYS = {key for keys in NOT_BUILT.values() for key in keys}
# Kafka advertises GetTelemetrySubscriptions and PushTelemetry only with a client telemetry receiver among its
# metric.reporters (tests/differential/test_client_metrics.py starts one so); this broker always has one, its
# /metrics (docs/client_metrics.md).
TELEMETRY_KEYS = {ApiKey.GET_TELEMETRY_SUBSCRIPTIONS, ApiKey.PUSH_TELEMETRY}
# Newer versions Kafka 4.4 serves that are not built here yet: each a gap, named so that it stays in sight.
NEWER_NOT_BUILT = {
    ApiKey.PRODUCE: (12, "Produce v13 names topics by id (KIP-516): not built yet, and our producer keeps no "
                         "topic ids to send"),
}
# Versions both advertise from differently, on purpose.
OLDEST = {ApiKey.PRODUCE: "Kafka 4 still advertises Produce v0-2 (so that old librdkafka connects) yet "
                          "refuses them; this broker advertises from v3, the first with RecordBatch v2"}


def test_the_apis_and_versions_both_advertise(pair):
    ours, theirs = pair.ask(ApiKey.API_VERSIONS, 3, {"client_software_name": "oracle",
                                                    "client_software_version": "1"})
    mine = {a.api_key: (a.min_version, a.max_version) for a in ours.api_keys}
    apache = {a.api_key: (a.min_version, a.max_version) for a in theirs.api_keys}
    unexplained = sorted(set(apache) - set(mine) - NOT_BUILT_KEYS)
    assert unexplained == [], "Kafka serves these and we do not, unexplained"
    extra = sorted(set(mine) - set(apache) - TELEMETRY_KEYS)
    assert extra == [], "we advertise these on the client listener and Kafka does not"
    wrong = {}
    for key in set(mine) & set(apache):
        (low, high), (their_low, their_high) = mine[key], apache[key]
        expected_high = NEWER_NOT_BUILT[key][0] if key in NEWER_NOT_BUILT else their_high
        if (low != their_low and key not in OLDEST) or high != expected_high:
            wrong[ApiKey(key).name] = (mine[key], apache[key])
    assert wrong == {}, (
        "version ranges (ours, Kafka's) that no reason allows: older versions Kafka 4 dropped (KIP-896) "
        "must go, no version newer than Kafka's may be advertised, and one older than Kafka's newest is "
        "listed in NEWER_NOT_BUILT")
    pair.same(ApiKey.API_VERSIONS, 3, {"client_software_name": "oracle", "client_software_version": "1"},
              intended=(Intended("api_keys*", "compared above, API by API"), *FEATURE_DIFFERENCES),
              # the offset of the last feature record: each log its own
              volatile=("finalized_features_epoch",))

