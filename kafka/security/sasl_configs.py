"""SaslConfigs: the broker's SASL keys, their defaults and checks (Kafka's common.config.SaslConfigs and
the SASL part of internals.BrokerSecurityConfigs).

    sasl.enabled.mechanisms                   GSSAPI (Kafka's default; GSSAPI is not built here, so a
                                              SASL listener must name PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)
    sasl.mechanism.inter.broker.protocol      GSSAPI  the mechanism brokers log in to each other with
    sasl.mechanism.controller.protocol        GSSAPI  ... and to the controllers
    sasl.jaas.config                          the JAAS login modules; per listener and mechanism as
                                              listener.name.<l>.<mechanism>.sasl.jaas.config
    connection.failed.authentication.delay.ms 100     how long a failed login waits for its answer
    sasl.server.max.receive.size              524288  the largest frame before authentication

Every check raises SaslConfigError naming the key to set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kafka.security.jaas_context import JaasConfigError, JaasContext
from kafka.security.plain_sasl_server import PLAIN_MECHANISM
from kafka.security.scram_mechanism import MECHANISM_NAMES
from kafka.security.security_protocol import SecurityProtocol

SASL_ENABLED_MECHANISMS = "sasl.enabled.mechanisms"
SASL_MECHANISM_INTER_BROKER_PROTOCOL = "sasl.mechanism.inter.broker.protocol"
SASL_MECHANISM_CONTROLLER_PROTOCOL = "sasl.mechanism.controller.protocol"
SASL_JAAS_CONFIG = "sasl.jaas.config"
SASL_DEFAULTS: dict[str, str | None] = {
    SASL_ENABLED_MECHANISMS: "GSSAPI",
    SASL_MECHANISM_INTER_BROKER_PROTOCOL: "GSSAPI",
    SASL_MECHANISM_CONTROLLER_PROTOCOL: "GSSAPI",
    SASL_JAAS_CONFIG: None,
    "connection.failed.authentication.delay.ms": "100",
    "sasl.server.max.receive.size": "524288",
}
SUPPORTED_MECHANISMS = (PLAIN_MECHANISM, *MECHANISM_NAMES)
LISTENER_KEYS = (SASL_ENABLED_MECHANISMS,)  # may be set as listener.name.<l>.<key>


class SaslConfigError(ValueError):
    """A missing or bad SASL key; the message names it."""


@dataclass(frozen=True)
class SaslListenerConfig:
    """One SASL listener's keys: its enabled mechanisms and each one's JaasContext."""

    enabled_mechanisms: tuple[str, ...]
    jaas_contexts: Mapping[str, JaasContext] = field(default_factory=dict)
    max_receive_size: int = 524288


def is_listener_sasl_key(key: str) -> bool:
    """`sasl.enabled.mechanisms` or `<mechanism>.sasl.jaas.config` after listener.name.<l>."""
    return key in LISTENER_KEYS or key.endswith("." + SASL_JAAS_CONFIG)


def jaas_key(listener: str, mechanism: str) -> str:
    return f"listener.name.{listener.lower()}.{mechanism.lower()}.{SASL_JAAS_CONFIG}"


def enabled_mechanisms(get: Callable[[str], str | None], listener: str) -> tuple[str, list[str]]:
    """(the key it came from, the mechanisms) of one listener, checked."""
    key = f"listener.name.{listener.lower()}.{SASL_ENABLED_MECHANISMS}"
    raw = get(key)
    if raw is None:
        key, raw = SASL_ENABLED_MECHANISMS, get(SASL_ENABLED_MECHANISMS)
    mechanisms = [m.strip() for m in (raw or "").split(",") if m.strip()]
    if not mechanisms:
        raise SaslConfigError(f"SASL listener {listener} has no mechanism: set configuration key '{key}' "
                              f"(one or more of {', '.join(SUPPORTED_MECHANISMS)})")
    unbuilt = [m for m in mechanisms if m not in SUPPORTED_MECHANISMS]
    if unbuilt:
        raise SaslConfigError(f"configuration key '{key}' names {', '.join(unbuilt)}, which this broker does "
                              "not implement (GSSAPI and OAUTHBEARER are not built); use "
                              f"{', '.join(SUPPORTED_MECHANISMS)}")
    return key, mechanisms


def jaas_context(get: Callable[[str], str | None], listener: str, mechanism: str) -> JaasContext:
    """listener.name.<l>.<mechanism>.sasl.jaas.config, else sasl.jaas.config."""
    key = jaas_key(listener, mechanism)
    text = get(key)
    if text is None:
        text = get(SASL_JAAS_CONFIG)
        if text is not None:
            key = SASL_JAAS_CONFIG
    if text is None:
        raise SaslConfigError(f"SASL listener {listener} enables {mechanism} but has no JAAS configuration: "
                              f"set configuration key '{jaas_key(listener, mechanism)}' "
                              f"(or '{SASL_JAAS_CONFIG}')")
    try:
        return JaasContext.load(key, text)
    except JaasConfigError as e:
        raise SaslConfigError(str(e)) from None


def listener_jaas_contexts(get: Callable[[str], str | None], listener: str,
                           mechanisms: list[str]) -> Mapping[str, JaasContext]:
    return {m: jaas_context(get, listener, m) for m in mechanisms}


def client_mechanism(get: Callable[[str], str | None], listener: str, key: str) -> tuple[str, JaasContext]:
    """The mechanism and JAAS context this node logs in to `listener` with (`key`: the inter-broker or
    controller mechanism key); its JAAS options must name a username and password."""
    mechanism = (get(key) or "").strip()
    _, enabled = enabled_mechanisms(get, listener)
    if mechanism not in enabled:
        raise SaslConfigError(f"configuration key '{key}' is {mechanism or 'empty'}, which listener "
                              f"{listener} does "
                              f"not enable (it enables {', '.join(enabled)})")
    context = jaas_context(get, listener, mechanism)
    if context.credentials() is None:
        raise SaslConfigError(f"configuration key '{context.config_key}' needs username=\"...\" and "
                              f"password=\"...\": this node logs in to listener {listener} with them")
    return mechanism, context


def listener_config(get: Callable[[str], str | None], listener: str) -> SaslListenerConfig:
    _, mechanisms = enabled_mechanisms(get, listener)
    return SaslListenerConfig(tuple(mechanisms), listener_jaas_contexts(get, listener, mechanisms),
                              int(get("sasl.server.max.receive.size") or 524288))


def client_configs(get: Callable[[str], str | None], listener: str, controller: bool) -> dict[str, str]:
    """The sasl.* keys of the broker's own client for `listener` (a controller listener logs in with
    sasl.mechanism.controller.protocol, any other with sasl.mechanism.inter.broker.protocol)."""
    key = SASL_MECHANISM_CONTROLLER_PROTOCOL if controller else SASL_MECHANISM_INTER_BROKER_PROTOCOL
    mechanism, context = client_mechanism(get, listener, key)
    if controller and mechanism in MECHANISM_NAMES:
        raise SaslConfigError(f"configuration key '{key}' is {mechanism}: SCRAM credentials live in the "
                              "metadata log that the controller listener itself carries, so nodes could not "
                              "log in to read them; use PLAIN on the controller listener (SCRAM "
                              "works on the others)")
    return {"sasl.mechanism": mechanism, "sasl.jaas.config": context.text}


def validate_listener(get: Callable[[str], str | None], listener: str, protocol: SecurityProtocol,
                      controller: bool, inter_broker: bool) -> None:
    """Start-up checks of a SASL listener, and of the login this node makes to it (as a controller's
    peer or client, or as the inter-broker listener)."""
    if not protocol.uses_sasl:
        return
    listener_config(get, listener)
    if controller or inter_broker:
        client_configs(get, listener, controller)
