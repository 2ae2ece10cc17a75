"""The Spark demo: page views in, views per page per 10-second window out (``make demo``).

``page_view_generator`` produces the events, ``page_view_counts`` is the Structured Streaming job,
``__main__`` (``python -m kafka.spark.demo``) runs a broker, both, and prints the windows.
"""
