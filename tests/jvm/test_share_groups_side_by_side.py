"""kafka-share-groups beside Kafka 4.4's own ShareGroupCommand, on one broker (as tests/jvm/
test_tools_side_by_side.py does for the other tools): the same arguments, the same standard output and
exit status, line for line, for reading cases (the lists, the three descriptions, the reset plans, the
errors Kafka's tool prints on standard output) and, one at a time, for the cases that write.

The state: a topic of two partitions with ten records; share group "g", whose start offsets Kafka's tool
set before anybody read (a reset creates the group); and for the member cases, a member that joined with
ShareGroupHeartbeat on the wire. It needs share groups wired into KafkaServer: until ShareGroupHeartbeat
is served it skips, saying so.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from kafka.clients.admin import AdminClient, NewTopic
from kafka.clients.producer import KafkaProducer
from tests.helpers import REPO, BrokerProcess
from tests.jvm.jvm import classpath, run_java
from tests.tools.test_share_groups_command import heartbeat, share_groups_served

pytestmark = pytest.mark.timeout(300)

SHARE_GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"

READERS = {
    "list": ("--list",),
    "list-state": ("--list", "--state"),
    "describe": ("--describe", "--group", "g"),
    "describe-verbose": ("--describe", "--group", "g", "--verbose"),
    "describe-all-groups": ("--describe", "--all-groups"),
    "state": ("--describe", "--group", "g", "--state"),
    "state-verbose": ("--describe", "--group", "g", "--state", "--verbose"),
    "members-of-an-empty-group": ("--describe", "--group", "g", "--members"),
    "reset-plan-earliest": ("--reset-offsets", "--group", "g", "--topic", "orders", "--to-earliest",
                            "--dry-run"),
    "reset-plan-current": ("--reset-offsets", "--group", "g", "--all-topics", "--to-current", "--dry-run"),
    "reset-plan-export": ("--reset-offsets", "--group", "g", "--topic", "orders", "--to-offset", "99",
                          "--dry-run", "--export"),
    "describe-unknown-group": ("--describe", "--group", "nope"),
    "delete-offsets-unknown-group": ("--delete-offsets", "--group", "nope", "--topic", "orders"),
    "delete-offsets-unknown-topic": ("--delete-offsets", "--group", "g", "--topic", "zzz"),
    "delete-unknown-group": ("--delete", "--group", "nope"),
}
WITH_A_MEMBER = {
    "members": ("--describe", "--group", "g", "--members"),
    "members-verbose": ("--describe", "--group", "g", "--members", "--verbose"),
    "state-stable": ("--describe", "--group", "g", "--state", "--verbose"),
    "list-stable": ("--list", "--state", "Stable"),
    "delete-refused": ("--delete", "--group", "g"),
    "reset-refused": ("--reset-offsets", "--group", "g", "--topic", "orders", "--to-earliest", "--dry-run"),
}


class BothTools:
    def __init__(self, broker: BrokerProcess, cp: str) -> None:
        self.broker, self.cp = broker, cp

    def theirs(self, *args: str) -> tuple[int, str]:
        done = run_java(self.cp, SHARE_GROUP_COMMAND, "--bootstrap-server", self.broker.bootstrap, *args,
                        timeout=90)
        return done.returncode, done.stdout

    def ours(self, *args: str) -> tuple[int, str]:
        done = subprocess.run([sys.executable, "-m", "kafka.tools.share_groups_command", "--bootstrap-server",
                               self.broker.bootstrap, *args], capture_output=True, text=True, timeout=90,
                               cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
        return done.returncode, done.stdout


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    broker = BrokerProcess(tmp_path_factory.mktemp("share-side-broker") / "data")
    try:
        if not share_groups_served(broker.port):
            pytest.skip("share groups are not wired into KafkaServer yet (ShareGroupHeartbeat is not "
                        "served): this comparison runs once the share-wiring branch is merged")
        with AdminClient({"bootstrap.servers": broker.bootstrap}) as admin:
            assert admin.create_topics([NewTopic("orders", 2, 1)]) == {"orders": None}
        with KafkaProducer({"bootstrap.servers": broker.bootstrap}) as producer:
            for i in range(10):
                producer.send("orders", value=f"order-{i}".encode(), partition=i % 2)
            producer.flush()
        tools = BothTools(broker, classpath("tools"))
        status, _ = tools.theirs("--reset-offsets", "--group", "g", "--topic", "orders:1", "--to-offset", "3",
                                 "--execute")
        assert status == 0
        yield tools
    finally:
        broker.stop()


@pytest.mark.parametrize("case", list(READERS))
def test_same_output(both, case):
    ours, theirs = both.ours(*READERS[case]), both.theirs(*READERS[case])
    print(f"---- ours (exit {ours[0]})\n{ours[1]}---- kafka (exit {theirs[0]})\n{theirs[1]}")
    assert ours == theirs


def test_same_output_with_a_member(both):
    joined = heartbeat(both.broker.port, str(uuid.uuid4()), 0, ["orders"])
    heartbeat(both.broker.port, joined.member_id, joined.member_epoch)  # takes its assignment
    try:
        for case, args in WITH_A_MEMBER.items():
            ours, theirs = both.ours(*args), both.theirs(*args)
            assert ours == theirs, f"{case}:\n---- ours\n{ours[1]}---- kafka\n{theirs[1]}"
    finally:
        heartbeat(both.broker.port, joined.member_id, -1)


def test_the_writers_print_the_same(both):
    """Our tool resets group "w" (creating it), deletes its offsets, describes and deletes it; then Kafka's
    does the same to a new "w": every step prints the same."""
    steps = [("--reset-offsets", "--group", "w", "--topic", "orders", "--to-latest", "--execute"),
             ("--delete-offsets", "--group", "w", "--topic", "orders"),
             ("--describe", "--group", "w"),
             ("--delete", "--group", "w")]
    ours = [both.ours(*step) for step in steps]
    theirs = [both.theirs(*step) for step in steps]
    assert ours == theirs
    assert ours[-1] == (0, "Deletion of requested share groups ('w') was successful.\n")
