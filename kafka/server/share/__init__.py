"""Share groups on the broker (KIP-932): share partitions, share fetch and acknowledge, and the persister
through which their state reaches the share coordinator."""
