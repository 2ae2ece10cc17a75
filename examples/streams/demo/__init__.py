"""`make demo-streams`: the Kafka Streams applications of examples/streams/ on `make cluster`'s three nodes.

Not a Kafka class: the driver a student would otherwise be, in four terminals. It writes known input
(``input_data``), runs two instances of each application (``streams_instance``), kills one instance of each
with ``kill -9`` and starts it again, kills a broker with ``kill -9`` and starts it again
(``local_nodes`` for `make cluster`), then reads the output topics with ``isolation.level=read_committed``
and compares them with what the input implies (``output_check``). ``scenario`` is the order of those steps;
tests/jvm/test_streams_demo.py runs the same steps on a cluster of its own.
"""
