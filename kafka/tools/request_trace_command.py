"""kafka-request-trace: print recent requests' journeys through a broker, as timelines.

No Kafka tool does this; it reads the broker's /requests page (kafka/server/request_trace.py),
which lists each traced request's hand-offs (network thread, request queue, I/O thread, purgatory,
response queue, socket) with the thread that made each, so seed 002's diagram shows real numbers.

    kafka-request-trace --metrics-url http://127.0.0.1:9404 --api Produce --limit 5
    kafka-request-trace --api FetchConsumer --min-ms 100      # fetches that long-polled
    kafka-request-trace --client-id lab02 --correlation-id 3  # the request you just sent

The broker must run with request.trace.enable=true and a metrics.listener.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request
from urllib.parse import urlencode


def fetch_trace(metrics_url: str, api: str | None, limit: int, min_ms: float, timeout: float = 10.0,
                client_id: str | None = None, correlation_id: int | None = None) -> str:
    query = {"limit": str(limit), "min_ms": str(min_ms)}
    if api:
        query["api"] = api
    if client_id is not None:
        query["client_id"] = client_id
    if correlation_id is not None:
        query["correlation_id"] = str(correlation_id)
    url = f"{metrics_url.rstrip('/')}/requests?{urlencode(query)}"
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-request-trace",
                                     description="Show recent requests' journeys through a broker.")
    parser.add_argument("--metrics-url", default="http://127.0.0.1:9404",
                        help="the broker's metrics.listener (default http://127.0.0.1:9404)")
    parser.add_argument("--api", help="only this request type: Produce, FetchConsumer, Metadata, ...")
    parser.add_argument("--limit", type=int, default=20, help="the newest N requests (default 20)")
    parser.add_argument("--min-ms", type=float, default=0.0,
                        help="only requests that took at least this long")
    parser.add_argument("--client-id", help="only requests whose header carries this client id "
                                            "(kcat: rdkafka, or -X client.id=...; the perf tools: "
                                            "producer-1, ...)")
    parser.add_argument("--correlation-id", type=int,
                        help="only requests with this correlation id (one per connection: add --client-id)")
    args = parser.parse_args(argv)
    try:
        print(fetch_trace(args.metrics_url, args.api, args.limit, args.min_ms,
                          client_id=args.client_id, correlation_id=args.correlation_id), end="")
    except (urllib.error.URLError, OSError) as e:
        print(f"kafka-request-trace: cannot read {args.metrics_url}/requests: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
