"""Security on the wire: who a connection is (principals), and how it proves it (TLS, SASL). What a principal
may do, once known, is the authoriser's question (kafka/metadata/authorizer/, beside the metadata image)."""
