"""What Kafka's `metadata` module keeps beside the metadata image (org.apache.kafka.metadata): the parts of a
node that act on the image rather than describe it. Here, the authoriser (`authorizer/`), which answers
"may this principal do this?" from the ACLs the image holds, on brokers and controllers alike."""
