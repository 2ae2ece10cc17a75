"""The KRaft metadata records byte for byte as Apache Kafka 4.4 writes them: every record type of
kafka/protocol/metadata_records.py at every version Kafka defines for it, serialized by our SCHEMAS and by
Kafka's MetadataRecordSerde, must be the same bytes; Kafka's serde reads ours back to the record it built
itself, and we read Kafka's back to ours.

The truth is Kafka's own: the field list, versions, tags and nullability come from the message JSON
inside the kafka-metadata 4.4 jar (common/metadata/*.json, what Kafka's generated *Record classes are
made from), and Kafka's side of each record is built by its generated *JsonConverter.read and written by
MetadataRecordSerde. Every field present at a version gets a value no other field has and that is not its
default (tagged fields too, so they are written); arrays get two entries; a type with nullable fields is
checked twice, once with them set and once null. A mismatch is reported with Kafka's JSON of both
records (its own and ours as it read them), which names the field.

One javac and one JVM run for all records: the Java side reads the cases on stdin, one a line.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import uuid
import zipfile
from dataclasses import dataclass
from itertools import count
from typing import Any

import pytest

from kafka.protocol.metadata_records import (
    SCHEMAS,
    ApiMessageAndVersion,
    MetadataRecordType,
    deserialize,
    serialize,
)
from tests.jvm.jvm import classpath, run_java

pytestmark = pytest.mark.timeout(120)

JAVA = """
import java.io.*;
import java.nio.ByteBuffer;
import com.fasterxml.jackson.databind.*;
import org.apache.kafka.common.metadata.MetadataJsonConverters;
import org.apache.kafka.common.protocol.*;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

/** Each stdin line "apiKey version kafkaJson ourHex": Kafka's bytes of the record, its JSON, and the
 *  JSON of what Kafka's serde reads from our bytes (or the exception it threw). Tab-separated. */
public class MetadataSerde {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }
    static byte[] unhex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
    static String kafkas(ApiMessageAndVersion record) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(MetadataRecordSerde.INSTANCE.recordSize(record, cache));
        MetadataRecordSerde.INSTANCE.write(record, cache, new ByteBufferAccessor(buffer));
        return hex(buffer.array());
    }
    static String readOurs(byte[] ours) {
        ByteBuffer buffer = ByteBuffer.wrap(ours);
        ApiMessageAndVersion read =
            MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(buffer), ours.length);
        String left = buffer.hasRemaining() ? " LEFT OVER: " + buffer.remaining() + " bytes" : "";
        return "v" + read.version() + " "
            + MetadataJsonConverters.writeJson(read.message(), read.version()) + left;
    }
    public static void main(String[] args) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] part = line.split("\\t", -1);
            short apiKey = Short.parseShort(part[0]), version = Short.parseShort(part[1]);
            String bytes, json, ours;
            try {
                ApiMessage message =
                    MetadataJsonConverters.readJson(mapper.readTree(part[2]), apiKey, version);
                bytes = kafkas(new ApiMessageAndVersion(message, version));
                json = "v" + version + " " + MetadataJsonConverters.writeJson(message, version);
            } catch (Exception e) {
                bytes = "-";
                json = "KAFKA FAILED: " + e;
            }
            try {
                ours = readOurs(unhex(part[3]));
            } catch (Exception e) {
                ours = "KAFKA CANNOT READ OURS: " + e;
            }
            System.out.println(bytes + "\\t" + json + "\\t" + ours);
        }
    }
}
"""


# ------------------------------------------------------------------------------ Kafka's message JSON


def kafka_message_specs(jars: str) -> dict[str, dict]:
    """common/metadata/<Name>.json from the kafka-metadata jar on the classpath, by message name (the
    files carry // comments, which JSON does not allow)."""
    jar = next(p for p in jars.split(":") if re.search(r"/kafka-metadata-[^/]*\.jar$", p))
    specs = {}
    with zipfile.ZipFile(jar) as z:
        for name in z.namelist():
            if name.startswith("common/metadata/") and name.endswith(".json"):
                text = "\n".join(line for line in z.read(name).decode().splitlines()
                                 if not line.lstrip().startswith("//"))
                spec = json.loads(text)
                specs[spec["name"]] = spec
    return specs


def versions_of(spec: str | None) -> range:
    """Kafka's "3+", "0-4", "2" as a range of versions (bounded by the message's highest, 0x7fff here)."""
    if spec is None or spec == "none":
        return range(0)
    if spec.endswith("+"):
        return range(int(spec[:-1]), 0x8000)
    lo, _, hi = spec.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def snake(name: str) -> str:
    """Kafka's field name as ours: IsMigratingZkBroker -> is_migrating_zk_broker."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def camel(name: str) -> str:
    """Kafka's field name as its JSON converters spell it: IsMigratingZkBroker -> isMigratingZkBroker."""
    return name[0].lower() + name[1:]


def kafka_uuid(value: uuid.UUID) -> str:
    """Uuid.toString: the 16 bytes in URL-safe base64, unpadded."""
    return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode()


# ------------------------------------------------------------------------------ one record of each kind


@dataclass
class Case:
    type: MetadataRecordType
    name: str
    version: int
    nulls: bool  # the nullable fields null (else set)
    kafka_json: dict[str, Any]  # Kafka's field names (camelCase), as its JsonConverter reads them
    ours: ApiMessageAndVersion
    we_lack: list[str]  # fields Kafka has at this version and our schema has not

    def __str__(self) -> str:
        return (f"{self.name} v{self.version}" + (" (nullable fields null)" if self.nulls else "")
                + (f", a field we lack: {self.we_lack}" if self.we_lack else ""))


class Values:
    """A value for each field, none repeated, none a field's default: a swapped pair of fields or a
    field read into its neighbour's place shows."""

    def __init__(self) -> None:
        self.next = count(1)

    def scalar(self, kafka_type: str, field: dict) -> tuple[Any, Any]:
        """(Kafka's JSON value, our value) of one field of a primitive type."""
        n = next(self.next)
        if kafka_type == "bool":
            value = field.get("default", "false") != "true"
            return value, value
        widths = {"int8": n, "int16": 300 + n, "uint16": 40000 + n, "int32": 70000 + n,
                  "int64": 5_000_000_000 + n}
        if kafka_type in widths:
            return widths[kafka_type], widths[kafka_type]
        if kafka_type == "float64":
            return n + 0.25, n + 0.25
        if kafka_type == "string":
            return f"{field['name']}-{n}", f"{field['name']}-{n}"
        if kafka_type == "uuid":
            value = uuid.UUID(int=(0x5EED << 112) + n)
            return kafka_uuid(value), value
        if kafka_type == "bytes":
            value = bytes([n, n + 1, n + 2])
            return base64.b64encode(value).decode(), value
        raise AssertionError(f"a metadata field of type {kafka_type}: teach this test its values")


def field_values(fields: list[dict], version: int, nulls: bool, values: Values) -> tuple[dict, dict]:
    """Kafka's JSON and our fields for the fields present at `version`."""
    kafka, ours = {}, {}
    for field in fields:
        if version not in versions_of(field.get("versions")):
            continue
        if nulls and version in versions_of(field.get("nullableVersions")):
            kafka[camel(field["name"])], ours[snake(field["name"])] = None, None
            continue
        kafka_type = field["type"]
        if kafka_type.startswith("[]"):
            element = kafka_type[2:]
            if "fields" in field:  # an array of structs
                entries = [field_values(field["fields"], version, nulls, values) for _ in range(2)]
            else:
                entries = [values.scalar(element, field) for _ in range(2)]
            kafka[camel(field["name"])] = [k for k, _ in entries]
            ours[snake(field["name"])] = [o for _, o in entries]
        else:
            kafka[camel(field["name"])], ours[snake(field["name"])] = values.scalar(kafka_type, field)
    return kafka, ours


def has_nullable(fields: list[dict], version: int) -> bool:
    return any(version in versions_of(f.get("versions"))
               and (version in versions_of(f.get("nullableVersions"))
                    or has_nullable(f.get("fields", []), version))
               for f in fields)


def cases(specs: dict[str, dict]) -> list[Case]:
    """Every record type we have, at every version Kafka defines, with values set (and, where the type
    has nullable fields, again with those null)."""
    out = []
    for type_, (schema, _) in SCHEMAS.items():
        spec = specs[schema.name]
        assert spec["apiKey"] == type_.value, f"{schema.name}: Kafka's apiKey is {spec['apiKey']}"
        for version in versions_of(spec["validVersions"]):
            for nulls in (False, True) if has_nullable(spec["fields"], version) else (False,):
                kafka_json, ours = field_values(spec["fields"], version, nulls, Values())
                we_lack = sorted(ours.keys() - {f.name for f in schema.fields})
                ours = {k: v for k, v in ours.items() if k not in we_lack}
                out.append(Case(type_, schema.name, version, nulls, kafka_json,
                                ApiMessageAndVersion(type_, version, schema.new(**ours)), we_lack))
    return out


def our_hex(case: Case) -> str:
    try:
        return serialize(case.ours).hex()
    except Exception as e:  # noqa: BLE001 - reported with the case, beside Kafka's bytes
        return f"<we cannot write it: {e}>"


# ------------------------------------------------------------------------------ both sides, once


@dataclass
class Answer:
    case: Case
    ours: str  # our bytes, hex
    kafkas: str  # Kafka's bytes, hex ("-" if Kafka refused the record)
    kafka_json: str  # "v<version> <Kafka's JSON of its record>"
    kafka_reads_ours: str  # "v<version> <Kafka's JSON of the record it read from our bytes>"

    def explain(self) -> str:
        return (f"{self.case}\n  ours:  {self.ours}\n  Kafka: {self.kafkas}\n"
                f"  Kafka's record:             {self.kafka_json}\n"
                f"  Kafka's read of our bytes:  {self.kafka_reads_ours}")


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> list[Answer]:
    jars = classpath("broker")
    all_cases = cases(kafka_message_specs(jars))
    work = tmp_path_factory.mktemp("metadata-serde")
    (work / "MetadataSerde.java").write_text(JAVA)
    compiled = subprocess.run(["javac", "-nowarn", "--release", "17", "-cp", jars, "-d", str(work),
                               str(work / "MetadataSerde.java")], capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr
    ours = [our_hex(c) for c in all_cases]
    lines = "".join(f"{c.type.value}\t{c.version}\t{json.dumps(c.kafka_json)}\t{h if h[0] != '<' else ''}\n"
                    for c, h in zip(all_cases, ours, strict=True))
    done = run_java(f"{work}:{jars}", "MetadataSerde", stdin=lines, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split("\t") for line in done.stdout.splitlines() if "\t" in line]
    assert len(rows) == len(all_cases), done.stdout[-3000:] + done.stderr[-3000:]
    return [Answer(c, h, *row) for c, h, row in zip(all_cases, ours, rows, strict=True)]


def of_type(answers: list[Answer], type_: MetadataRecordType) -> list[Answer]:
    mine = [a for a in answers if a.case.type == type_]
    assert mine, f"no case for {type_.name}"
    return mine


TYPES = list(SCHEMAS)


@pytest.mark.parametrize("type_", TYPES, ids=[SCHEMAS[t][0].name for t in TYPES])
def test_our_bytes_are_kafkas(answers, type_):
    wrong = [a for a in of_type(answers, type_) if a.ours != a.kafkas]
    assert not wrong, "\n".join(a.explain() for a in wrong)


@pytest.mark.parametrize("type_", TYPES, ids=[SCHEMAS[t][0].name for t in TYPES])
def test_kafka_reads_ours_as_its_own(answers, type_):
    wrong = [a for a in of_type(answers, type_) if a.kafka_reads_ours != a.kafka_json]
    assert not wrong, "\n".join(a.explain() for a in wrong)


@pytest.mark.parametrize("type_", TYPES, ids=[SCHEMAS[t][0].name for t in TYPES])
def test_we_read_kafkas_as_ours(answers, type_):
    wrong = []
    for a in of_type(answers, type_):
        try:
            read = deserialize(bytes.fromhex(a.kafkas))
        except Exception as e:  # noqa: BLE001 - reported with the case
            wrong.append(f"{a.explain()}\n  we cannot read Kafka's: {e}")
            continue
        expected = a.case.ours
        if (read.type, read.version, read.data.to_dict()) != (expected.type, expected.version,
                                                              expected.data.to_dict()):
            wrong.append(f"{a.explain()}\n  we read Kafka's as: v{read.version} {read.data.to_dict()}")
    assert not wrong, "\n".join(wrong)
