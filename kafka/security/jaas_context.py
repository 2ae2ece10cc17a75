"""JaasContext: a JAAS configuration in Kafka's `sasl.jaas.config` syntax (Kafka's
common.security.JaasContext and JaasConfig).

    org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="s3cret"
        user_admin="s3cret" user_alice="alice-secret";

One or more login modules, each `<class> <flag> <key>=<value>... ;`; a value is quoted ("..." with
\\" and \\\\ escapes) or a bare word. The broker reads the options: its own credentials
(username/password, for the connections it makes) and, for PLAIN, the users it accepts (user_<name>).
Where it is read from: `listener.name.<listener>.<mechanism>.sasl.jaas.config`, else `sasl.jaas.config`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_FLAGS = ("required", "requisite", "sufficient", "optional")
_TOKEN = re.compile(r'\s*(?:(?P<quoted>"(?:\\.|[^"\\])*")|(?P<eq>=)|(?P<semi>;)|(?P<word>[^\s=;"]+))', re.S)


class JaasConfigError(ValueError):
    """A sasl.jaas.config value that does not parse; the message says where."""


@dataclass(frozen=True)
class AppConfigurationEntry:
    login_module: str
    control_flag: str
    options: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # options hold passwords
        return f"AppConfigurationEntry({self.login_module} {self.control_flag} keys={sorted(self.options)})"


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise JaasConfigError(f"unexpected character at position {pos}")
        pos = m.end()
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "quoted":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out.append((kind, value))
    return out


def parse_jaas_config(text: str) -> list[AppConfigurationEntry]:
    tokens, entries, i = _tokens(text), [], 0
    while i < len(tokens):
        if tokens[i][0] != "word" or i + 1 >= len(tokens) or tokens[i + 1][0] != "word":
            raise JaasConfigError("expected '<LoginModule class> <control flag>' at the start of an entry")
        module, flag = tokens[i][1], tokens[i + 1][1].lower()
        if flag not in _FLAGS:
            raise JaasConfigError(f"invalid control flag {tokens[i + 1][1]!r} (expected one of "
                                  f"{', '.join(_FLAGS)})")
        i += 2
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i][0] != "semi":
            if i + 2 >= len(tokens) or tokens[i][0] != "word" or tokens[i + 1][0] != "eq" \
                    or tokens[i + 2][0] not in ("word", "quoted"):
                raise JaasConfigError(f"expected key=value in the options of {module}")
            options[tokens[i][1]] = tokens[i + 2][1]
            i += 3
        if i >= len(tokens):
            raise JaasConfigError(f"the entry of {module} does not end with ';'")
        i += 1
        entries.append(AppConfigurationEntry(module, flag, options))
    if not entries:
        raise JaasConfigError("no login module")
    return entries


@dataclass(frozen=True, repr=False)
class JaasContext:
    """The login modules of one listener and mechanism, and the key they came from."""

    config_key: str
    entries: tuple[AppConfigurationEntry, ...]
    text: str = ""  # as configured: what the broker hands its own clients as sasl.jaas.config

    @classmethod
    def load(cls, config_key: str, text: str) -> JaasContext:
        try:
            return cls(config_key, tuple(parse_jaas_config(text)), text)
        except JaasConfigError as e:
            raise JaasConfigError(f"configuration key '{config_key}': {e}") from None

    def __repr__(self) -> str:  # the text holds passwords
        return f"JaasContext({self.config_key}, {list(self.entries)})"

    @property
    def options(self) -> dict[str, str]:
        return dict(self.entries[0].options)

    def credentials(self) -> tuple[str, str] | None:
        """(username, password) for the connections this node makes, if the module names them."""
        options = self.options
        if "username" in options and "password" in options:
            return options["username"], options["password"]
        return None
