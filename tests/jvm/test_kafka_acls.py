"""Kafka's own kafka-acls (org.apache.kafka.tools.AclCommand, from the kafka-tools jar) against our broker,
and ours beside it as the oracle's twin: the same flags give the same ACLs and print the same lines.

The broker runs the StandardAuthorizer with User:ANONYMOUS as a super user (PLAINTEXT: the tools and
the broker's own requests are all ANONYMOUS), so the tools manage ACLs for other principals.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import REPO, BrokerProcess, wait_until
from tests.jvm.jvm import classpath, run_java

pytestmark = pytest.mark.timeout(240)

ACL_COMMAND = "org.apache.kafka.tools.AclCommand"
SECURED = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
           "super.users": "User:ANONYMOUS"}


@pytest.fixture(scope="module")
def acls(tmp_path_factory):
    cp = classpath("tools")
    broker = BrokerProcess(tmp_path_factory.mktemp("acl-broker") / "data", SECURED)
    try:
        def java(*args: str) -> str:
            done = run_java(cp, ACL_COMMAND, "--bootstrap-server", broker.bootstrap, *args, timeout=90)
            assert done.returncode == 0, (
                f"AclCommand {' '.join(args)}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
            return done.stdout

        def ours(*args: str) -> str:
            done = subprocess.run([sys.executable, "-m", "kafka.tools.acl_command", "--bootstrap-server",
                                   broker.bootstrap, *args], capture_output=True, text=True, cwd=REPO,
                                   timeout=60)
            assert done.returncode == 0, f"kafka-acls {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
            return done.stdout

        yield java, ours
    finally:
        broker.stop()


def test_kafkas_acl_command_adds_lists_and_removes(acls):
    java, ours = acls
    added = java("--add", "--allow-principal", "User:alice", "--operation", "Write", "--topic", "orders")
    assert added == ("Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, "
                     "patternType=LITERAL)`:"
                     " \n \t(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)\n\n")
    assert ours("--add", "--allow-principal", "User:alice", "--operation", "Write", "--topic",
                "orders") == added
    expected = ("Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, "
                "patternType=LITERAL)`:"
                "\n\t(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)\n\n")
    assert wait_until(lambda: java("--list", "--topic", "orders") == expected and expected,
                      message="AclCommand --list to show the ACL")
    assert ours("--list", "--topic", "orders") == expected
    java("--remove", "--force", "--allow-principal", "User:alice", "--operation", "Write", "--topic",
         "orders")
    wait_until(lambda: java("--list", "--topic", "orders") == "", message="the ACL removed")


def test_producer_and_consumer_shortcuts_agree_with_ours(acls):
    java, ours = acls
    java("--add", "--allow-principal", "User:bob", "--producer", "--topic", "pay-", "--resource-pattern-type",
         "prefixed", "--idempotent")
    ours("--add", "--allow-principal", "User:carol", "--consumer", "--topic", "pay-", "--group", "billing",
         "--resource-pattern-type", "prefixed")

    def listed(out: str) -> set[str]:
        return {line.strip() for line in out.splitlines() if line.strip()}

    wait_until(lambda: "User:carol" in java("--list", "--topic", "pay-", "--resource-pattern-type",
                                            "prefixed"),
               message="both tools' ACLs listed")
    theirs = listed(java("--list"))
    assert listed(ours("--list")) == theirs
    assert "(principal=User:bob, host=*, operation=IDEMPOTENT_WRITE, permissionType=ALLOW)" in theirs
    assert {f"(principal=User:bob, host=*, operation={op}, permissionType=ALLOW)"
            for op in ("WRITE", "DESCRIBE", "CREATE")} <= theirs
    assert "(principal=User:carol, host=*, operation=READ, permissionType=ALLOW)" in theirs
    assert ours("--list", "--principal", "User:bob").startswith("ACLs for principal `User:bob`\n")
