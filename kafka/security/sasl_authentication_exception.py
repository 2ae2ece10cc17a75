"""SaslAuthenticationException: a client failed to authenticate (Kafka's
common.errors.SaslAuthenticationException).

Raised by a SaslServer for a wrong password, an unknown user, a bad token or a broken exchange; the
SaslServerAuthenticator answers it with SASL_AUTHENTICATION_FAILED and closes the connection. The
message goes to the client and the log: it never holds a password or a token.
"""


class SaslAuthenticationException(Exception):
    pass
