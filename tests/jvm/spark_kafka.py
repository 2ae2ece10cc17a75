"""Spark's own Kafka connector (``org.apache.spark:spark-sql-kafka-0-10_2.13``, ``format("kafka")``) for the
tests that run it: its jars, resolved by Maven into ~/.m2 through pom.xml's ``spark-kafka`` profile, for
``spark.jars``.

The connector is built against one Spark release and must be that release's: pom.xml's ``spark.version``
and the installed PySpark must agree, or the tests fail saying so (docs/spark.md, why PySpark is pinned).
A connector that cannot be had fails the tests that use it in one line, as the rest of the JVM tier does;
nothing is skipped.
"""

from __future__ import annotations

import re

from tests.jvm import resolve

PROFILE = "spark-kafka"
SOURCE_PROVIDER = "org.apache.spark.sql.kafka010.KafkaSourceProvider"


class ConnectorMissing(Exception):
    """One line: why Spark's Kafka connector is not on this machine."""


def pom_spark_version() -> str:
    pom = (resolve.HERE / "pom.xml").read_text()
    return re.search(r"<spark\.version>([^<]+)</spark\.version>", pom).group(1)


def connector_jars() -> list[str]:
    """The connector's jars (it, the token provider, kafka-clients, commons-pool2); raises
    ConnectorMissing."""
    import pyspark

    wanted = pom_spark_version()
    if pyspark.__version__ != wanted:
        raise ConnectorMissing(f"PySpark {pyspark.__version__} is installed but tests/jvm/pom.xml resolves "
                               f"Spark's Kafka connector {wanted}: they must be one Spark release "
                               "(pip install -e '.[spark]' installs the pinned PySpark)")
    try:
        return resolve.classpath(PROFILE).split(":")
    except resolve.ResolveError as e:
        raise ConnectorMissing(str(e)) from None
    except FileNotFoundError:
        raise ConnectorMissing("JVM tier: mvn not found: install Maven (`make test` does, with "
                               "Debian's maven package)") from None


def spark_conf() -> tuple[dict[str, str], str | None]:
    """The session settings that put the connector on Spark's classpath, and why not (None if it is there)."""
    try:
        return {"spark.jars": ",".join(connector_jars())}, None
    except ConnectorMissing as e:
        return {}, str(e)
