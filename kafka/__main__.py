"""`python -m kafka config/server.properties [--override k=v ...]` starts a broker, as
kafka-server-start does."""

import sys

from kafka.server.kafka_server_start import main

sys.exit(main())
