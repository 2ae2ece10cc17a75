# The teaching Kafka broker. `make run` starts a broker; `make test` runs everything CI runs;
# `make test-fast` runs the unit tests and short simulations, in under a minute.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run cluster cluster-split cluster-secure test test-fast lint bench clean demo demo-cluster demo-spark-cluster lab lab-handout nemesis \
  demo-streams \
  dashboard dashboard-screenshots s3

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,spark]'
	touch $(STAMP)

# kafka-python 3.x installs under the import name `kafka`, like this broker: it gets a virtual
# environment of its own, which tests/integration/test_kafka_python.py runs it from.
.venv-kafka-python/.installed:
	test -x .venv-kafka-python/bin/python || $(PYTHON) -m venv .venv-kafka-python
	.venv-kafka-python/bin/pip install -q 'kafka-python>=3,<4'
	touch $@

# Debian's kcat (librdkafka 2.0.2) is one of the real clients the tests talk to.
/usr/bin/kcat:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq kcat; \
	else sudo apt-get update -qq && sudo apt-get install -y -qq kcat; fi

# PySpark (the spark extra) runs on Java 17: tests/spark and `make demo` need a JRE.
/usr/bin/java:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; fi

# The JVM tier (tests/jvm/) compiles its scenarios with javac and resolves Kafka's jars with Maven.
/usr/bin/javac:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless; fi

/usr/bin/mvn:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven; fi

# kafka-clients 4.4.0 and 3.9.1, kafka-tools and kafka_2.13 from Maven Central into ~/.m2, once; a
# classpath file per profile beside the stamp. Offline, it fails in one line naming the artifact.
tests/jvm/target/.resolved: tests/jvm/pom.xml tests/jvm/resolve.py /usr/bin/mvn /usr/bin/javac
	$(PYTHON) tests/jvm/resolve.py

# The Kafka Streams examples (examples/streams/): Maven fetches kafka-streams 4.4.0 into ~/.m2, compiles them and
# copies the jars they need into target/lib/, which the jar's manifest names.
STREAMS_JAR := examples/streams/target/streams-examples-1.0.jar
$(STREAMS_JAR): examples/streams/pom.xml $(shell find examples/streams/src -type f) /usr/bin/mvn /usr/bin/javac
	mvn -B -q -f examples/streams/pom.xml package
	touch $@

# Debian's Prometheus: tests/integration/test_prometheus.py scrapes the broker with a real server.
/usr/bin/prometheus:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus; fi

# S3Proxy (Apache-2.0), a real S3 server over a directory: one jar from Maven Central into ~/.m2, once (the
# s3proxy profile of tests/jvm/pom.xml), run on the Java 17 above. tests/log/remote/ start it on free ports to
# test the S3 RemoteStorageManager; `make s3` runs it for a broker (docs/tiered_storage.md).
tests/jvm/target/classpath-s3proxy.txt: tests/jvm/pom.xml tests/jvm/resolve.py /usr/bin/mvn
	$(PYTHON) tests/jvm/resolve.py s3proxy
	touch $@

# Debian's Chromium: tests/integration/test_dashboard_browser.py opens the dashboard's pages in it, headless,
# through Playwright (which is told to use this binary and never downloads a browser of its own).
/usr/bin/chromium:
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi

run: $(STAMP)
	@echo "one KRaft node (broker and controller): clients use --bootstrap-server 127.0.0.1:9092"
	$(BIN)/kafka-server-start config/server.properties \
	  --override listeners=PLAINTEXT://127.0.0.1:9092 \
	  --override advertised.listeners=PLAINTEXT://127.0.0.1:9092 \
	  --override log.dirs=./data

# Three KRaft nodes on loopback (brokers 9092/9094/9096, controllers 9093/9095/9097), formatted on
# first use, data under data/cluster/; Ctrl-C stops all three (docs/kraft.md).
# TIERED=local or TIERED=s3 turns tiered storage on in every node: to a directory, data/cluster/remote/,
# or to `make s3`'s S3 server on S3_PORT (docs/tiered_storage.md#tiered-storage-on-make-cluster).
cluster: $(STAMP)
	$(BIN)/python -m kafka.tools.local_cluster config/cluster/node-1.properties \
	  config/cluster/node-2.properties config/cluster/node-3.properties $(CLUSTER_OVERRIDES)

TIERED ?=
TIERED_ON = remote.log.storage.system.enable=true remote.log.metadata.manager.listener.name=PLAINTEXT \
  remote.log.manager.task.interval.ms=1000 log.retention.check.interval.ms=1000
TIERED_local = remote.log.storage.manager.class.name=org.apache.kafka.server.log.remote.storage.LocalTieredStorage \
  rsm.config.dir=data/cluster/remote
TIERED_s3 = remote.log.storage.manager.class.name=kafka.log.remote.s3_remote_storage_manager.S3RemoteStorageManager \
  rsm.config.s3.bucket.name=kafka-tiered-storage rsm.config.s3.endpoint.url=http://127.0.0.1:$(S3_PORT) \
  rsm.config.aws.access.key.id=kafka-teaching rsm.config.aws.secret.access.key=kafka-teaching-secret
CLUSTER_OVERRIDES = $(if $(TIERED),$(if $(TIERED_$(TIERED)),,$(error TIERED must be local or s3, not $(TIERED))) \
  $(addprefix --override ,$(TIERED_ON) $(TIERED_$(TIERED))))

# Kafka 4's picture: three controller-only nodes (CONTROLLER 9093/9095/9097) and three broker-only
# nodes (clients 9092/9094/9096), formatted on first use, data under data/cluster-split/ (docs/kraft.md).
cluster-split: $(STAMP)
	$(BIN)/python -m kafka.tools.local_cluster config/cluster-split/controller-1.properties \
	  config/cluster-split/controller-2.properties config/cluster-split/controller-3.properties \
	  config/cluster-split/broker-1.properties config/cluster-split/broker-2.properties \
	  config/cluster-split/broker-3.properties

# The same three nodes with security on (docs/security.md#the-secure-cluster): SASL_SSL with SCRAM-SHA-512 for
# clients and between the nodes (9092/9094/9096; controllers 9093/9095/9097), mTLS on 9192/9194/9196, ACLs.
# First use makes the CA, certificates, client property files (admin, alice, bob, carol) and SCRAM users
# under data/cluster-secure/; Ctrl-C stops all three.
SECURE_NODES := config/cluster-secure/node-1.properties config/cluster-secure/node-2.properties \
  config/cluster-secure/node-3.properties
cluster-secure: $(STAMP)
	$(BIN)/python -m kafka.tools.secure_cluster_setup $(SECURE_NODES)
	$(BIN)/python -m kafka.tools.local_cluster $(SECURE_NODES)

# Prometheus scraping whichever of make run, make cluster and make cluster-split is up, and the dashboard's
# pages over it (docs/observability.md#the-dashboard): open the URL it prints. Ctrl-C stops both.
# Ports: DASHBOARD_PORT (the pages) and PROMETHEUS_PORT; Prometheus's files go to DASHBOARD_DATA.
DASHBOARD_PORT  ?= 3000
PROMETHEUS_PORT ?= 9090
DASHBOARD_DATA  ?= data/dashboard
dashboard: $(STAMP) /usr/bin/prometheus
	$(BIN)/kafka-dashboard --port $(DASHBOARD_PORT) --prometheus-port $(PROMETHEUS_PORT) --data-dir $(DASHBOARD_DATA)

# The dashboard's pictures in docs/images/ (docs/observability.md, lab 11): a broker under load, Prometheus
# and the pages on free ports, each page photographed in headless Chromium.
dashboard-screenshots: $(STAMP) /usr/bin/prometheus /usr/bin/chromium
	$(BIN)/python -m tests.integration.dashboard_screenshots docs/images

# S3Proxy on 127.0.0.1:S3_PORT with its buckets under S3_DATA, the bucket kafka-tiered-storage made; it prints
# the rsm.config.* lines a broker needs to tier its segments there (docs/tiered_storage.md). Ctrl-C stops it.
S3_PORT ?= 9000
S3_DATA ?= data/s3
s3: $(STAMP) /usr/bin/java tests/jvm/target/classpath-s3proxy.txt
	$(BIN)/python -m tests.s3proxy --port $(S3_PORT) --data-dir $(S3_DATA)

lint: $(STAMP)
	$(BIN)/ruff check kafka tests bench examples
	$(BIN)/lint-imports

test: $(STAMP) .venv-kafka-python/.installed /usr/bin/kcat /usr/bin/prometheus /usr/bin/chromium /usr/bin/java \
  tests/jvm/target/.resolved tests/jvm/target/classpath-s3proxy.txt $(STREAMS_JAR) lint
	$(BIN)/python -m tests.tiers

# The quick loop, under a minute on a quiet two-core machine: the tests marked `fast` (tests/conftest.py:
# no broker, no other process, no real client, not `slow`), on both cores (pytest-xdist, two workers),
# each seeded simulation on a handful of seeds (Raft 5 a cluster size instead of 500, membership 3
# instead of 15, controller 3 instead of 100, replication 5 instead of 100, the coordinator runtime's 5
# instead of 100) and each schema version's round trip on 3 generated messages instead of 15.
# `make test` runs the full counts and the `slow` tests.
# PYTHONDONTWRITEBYTECODE= lets pytest keep its rewritten test modules in __pycache__: collecting ~3,600 tests
# without that cache takes a fifth of the minute, every time.
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= RAFT_SIM_SEEDS=5 RAFT_MEMBERSHIP_SIM_SEEDS=3 CONTROLLER_SIM_SEEDS=3 REPLICATION_SIM_SEEDS=5 \
	  COORDINATOR_RUNTIME_SIM_SEEDS=5 SCHEMA_ROUNDTRIP_EXAMPLES=3 $(BIN)/pytest -q -m fast -n 2

# Faults on a live three-node cluster in network namespaces (root; docs/replication.md): DURATION seconds
# of partitions, pauses and kill -9 under idempotent producers and consumers, then the checker's verdict;
# SEED=n replays a run. Exits non-zero if anything acknowledged was lost, duplicated or reordered.
DURATION ?= 600
nemesis: $(STAMP)
	$(BIN)/python -m tests.nemesis --duration $(DURATION) $(if $(SEED),--seed $(SEED))

# Spark's own Kafka connector (spark-sql-kafka-0-10) and its jars, from Maven Central into ~/.m2, for SOURCE=kafka.
tests/jvm/target/classpath-spark-kafka.txt: tests/jvm/pom.xml /usr/bin/mvn
	$(PYTHON) tests/jvm/resolve.py spark-kafka

# A broker, a page-view generator and a Spark Structured Streaming job; stops by itself (docs/spark.md).
# SOURCE=kafka runs the same job on Spark's own connector, format("kafka"), instead of ours (kafka-teaching).
SOURCE ?= kafka-teaching
SPARK_KAFKA := $(filter kafka,$(SOURCE))
demo: $(STAMP) /usr/bin/java $(if $(SPARK_KAFKA),tests/jvm/target/classpath-spark-kafka.txt)
	$(BIN)/python -m kafka.spark.demo --format $(SOURCE) --data-dir data/spark-demo$(if $(SPARK_KAFKA),-kafka) \
	  $(if $(SPARK_KAFKA),--jars "$$(cat tests/jvm/target/classpath-spark-kafka.txt)")

# The same demo on `make cluster`'s three nodes (start it first): both topics with three replicas, and
# the leader of page-views-0 killed with SIGKILL half-way; the window counts still match (docs/spark.md).
demo-cluster: $(STAMP) /usr/bin/java
	$(BIN)/python -m kafka.spark.demo --bootstrap-server 127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096 \
	  --replication-factor 3 --kill-leader --data-dir data/spark-demo-cluster

# The demo on a Spark standalone master and two workers on loopback (executors in their own JVMs), against
# make cluster's three nodes with the leader of page-views-0 killed half-way; SOURCE=kafka: Spark's connector.
demo-spark-cluster: $(STAMP) /usr/bin/java $(if $(SPARK_KAFKA),tests/jvm/target/classpath-spark-kafka.txt)
	$(BIN)/python -m kafka.spark.demo --standalone-workers 2 --format $(SOURCE) \
	  --bootstrap-server 127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096 --replication-factor 3 --kill-leader \
	  --data-dir data/spark-demo-spark-cluster$(if $(SPARK_KAFKA),-kafka) \
	  $(if $(SPARK_KAFKA),--jars "$$(cat tests/jvm/target/classpath-spark-kafka.txt)")

# Kafka Connect and MirrorMaker 2 (connect-runtime, connect-file, connect-mirror 4.3.1) from Maven Central into ~/.m2.
tests/jvm/target/classpath-connect.txt: tests/jvm/pom.xml /usr/bin/mvn
	$(PYTHON) tests/jvm/resolve.py connect

# Two Kafka Connect workers in distributed mode, a FileStream source and sink set up through the REST API, one
# worker killed with SIGKILL (docs/ecosystem.md#kafka-connect). Start make run first; after make cluster, add
# BOOTSTRAP=127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096 REPLICATION_FACTOR=3.
.PHONY: demo-connect demo-mirror
demo-connect: $(STAMP) /usr/bin/java tests/jvm/target/classpath-connect.txt
	examples/connect/demo.sh

# MirrorMaker 2 between an Apache Kafka 4.4 node it starts (127.0.0.1:29092) and make run's broker, both ways:
# a topic and a group's offsets, a consumer moved across (docs/ecosystem.md#mirrormaker-2). Start make run first.
demo-mirror: $(STAMP) /usr/bin/java /usr/bin/mvn tests/jvm/target/classpath-connect.txt
	$(BIN)/python examples/mirror/demo.py

# Kafka Streams 4.4 on `make cluster`'s three nodes (start it first; docs/ecosystem.md#kafka-streams): a word count
# and a windowed join, two instances each, exactly_once_v2; an instance of each and a broker killed with kill -9
# and started again; then both outputs, read with read_committed, checked against what the input implies.
demo-streams: $(STAMP) $(STREAMS_JAR)
	$(BIN)/python -m examples.streams.demo --data-dir data/streams-demo

# The course labs (docs/labs/README.md). `make lab N=03` runs lab 03's checks on this tree, in plain words.
lab: $(STAMP)
	@test -n "$(N)" || { echo "usage: make lab N=01   (kafka-lab list shows the labs)"; exit 2; }
	$(BIN)/kafka-lab check $(N)

# A copy of this tree for students, each lab's solution replaced by a TODO that raises NotImplementedError:
# make lab-handout DIR=../kafka-labs            every lab
# make lab-handout DIR=../lab-03 LABS="03"      only lab 03's solution removed
lab-handout: $(STAMP)
	@test -n "$(DIR)" || { echo "usage: make lab-handout DIR=../kafka-labs [LABS=\"03 04\"]"; exit 2; }
	$(BIN)/kafka-lab handout $(DIR) $(foreach lab,$(LABS),--lab $(lab))

# Our broker beside the reference broker (../shared/bench); see bench/compare.sh.
bench: $(STAMP) /usr/bin/java tests/jvm/target/.resolved
	bench/compare.sh

clean:
	rm -rf $(VENV) .venv-kafka-python data .pytest_cache .ruff_cache .hypothesis tests/jvm/target examples/streams/target
