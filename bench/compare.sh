#!/usr/bin/env bash
# `make bench`: our broker beside the reference broker in one sitting, with the shared harness
# (../shared/bench/bench.py, a real librdkafka client). Compare ratios, not absolute figures.
#   BENCH_DIR   where bench.py and reference-broker.sh are   (default ../shared/bench)
#   RUNS        runs per workload                              (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-../shared/bench}
RUNS=${RUNS:-3}
PY=.venv/bin/python
[ -f "$BENCH_DIR/bench.py" ] || { echo "no bench.py in $BENCH_DIR (set BENCH_DIR)"; exit 2; }

DATA=$(mktemp -d /tmp/kafka-bench-XXXX)
OURS_PORT=${OURS_PORT:-19092}
REF_PORT=${REF_PORT:-29092}
$PY -m kafka config/server.properties --override "listeners=PLAINTEXT://127.0.0.1:$OURS_PORT" \
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$OURS_PORT" --override "log.dirs=$DATA" \
  >"$DATA.log" 2>&1 &
OURS=$!
REF=$("$BENCH_DIR/reference-broker.sh" "$REF_PORT")
trap 'kill $OURS $REF 2>/dev/null; wait $OURS 2>/dev/null; rm -rf "$DATA" "$DATA.results"' EXIT
for port in $OURS_PORT $REF_PORT; do
  for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
done

rss_mb() { echo "$(( $(awk '/VmRSS/ {print $2}' "/proc/$1/status") / 1024 ))"; }
RESULTS="$DATA.results"  # one JSON-lines file per broker and workload, for bench/ratios.py
mkdir -p "$RESULTS"
run() {  # broker, port, pid, label, bench.py args...
  local name=$1 port=$2 pid=$3 label=$4; shift 4
  local json="$RESULTS/$name-$label.jsonl"
  echo "== $name: $*"
  $PY "$BENCH_DIR/bench.py" --bootstrap "127.0.0.1:$port" --broker-pid "$pid" --runs "$RUNS" --json "$json" "$@" \
    | grep MEDIAN
  # Throughput runs delete their topic: what the broker holds afterwards shows what it gave back.
  $PY -c 'import json, sys; rs = [json.loads(l) for l in open(sys.argv[1])]
after = [r["broker_rss_after_delete_mb"] for r in rs if "broker_rss_after_delete_mb" in r]
if after: print(f"RSS after each run deleted its topic: {after} MB")' "$json"
}
for broker in "ours $OURS_PORT $OURS" "reference $REF_PORT $REF"; do
  set -- $broker
  echo "== $1: idle RSS at start $(rss_mb "$3") MB"
  run "$1" "$2" "$3" 1-1KiB-1p -n 200000 -s 1024
  run "$1" "$2" "$3" 2-1KiB-6p -n 200000 -s 1024 -p 6
  run "$1" "$2" "$3" 3-100B-1p -n 1000000 -s 100
  run "$1" "$2" "$3" 4-1000-msg-per-s --mode latency --linger-ms 5 --acks all
  # The same produce alone. With a consumer, this broker answers its waiting fetch as soon as a
  # produce lands (about 160 fetches a second here), the reference only at fetch.wait.max.ms (its
  # end-to-end p50 is 131 ms): the two do different work, and produce alone compares like with like.
  run "$1" "$2" "$3" 5-1000-msg-per-s-produce-only --mode latency --linger-ms 5 --acks all --no-e2e
  # Idempotence (docs/transactions.md): acks=all both ways, the ratio is what the producer state costs.
  run "$1" "$2" "$3" 6-acks-all -n 200000 -s 1024 --acks all
  echo "== $1: the same with enable.idempotence=true"
  $PY bench/idempotent.py --harness "$BENCH_DIR/bench.py" -- --bootstrap "127.0.0.1:$2" --broker-pid "$3" \
    --runs "$RUNS" -n 200000 -s 1024 --acks all --json "$RESULTS/$1-7-acks-all-idempotent.jsonl" | grep MEDIAN
  echo "== $1: 20 idle consumers"
  $PY bench/idle_consumers.py --bootstrap "127.0.0.1:$2" --broker-pid "$3" --seconds 30 --json "$RESULTS/$1-8-20-idle-consumers.jsonl"
  echo "== $1: RSS at the end $(rss_mb "$3") MB"
done
$PY bench/ratios.py "$RESULTS"

# Where a request's CPU goes at a low rate (docs/performance.md, "Cold caches"): the two thread
# hand-offs alone, and one produce request's work on the I/O thread with warm and with cold caches.
echo "== ours: the hand-offs alone, and a produce request's work warm and cold"
$PY bench/handoff_floor.py | grep HANDOFF
$PY bench/produce_path.py | grep PRODUCE_PATH
# Issue 27: the broker's RSS idle and under 4 concurrent ListOffsets by timestamp on a 1 GB zstd bomb.
echo "== ours: RSS under timestamp lookups on a decompression bomb"
PYTHONPATH=. $PY bench/bomb_lookup_rss.py | grep BOMB_LOOKUP_RSS

# Stalled clients (issue 27, docs/architecture.md "Limits"): RSS idle and under 20 connections that each
# announce a 100 MB request, send 20 MB and stop, with queued.max.request.bytes at its smallest.
echo "== ours: 20 stalled 100 MB frames"
$PY bench/stalled_frames.py | grep STALLED_FRAMES

# Client quotas (docs/quotas.md): producer_byte_rate=1 MiB/s holding a producer that tries ten times
# that, and another client's acks=all latency alone, beside it held, and beside it unthrottled.
echo "== ours: a 1 MiB/s producer quota against a client trying 10 MiB/s"
$PY bench/quota_hold.py --bootstrap "127.0.0.1:$OURS_PORT" | grep QUOTA

# Spark (docs/spark.md): a batch count() through the kafka-teaching source beside a librdkafka consumer
# reading the same 300k x 200 B topic of our broker; the ratio is the figure to compare.
if $PY -c 'import pyspark' 2>/dev/null; then
  echo "== ours: spark.read.format(\"kafka-teaching\") count() against confluent-kafka"
  $PY bench/spark_read.py --bootstrap-server "127.0.0.1:$OURS_PORT" --runs "$RUNS" 2>/dev/null | grep -E "MEDIAN|RATIO" \
    || echo "== spark: bench/spark_read.py failed (run it alone to see why)"
else
  echo "== spark: skipped (no PySpark: .venv/bin/pip install -e '.[spark]')"
fi

# Replication: the same client against three nodes of `make cluster` (ports moved to 19192-19197 so a
# running cluster is not disturbed), topics with replication factor 3 and min.insync.replicas=2.
# Compare acks=all here with the single node's acks=1 above (docs/replication.md).
CLUSTER=$(mktemp -d /tmp/kafka-bench-cluster-XXXX)
for n in 1 2 3; do
  sed -e 's/127\.0\.0\.1:909\([2-7]\)/127.0.0.1:1919\1/g' -e "s#^log.dirs=.*#log.dirs=$CLUSTER/node-$n#" \
      -e 's#^metrics.listener=.*#metrics.listener=#' "config/cluster/node-$n.properties" >"$CLUSTER/node-$n.properties"
done
$PY -m kafka.tools.local_cluster "$CLUSTER"/node-{1,2,3}.properties >"$CLUSTER.log" 2>&1 &
NODES=$!
trap 'kill $OURS $REF 2>/dev/null; kill -INT $NODES 2>/dev/null; wait $OURS $NODES 2>/dev/null; rm -rf "$DATA" "$DATA.results" "$CLUSTER"' EXIT
for port in 19192 19194 19196; do
  for _ in $(seq 300); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
done
CLUSTER_BOOTSTRAP=127.0.0.1:19192,127.0.0.1:19194,127.0.0.1:19196
echo "== cluster (RF 3): -n 200000 -s 1024 --acks all"
$PY bench/replicated.py --harness "$BENCH_DIR/bench.py" -- --bootstrap "$CLUSTER_BOOTSTRAP" --runs "$RUNS" \
  -n 200000 -s 1024 --acks all | grep MEDIAN
echo "== cluster (RF 3): --mode latency --linger-ms 5 --acks all"
$PY bench/replicated.py --harness "$BENCH_DIR/bench.py" -- --bootstrap "$CLUSTER_BOOTSTRAP" --runs "$RUNS" \
  --mode latency --linger-ms 5 --acks all | grep MEDIAN
