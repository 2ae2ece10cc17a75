"""`make cluster-secure`'s first-use step: the certificates, client property files and SCRAM users that the
secure three-node cluster of config/cluster-secure/ needs, made on this machine and never committed.

    python -m kafka.tools.secure_cluster_setup config/cluster-secure/node-1.properties node-2... node-3...

No Kafka tool does this: Kafka's security guide has the operator run `openssl`/`keytool` and
`kafka-storage format --add-scram` by hand. The node configs say where everything goes, so they stay the
one source of paths: the CA (`ssl.truststore.location`, its key beside it as ca-key.pem), each node's
keystore (`ssl.keystore.location`: CN=node-<id>, for localhost and 127.0.0.1), and next to the CA a
client certificate for alice (alice.pem, for the mTLS listener) and, for admin, alice, bob and carol,
a client property file in Kafka's syntax (<user>.properties, for `--command-config` of our tools and
Kafka's) and one in librdkafka's (<user>-librdkafka.properties, for `kcat -F` and confluent-kafka).
Whatever exists is kept. Nodes not formatted yet are formatted with one cluster id and the demo users
(SCRAM-SHA-512), exactly as `kafka-storage format -t <id> -c <config> --add-scram ...` does.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from kafka.server.kafka_config import KafkaConfig, parse_properties
from kafka.tools import storage_tool
from kafka.tools.certificate_authority import Issued, chain_and_key_pem, issue, load, loopback_names, name
from kafka.tools.local_cluster import cluster_id_of, unformatted

# The demo users and their passwords (docs/security.md#the-secure-cluster). admin is the brokers' own
# principal and the one super user; the nodes' JAAS texts name the same password.
DEMO_USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}
MECHANISM = "SCRAM-SHA-512"
MTLS_USER = "alice"
ORGANIZATION = "Kafka Teaching"


def add_scram_arguments() -> list[str]:
    """The --add-scram arguments of kafka-storage format for the demo users."""
    return [f"{MECHANISM}=[name={user},password={password}]" for user, password in DEMO_USERS.items()]


def certificate_authority(ca_file: Path) -> tuple[Issued, bool]:
    """The CA kept beside the truststore, or a new one (then every certificate it signed is made again)."""
    key_file = ca_file.with_name("ca-key.pem")
    if ca_file.exists() and key_file.exists():
        return load(ca_file.read_bytes() + key_file.read_bytes()), False
    ca = issue(name("Demo CA", "kafka", ORGANIZATION), None, ca=True, days=365)
    pem = chain_and_key_pem(ca)
    split = pem.index(b"-----BEGIN PRIVATE KEY-----")
    write(ca_file, pem[:split])
    write(key_file, pem[split:], private=True)
    return ca, True


def write(path: Path, data: bytes | str, private: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if private:
        os.chmod(path, 0o600)
    print(f"wrote {path}", flush=True)


def client_properties(user: str, ca_file: Path) -> str:
    return (f"# {user} on the secure cluster's SASL_SSL listeners (make cluster-secure, docs/security.md).\n"
            "# Kafka's client configuration: --command-config of our tools and of Kafka's bin/kafka-*.sh.\n"
            f"security.protocol=SASL_SSL\nsasl.mechanism={MECHANISM}\n"
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{user}" password="{DEMO_USERS[user]}";\n'
            f"ssl.truststore.type=PEM\nssl.truststore.location={ca_file}\n")


def librdkafka_properties(user: str, ca_file: Path) -> str:
    return (f"# {user} on the secure cluster's SASL_SSL listeners, in librdkafka's keys (kcat -F "
            "this-file).\n"
            f"security.protocol=SASL_SSL\nsasl.mechanism={MECHANISM}\n"
            f"sasl.username={user}\nsasl.password={DEMO_USERS[user]}\nssl.ca.location={ca_file}\n")


def mtls_properties(keystore: Path, ca_file: Path, librdkafka: bool) -> str:
    if librdkafka:
        return (f"# {MTLS_USER}'s certificate on the secure cluster's SSL listeners (mTLS), for kcat -F.\n"
                f"security.protocol=SSL\nssl.certificate.location={keystore}\nssl.key.location={keystore}\n"
                f"ssl.ca.location={ca_file}\n")
    return (f"# {MTLS_USER}'s certificate on the secure cluster's SSL listeners (mTLS, "
            "ssl.client.auth=required);\n"
            "# Kafka's client configuration: --command-config of our tools and of Kafka's bin/kafka-*.sh.\n"
            f"security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location={keystore}\n"
            f"ssl.truststore.type=PEM\nssl.truststore.location={ca_file}\n")


def make_files(node_props: dict[str, dict[str, str]]) -> None:
    first = next(iter(node_props.values()))
    ca_file = Path(first["ssl.truststore.location"]).absolute()
    ca, new_ca = certificate_authority(ca_file)
    for props in node_props.values():
        keystore = Path(props["ssl.keystore.location"])
        if new_ca or not keystore.exists():
            node = issue(name(f"node-{props['node.id']}", "kafka", ORGANIZATION), ca, sans=loopback_names(),
                         days=365)
            write(keystore, chain_and_key_pem(node), private=True)
    directory = ca_file.parent
    mtls_keystore = directory / f"{MTLS_USER}.pem"
    if new_ca or not mtls_keystore.exists():
        client = issue(name(MTLS_USER, "clients", ORGANIZATION), ca, days=365)
        write(mtls_keystore, chain_and_key_pem(client), private=True)
    files = {f"{user}{suffix}.properties": make(user, ca_file) for user in DEMO_USERS
             for suffix, make in (("", client_properties), ("-librdkafka", librdkafka_properties))}
    files[f"{MTLS_USER}-mtls.properties"] = mtls_properties(mtls_keystore, ca_file, librdkafka=False)
    files[f"{MTLS_USER}-mtls-librdkafka.properties"] = mtls_properties(mtls_keystore, ca_file,
                                                                       librdkafka=True)
    for file_name, text in files.items():
        if not (directory / file_name).exists():
            write(directory / file_name, text, private=True)


def format_with_demo_users(config_paths: list[str]) -> int:
    configs = {path: KafkaConfig.from_file(path) for path in config_paths}
    todo = unformatted(configs)
    if not todo:
        return 0
    cluster_id = cluster_id_of(configs)
    for path in todo:
        print(f"kafka-storage format -t {cluster_id} -c {path} "
              + " ".join(f"--add-scram '{a}'" for a in add_scram_arguments()), flush=True)
        status = storage_tool.main(["format", "-t", cluster_id, "-c", path, "--ignore-formatted",
                                    *(arg for a in add_scram_arguments() for arg in ("--add-scram", a))])
        if status:
            return status
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="secure-cluster-setup",
                                     description="Certificates, client configs and SCRAM users for make "
                                                 "cluster-secure.")
    parser.add_argument("configs", nargs="+", help="one server.properties per node")
    args = parser.parse_args(argv)
    node_props = {path: parse_properties(Path(path).read_text()) for path in args.configs}
    make_files(node_props)
    return format_with_demo_users(args.configs)


if __name__ == "__main__":
    sys.exit(main())
