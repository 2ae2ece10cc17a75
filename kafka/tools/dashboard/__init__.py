"""kafka-dashboard: the broker's metrics as graphs in a browser, with nothing from outside this machine.

What a JVM Kafka shop runs beside its brokers: Prometheus scraping each broker's JMX exporter
(here the broker's own /metrics), a consumer-lag exporter (kafka_exporter, Burrow), and dashboards
over both. `panels.py` is the one list of panels and queries; `grafana.py` writes it as the Grafana
dashboard (docs/dashboards/kafka-teaching.json) and `dashboard_server.py` serves it as our own pages.
"""
