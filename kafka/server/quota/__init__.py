"""Client quotas (Kafka's ClientQuotaManager, ClientRequestQuotaManager and QuotaFactory): byte rates
and request time per user and client id, and the throttle times that hold a client to them."""
