"""kafka-jmx (kafka/tools/jmx_tool.py): Kafka's JmxTool over /metrics. MBean names resolve to the
broker's metrics, `name=*` expands, tags left out are summed over, bad names are refused by name, and
on a real broker a meter, a gauge and a histogram print in both report formats."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kafka.tools.jmx_tool import ObjectName, report
from tests.helpers import REPO, wait_until
from tests.integration.test_long_poll import create, produce
from tests.wire import WireClient

SAMPLES = {
    "kafka_network_requestmetrics_requests_total": [({"request": "Produce", "version": "7"}, 2.0),
                                                    ({"request": "Produce", "version": "9"}, 3.0),
                                                    ({"request": "Metadata", "version": "12"}, 5.0)],
    "kafka_server_brokertopicmetrics_bytesin_total": [({}, 100.0), ({"topic": "a"}, 100.0)],
}


def test_an_mbean_name_resolves_to_its_metric_and_tags():
    [mbean] = ObjectName.parse("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce")
    assert (mbean.metric.prometheus_name, mbean.tags) == ("kafka_network_requestmetrics_totaltimems",
                                                          {"request": "Produce"})
    names = [m.metric.name for m in ObjectName.parse("kafka.network:type=RequestMetrics,name=*")]
    assert "TotalTimeMs" in names and "RequestsPerSec" in names


@pytest.mark.parametrize(("text", "error"), [
    ("kafka.network:type=RequestMetrics,name=Nope", "no metric"),
    ("kafka.network:type=RequestMetrics,name=TotalTimeMs,color=red", "no metric"),
    ("kafka.network:type", "not an MBean name"),
])
def test_a_bad_name_is_refused(text, error):
    with pytest.raises(ValueError, match=error):
        ObjectName.parse(text)


def test_tags_left_out_are_summed_and_the_all_topics_series_is_topic_empty():
    [requests] = ObjectName.parse("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce")
    [all_topics] = ObjectName.parse("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=")
    values = report(SAMPLES, [requests, all_topics], None)
    assert list(values.values()) == [5.0, 100.0]
    with pytest.raises(ValueError, match="attributes Mean"):
        report(SAMPLES, [requests], ["Mean"])  # a meter has a Count only


def test_kafka_jmx_on_a_real_broker(broker):
    client = WireClient(broker.port)
    create(client, "jmx")
    produce(client, "jmx", b"hello")
    client.close()
    tool = [sys.executable, "-m", "kafka.tools.jmx_tool", "--metrics-url", broker.server.metrics_endpoint.url,
            "--one-time", "true"]
    names = ["--object-name", "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce",
             "--object-name", "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent",
             "--object-name", "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"]
    out = wait_until(lambda: (o := subprocess.run([*tool, *names, "--attributes",
                                                   "Count,Value,99thPercentile"],
                                                  capture_output=True, text=True, cwd=REPO,
                                                  timeout=30)).stdout
                     .splitlines()[-1].split(",")[1] == "1" and o, message="the produce request on /metrics")
    header, row = out.stdout.splitlines()
    metrics = "kafka.network:type=RequestMetrics"
    assert header.startswith(f'"time","{metrics},name=RequestsPerSec,request=Produce:Count",')
    assert header.endswith(f',"{metrics},name=TotalTimeMs,request=Produce:99thPercentile"')
    assert len(row.split(",")) == 5  # time, Count, Value, Count, 99thPercentile
    props = subprocess.run([*tool, "--report-format", "properties", *names[:2]], capture_output=True,
                           text=True,
                           cwd=REPO, timeout=30).stdout
    assert props.startswith("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce:Count=1\n")
    bad = subprocess.run([*tool, "--object-name", "kafka.x:type=Y,name=Z"], capture_output=True, text=True,
                         cwd=REPO, timeout=30)
    assert bad.returncode == 2 and "no metric 'kafka.x:type=Y,name=Z'" in bad.stderr
