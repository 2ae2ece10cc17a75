"""The authoriser (Kafka's org.apache.kafka.metadata.authorizer): StandardAuthorizer, whose ACLs are the
image's (the AclPublisher hands them over), and StandardAuthorizerData, the decision itself."""
