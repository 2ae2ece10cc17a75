#!/usr/bin/env bash
# `make bench`: our broker beside the reference broker and Apache Kafka itself in one sitting, with
# the shared harness (../shared/bench/bench.py, a real librdkafka client). Compare ratios, not
# absolute figures. Each broker is measured while the others idle; Apache Kafka is started only for
# its turn (tests/jvm/apache_kafka.py: KRaft, the start script's 1 GiB heap and G1) and warmed up
# first, so that its JIT has compiled the produce and fetch paths before anything is measured.
#   BENCH_DIR   where bench.py and reference-broker.sh are   (default ../shared/bench)
#   RUNS        runs per workload                              (default 3)
#   APACHE      0 leaves Apache Kafka out                      (default 1: needs java and tests/jvm/target)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-../shared/bench}
RUNS=${RUNS:-3}
APACHE=${APACHE:-1}
PY=.venv/bin/python
[ -f "$BENCH_DIR/bench.py" ] || { echo "no bench.py in $BENCH_DIR (set BENCH_DIR)"; exit 2; }

DATA=$(mktemp -d /tmp/kafka-bench-XXXX)
OURS_PORT=${OURS_PORT:-19092}
REF_PORT=${REF_PORT:-29092}
# Apache Kafka's client ports: the first free from these, below the ephemeral range (32768-60999 on
# Linux) where the nodes' controller ports are picked.
APACHE_PORT=${APACHE_PORT:-29292}                  # one node
APACHE_CLUSTER_PORT=${APACHE_CLUSTER_PORT:-29392}  # three: 29392, 29393, 29394
RESULTS="$DATA.results"  # one JSON-lines file per broker and workload, for bench/ratios.py
CLUSTER="$DATA.cluster"
mkdir -p "$RESULTS" "$CLUSTER"
OURS= REF= NODES= APACHE_PIDS=

stop_pids() {  # SIGTERM (a controlled shutdown), then SIGKILL what is left after 30 s
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  for _ in $(seq 300); do
    local alive=0
    for pid in "$@"; do  # gone, or a zombie child of this shell that `wait` reaps
      grep -qs '^State:[[:space:]]*[^Z]' "/proc/$pid/status" && alive=1
    done
    [ $alive = 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null || true
}
cleanup() {
  [ -n "$NODES" ] && kill -INT $NODES 2>/dev/null
  stop_pids $OURS $REF $APACHE_PIDS
  wait 2>/dev/null
  rm -rf "$DATA" "$DATA.results" "$DATA.cluster" "$DATA.apache" "$DATA.apache-cluster"
}
trap cleanup EXIT
free_ports() {  # count, first candidate: the first of `count` consecutive ports that nothing listens on
  local port=$2 i
  while :; do
    for ((i = 0; i < $1; i++)); do (echo >/dev/tcp/127.0.0.1/$((port + i))) 2>/dev/null && break; done
    [ "$i" = "$1" ] && { echo "$port"; return; }
    port=$((port + 10))
  done
}
wait_port() {  # port [tenths of a second]
  for _ in $(seq "${2:-100}"); do (echo >/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done
}

$PY -m kafka config/server.properties --override "listeners=PLAINTEXT://127.0.0.1:$OURS_PORT" \
  --override "advertised.listeners=PLAINTEXT://127.0.0.1:$OURS_PORT" --override "log.dirs=$DATA" \
  >"$DATA.log" 2>&1 &
OURS=$!
REF=$("$BENCH_DIR/reference-broker.sh" "$REF_PORT")
wait_port $OURS_PORT
wait_port $REF_PORT

rss_mb() { echo "$(( $(awk '/VmRSS/ {print $2}' "/proc/$1/status") / 1024 ))"; }
memory() {  # broker, pid, what: one line of resident memory for bench/ratios.py
  local mb; mb=$(rss_mb "$2")
  echo "== $1: RSS $3 $mb MB"
  echo "{\"$3_mb\": $mb}" >>"$RESULTS/$1-memory.jsonl"
}
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
measure() {  # broker, port, pid: every single-node workload
  local name=$1 port=$2 pid=$3
  run "$name" "$port" "$pid" 1-1KiB-1p -n 200000 -s 1024
  run "$name" "$port" "$pid" 2-1KiB-6p -n 200000 -s 1024 -p 6
  run "$name" "$port" "$pid" 3-100B-1p -n 1000000 -s 100
  run "$name" "$port" "$pid" 4-1000-msg-per-s --mode latency --linger-ms 5 --acks all
  # The same produce alone. With a consumer, this broker (and Apache Kafka) answers the waiting fetch
  # as soon as a produce lands (about 160 fetches a second here), the reference only at
  # fetch.wait.max.ms (its end-to-end p50 is 131 ms): they do different work, and produce alone
  # compares like with like.
  run "$name" "$port" "$pid" 5-1000-msg-per-s-produce-only --mode latency --linger-ms 5 --acks all --no-e2e
  # Idempotence (docs/transactions.md): acks=all both ways, the ratio is what the producer state costs.
  run "$name" "$port" "$pid" 6-acks-all -n 200000 -s 1024 --acks all
  echo "== $name: the same with enable.idempotence=true"
  $PY bench/idempotent.py --harness "$BENCH_DIR/bench.py" -- --bootstrap "127.0.0.1:$port" --broker-pid "$pid" \
    --runs "$RUNS" -n 200000 -s 1024 --acks all --json "$RESULTS/$name-7-acks-all-idempotent.jsonl" | grep MEDIAN
  echo "== $name: 20 idle consumers"
  $PY bench/idle_consumers.py --bootstrap "127.0.0.1:$port" --broker-pid "$pid" --seconds 30 \
    --json "$RESULTS/$name-8-20-idle-consumers.jsonl"
  memory "$name" "$pid" end
}
# A JVM runs its hot paths interpreted until the JIT has compiled them, and keeps compiling as new
# paths get hot (jstat -compiler: about 6,500 methods after the warm-up below, a few hundred more in
# each workload that follows a different path). So before anything is measured: one produce and
# consume of each shape the workloads use, a few seconds of small requests (linger.ms=0: thousands
# of produce requests and fetches; acks=1, for with acks=all three nodes answering each small
# request after a replication round trip fell seconds behind on a busy two-core machine), and the
# 1,000 msg/s run itself, whose fetches wait in the purgatory. Nothing of it is recorded.
warm_up() {  # harness (bench.py or bench/replicated.py ...), bootstrap
  local harness=("${@:1:$#-1}") bootstrap=${!#}
  echo "== apache: warm-up (not recorded)"
  "${harness[@]}" --bootstrap "$bootstrap" --runs 1 -n 200000 -s 1024 -p 6 >/dev/null
  "${harness[@]}" --bootstrap "$bootstrap" --runs 1 -n 300000 -s 100 >/dev/null
  "${harness[@]}" --bootstrap "$bootstrap" --runs 1 --mode latency --linger-ms 0 --acks 1 --rate 2000 \
    --duration 4 >/dev/null
  "${harness[@]}" --bootstrap "$bootstrap" --runs 1 --mode latency --linger-ms 5 --acks all --duration 4 >/dev/null
}

for broker in "ours $OURS_PORT $OURS" "reference $REF_PORT $REF"; do
  set -- $broker
  memory "$1" "$3" idle_start
  measure "$@"
done

# The cost of TLS (docs/security.md, "The cost: no zero-copy"): workload 1 again, over SASL_SSL with
# SCRAM-SHA-512, on a broker of its own with the same config and a SASL_SSL listener (certificates made
# at run time); TLS_COST is its ratio to workload 1 on PLAINTEXT above.
echo "== ours: -n 200000 -s 1024 over SASL_SSL, beside workload 1 on PLAINTEXT"
PYTHONPATH=. $PY bench/sasl_ssl.py --harness "$BENCH_DIR/bench.py" --plaintext-json "$RESULTS/ours-1-1KiB-1p.jsonl" \
  -- --runs "$RUNS" -n 200000 -s 1024 --json "$RESULTS/ours-9-1KiB-1p-sasl-ssl.jsonl" | grep -E "MEDIAN|TLS_COST" \
  || echo "== sasl_ssl: bench/sasl_ssl.py failed (run it alone to see why)"

if [ "$APACHE" = 1 ]; then
  echo "== apache: one KRaft node (broker and controller), Apache Kafka 4.4.0, -Xmx1G -Xms1G G1"
  APACHE_PORT=$(free_ports 1 "$APACHE_PORT")
  APACHE_PIDS=$($PY tests/jvm/apache_kafka.py --dir "$DATA.apache" --port "$APACHE_PORT")
  memory apache "$APACHE_PIDS" idle_start
  warm_up $PY "$BENCH_DIR/bench.py" "127.0.0.1:$APACHE_PORT"
  # The first InitProducerId creates __transaction_state (50 partitions): not a cost of the runs.
  $PY bench/idempotent.py --harness "$BENCH_DIR/bench.py" -- --bootstrap "127.0.0.1:$APACHE_PORT" --runs 1 \
    -n 100000 -s 1024 --acks all >/dev/null
  $PY bench/idle_consumers.py --bootstrap "127.0.0.1:$APACHE_PORT" --broker-pid "$APACHE_PIDS" --seconds 5 >/dev/null
  memory apache "$APACHE_PIDS" idle_warm
  measure apache $APACHE_PORT "$APACHE_PIDS"
  stop_pids $APACHE_PIDS
  APACHE_PIDS=
  # Apache Kafka's own cost of TLS, the yardstick for ours (over TLS it loses zero-copy too): workload 1
  # over SASL_SSL and over PLAINTEXT on a node of its own with the same listener, SCRAM user and
  # certificates as ours above, warmed up over both listeners first (bench/sasl_ssl.py --apache). Its
  # TLS_COST lines are against its own PLAINTEXT run there; a failure does not stop make bench.
  echo "== apache: -n 200000 -s 1024 over SASL_SSL and PLAINTEXT, on a node of its own"
  PYTHONPATH=. $PY bench/sasl_ssl.py --apache --harness "$BENCH_DIR/bench.py" \
    -- --runs "$RUNS" -n 200000 -s 1024 --json "$RESULTS/apache-9-1KiB-1p-sasl-ssl.jsonl" | grep -E "MEDIAN|TLS_COST" \
    || echo "== sasl_ssl: bench/sasl_ssl.py --apache failed (run it alone to see why)"
fi

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

# Seed 002's claim (docs/tiered_storage.md, "The seed's claim, measured"): a tailing client's p99 beside a
# consumer reading a cold backlog, from local segments and from remote storage, one network thread; ours,
# then Apache Kafka 4.3.1 with its LocalTieredStorage (the newest release whose test jar is served here).
echo "== seed 002: a tailing client beside a cold reader, local and remote"
PYTHONPATH=. $PY bench/cold_read.py --brokers "ours$([ "$APACHE" = 1 ] && echo ,apache)" | grep COLD_READ \
  || echo "== cold_read: bench/cold_read.py failed (run it alone to see why)"

# Replication: the same client against three nodes, topics with replication factor 3 and
# min.insync.replicas=2; compare acks=all here with the single node's acks=1 above
# (docs/replication.md). The broker CPU and memory are the three nodes' added up.
replicated() {  # broker, bootstrap, pids
  local name=$1 bootstrap=$2 pids=$3
  echo "== $name, three nodes (RF 3): -n 200000 -s 1024 --acks all"
  $PY bench/replicated.py --harness "$BENCH_DIR/bench.py" --broker-pids "$pids" -- --bootstrap "$bootstrap" \
    --runs "$RUNS" -n 200000 -s 1024 --acks all --json "$RESULTS/$name-rf3-1-1KiB-acks-all.jsonl" | grep MEDIAN
  echo "== $name, three nodes (RF 3): --mode latency --linger-ms 5 --acks all"
  $PY bench/replicated.py --harness "$BENCH_DIR/bench.py" --broker-pids "$pids" -- --bootstrap "$bootstrap" \
    --runs "$RUNS" --mode latency --linger-ms 5 --acks all --json "$RESULTS/$name-rf3-2-1000-msg-per-s.jsonl" \
    | grep MEDIAN
}
# Ours: three nodes of `make cluster`, ports moved to 19192-19197 so a running cluster is not disturbed.
for n in 1 2 3; do
  sed -e 's/127\.0\.0\.1:909\([2-7]\)/127.0.0.1:1919\1/g' -e "s#^log.dirs=.*#log.dirs=$CLUSTER/node-$n#" \
      -e 's#^metrics.listener=.*#metrics.listener=#' "config/cluster/node-$n.properties" >"$CLUSTER/node-$n.properties"
done
$PY -m kafka.tools.local_cluster "$CLUSTER"/node-{1,2,3}.properties >"$CLUSTER.log" 2>&1 &
NODES=$!
for port in 19192 19194 19196; do wait_port $port 300; done
replicated ours 127.0.0.1:19192,127.0.0.1:19194,127.0.0.1:19196 "$(pgrep -P $NODES | paste -sd,)"
kill -INT $NODES
wait $NODES || true
NODES=

if [ "$APACHE" = 1 ]; then
  echo "== apache: three KRaft nodes (each broker and controller, a quorum of three)"
  APACHE_CLUSTER_PORT=$(free_ports 3 "$APACHE_CLUSTER_PORT")
  APACHE_PIDS=$($PY tests/jvm/apache_kafka.py --dir "$DATA.apache-cluster" --port "$APACHE_CLUSTER_PORT" --nodes 3)
  APACHE_BOOTSTRAP=$(for i in 0 1 2; do echo "127.0.0.1:$((APACHE_CLUSTER_PORT + i))"; done | paste -sd,)
  warm_up $PY bench/replicated.py --harness "$BENCH_DIR/bench.py" -- "$APACHE_BOOTSTRAP"
  replicated apache "$APACHE_BOOTSTRAP" "$(echo $APACHE_PIDS | tr ' ' ,)"
  stop_pids $APACHE_PIDS
  APACHE_PIDS=
  rm -rf "$DATA.apache-cluster"
fi

$PY bench/ratios.py "$RESULTS"
