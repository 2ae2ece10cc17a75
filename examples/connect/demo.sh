#!/usr/bin/env bash
# make demo-connect: Kafka Connect in distributed mode on this broker (docs/ecosystem.md#kafka-connect).
#
# Two Connect workers (connect-runtime 4.3.1, from Maven) form one Connect cluster: a group of protocol type
# `connect` on the broker's classic group coordinator, its state in three compacted topics. Through Connect's
# REST API, as a user would with curl, a FileStreamSource reads input.txt into a topic and a FileStreamSink
# writes the topic out to output.txt. Then the worker running the source task is killed with SIGKILL: the
# group notices, the other worker takes over its connectors and tasks, the lines written after the kill
# arrive too, and output.txt holds every line of input.txt once.
#
# Start the broker first: `make run` (one node), or `make cluster` and then
#   make demo-connect BOOTSTRAP=127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096 REPLICATION_FACTOR=3
# Files go to data/connect-demo/ (the workers' configs and logs, input.txt, output.txt).
set -euo pipefail
cd "$(dirname "$0")/../.."

BOOTSTRAP=${BOOTSTRAP:-127.0.0.1:9092}
REPLICATION_FACTOR=${REPLICATION_FACTOR:-1}
DIR=data/connect-demo
TOPIC=connect-demo-lines
CLASSPATH_FILE=tests/jvm/target/classpath-connect.txt
WORKERS=(http://127.0.0.1:8083 http://127.0.0.1:8084)
PIDS=()

step() { printf '\n== %s\n' "$*"; }

# wait_for SECONDS WHAT COMMAND...: run COMMAND until it succeeds, or give up after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "timed out waiting for $what (logs: $DIR/worker-*.log)" >&2
      exit 1
    fi
    sleep 0.5  # a poll interval: the condition is the loop's
  done
}

stop_workers() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_workers EXIT

rest() { curl -sf -H 'Content-Type: application/json' "$@"; }
compact() { .venv/bin/python -m json.tool --compact; }
# GET /connectors?expand=status, a line per connector and task: where it runs and its state.
placement() {
  rest "$1/connectors?expand=status" | .venv/bin/python -c '
import json, sys
for name, described in sorted(json.load(sys.stdin).items()):
    status = described["status"]
    parts = ["connector %(state)s on %(worker_id)s" % status["connector"]]
    parts += ["task %(id)s %(state)s on %(worker_id)s" % task for task in status["tasks"]]
    print(name + ": " + ", ".join(parts))'
}

# --------------------------------------------------------------------------------------------- the broker
if ! .venv/bin/kafka-topics --bootstrap-server "$BOOTSTRAP" --list >/dev/null 2>&1; then
  echo "no broker at $BOOTSTRAP: start one first (make run, or make cluster with BOOTSTRAP=...)" >&2
  exit 1
fi
step "an earlier run's topics and groups, if any, deleted from $BOOTSTRAP"
.venv/bin/kafka-topics --bootstrap-server "$BOOTSTRAP" --delete --if-exists --topic 'connect-demo-.*'
.venv/bin/kafka-consumer-groups --bootstrap-server "$BOOTSTRAP" --delete --group connect-demo \
  --group connect-file-sink >/dev/null 2>&1 || true
rm -rf "$DIR" && mkdir -p "$DIR"

# --------------------------------------------------------------------------------------------- the workers
step "two Connect workers (connect-runtime 4.3.1) in distributed mode, group connect-demo"
for n in 1 2; do
  # The example's file, with this run's broker and replication factor appended (the last key wins).
  { cat "examples/connect/worker-$n.properties"
    echo "bootstrap.servers=$BOOTSTRAP"
    for store in config offset status; do echo "$store.storage.replication.factor=$REPLICATION_FACTOR"; done
  } >"$DIR/worker-$n.properties"
  java -Dlog4j2.configurationFile=examples/connect/log4j2.properties -Dconnect.log.file="$DIR/worker-$n.log" \
    -cp "$(cat "$CLASSPATH_FILE")" org.apache.kafka.connect.cli.ConnectDistributed "$DIR/worker-$n.properties" \
    >"$DIR/worker-$n.out" 2>&1 &
  PIDS+=($!)
  echo "worker $n: pid ${PIDS[-1]}, REST API ${WORKERS[n - 1]}, log $DIR/worker-$n.log"
done
for url in "${WORKERS[@]}"; do wait_for 120 "the REST API at $url" rest "$url/"; done
rest "${WORKERS[0]}/" | compact

step "the Connect cluster's state: three compacted topics on the broker"
.venv/bin/kafka-topics --bootstrap-server "$BOOTSTRAP" --describe --topic 'connect-demo-(configs|offsets|status)' \
  | grep -v '^\s'
group_stable() {
  .venv/bin/kafka-consumer-groups --bootstrap-server "$BOOTSTRAP" --list --state | grep -qE '^connect-demo +Stable'
}
wait_for 60 "the group connect-demo to be Stable" group_stable
step "the workers' group on the broker's classic group coordinator (protocol type connect)"
.venv/bin/kafka-consumer-groups --bootstrap-server "$BOOTSTRAP" --list --type --state | grep -E '^(GROUP|connect-demo)\b'

# ------------------------------------------------------------------------------------------- the connectors
seq 1 100 | sed 's/^/line /' >"$DIR/input.txt"
step "PUT /connectors/file-source/config: $DIR/input.txt -> topic $TOPIC"
rest -X PUT "${WORKERS[0]}/connectors/file-source/config" -d @- <<EOF | compact
{"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasks.max": "1",
 "file": "$PWD/$DIR/input.txt", "topic": "$TOPIC",
 "topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "$REPLICATION_FACTOR"}
EOF
step "PUT /connectors/file-sink/config: topic $TOPIC -> $DIR/output.txt"
rest -X PUT "${WORKERS[1]}/connectors/file-sink/config" -d @- <<EOF | compact
{"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasks.max": "1",
 "topics": "$TOPIC", "file": "$PWD/$DIR/output.txt"}
EOF

lines() { wc -l <"$DIR/output.txt" 2>/dev/null || echo 0; }
has_lines() { [ "$(lines)" -ge "$1" ]; }
wait_for 120 "100 lines in output.txt" has_lines 100
step "GET /connectors?expand=status: which worker runs what"
placement "${WORKERS[0]}"

# Connect delivers at least once: a task that dies after writing and before committing its offsets
# is redone from the last commit. The demo kills a worker once both connectors' offsets are committed
# (GET /connectors/NAME/offsets, KIP-875), so nothing is redone and every line arrives once.
source_committed() {
  rest "${WORKERS[0]}/connectors/file-source/offsets" | grep -q "\"position\":$(wc -c <"$DIR/input.txt")"
}
sink_committed() { rest "${WORKERS[0]}/connectors/file-sink/offsets" | grep -q '"kafka_offset":100'; }
wait_for 60 "the source's committed position" source_committed
wait_for 60 "the sink's committed offset" sink_committed
step "committed offsets: the source's position in the file, the sink's in the topic"
rest "${WORKERS[0]}/connectors/file-source/offsets" | compact
rest "${WORKERS[0]}/connectors/file-sink/offsets" | compact

# ------------------------------------------------------------------------------------------------ the kill
victim_url=$(rest "${WORKERS[0]}/connectors/file-source/status" | .venv/bin/python -c \
  'import json, sys; print(json.load(sys.stdin)["tasks"][0]["worker_id"])')
victim=0
[ "http://$victim_url" = "${WORKERS[1]}" ] && victim=1
survivor=$((1 - victim))
step "kill -9 worker $((victim + 1)) ($victim_url), which runs the source task"
kill -9 "${PIDS[victim]}"
wait "${PIDS[victim]}" 2>/dev/null || true
seq 101 200 | sed 's/^/line /' >>"$DIR/input.txt"
echo "100 more lines appended to input.txt"

survivor_runs_everything() {
  local status
  status=$(rest "${WORKERS[survivor]}/connectors?expand=status")
  ! grep -q "$victim_url" <<<"$status" && [ "$(grep -o '"RUNNING"' <<<"$status" | wc -l)" -eq 4 ]
}
wait_for 120 "worker $((survivor + 1)) to take over the connectors and tasks" survivor_runs_everything
wait_for 120 "200 lines in output.txt" has_lines 200
step "GET /connectors?expand=status on worker $((survivor + 1)): everything moved there"
placement "${WORKERS[survivor]}"

step "output.txt against input.txt"
if cmp -s "$DIR/input.txt" "$DIR/output.txt"; then
  echo "OK: output.txt has all $(lines) lines of input.txt, each once, in order"
else
  echo "output.txt differs from input.txt:" >&2
  diff "$DIR/input.txt" "$DIR/output.txt" | head -20 >&2
  exit 1
fi
echo "the broker's side: .venv/bin/kafka-consumer-groups --bootstrap-server $BOOTSTRAP --describe --group connect-file-sink"
