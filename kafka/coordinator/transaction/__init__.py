"""Producer ids for idempotent producers: the TransactionCoordinator's door and its RPCProducerIdManager.

Mirrors the part of Kafka's ``kafka.coordinator.transaction`` package that idempotence needs (KIP-98,
KIP-730): InitProducerId answered from blocks of ids the active controller hands this broker.
Transactions themselves (transactional ids, the ``__transaction_state`` log, markers) are not here.
The package reaches the controller only through the send function the server injects: it imports
no server, network or client code.
"""
