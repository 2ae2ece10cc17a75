"""SslPrincipalMapper: a TLS client certificate's subject to a principal name (Kafka's
org.apache.kafka.common.security.ssl.SslPrincipalMapper, the `ssl.principal.mapping.rules` key).

The rules are tried in order on the subject's distinguished name in RFC 2253 form
(`CN=alice,OU=eng,O=Example,C=US`); the first that matches gives the name:

    RULE:^CN=(.*?),OU=(.*?)$/$1@$2/L     the whole DN must match; $1.. are the groups;
                                         L lower-cases, U upper-cases
    DEFAULT                              the DN itself

A DN no rule matches is an error: the connection is refused rather than given a name nobody chose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# One rule and the separator after it, in Kafka's grammar: DEFAULT, or RULE:pattern/replacement/[LU]
# where `/` and `\` inside pattern or replacement are escaped with a backslash.
_RULE = re.compile(r"\s*(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?))\s*(?:,|\n|$)")


class NoMatchingRule(ValueError):
    """No rule of ssl.principal.mapping.rules applies to a certificate's subject."""


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern | None  # None: DEFAULT
    replacement: str = ""
    case: str = ""

    def apply(self, dn: str) -> str | None:
        if self.pattern is None:
            return dn
        if not self.pattern.fullmatch(dn):
            return None
        name = self.pattern.sub(self.replacement, dn)
        return name.lower() if self.case == "L" else name.upper() if self.case == "U" else name


def _python_replacement(java: str) -> str:
    """Java's `$1` back references become Python's `\\g<1>`; `\\/` is a literal slash."""
    text = java.replace("\\/", "/")
    return re.sub(r"\$(\d+)", r"\\g<\1>", text)


class SslPrincipalMapper:
    def __init__(self, rules: list[_Rule]) -> None:
        self.rules = rules

    @classmethod
    def from_rules(cls, text: str) -> SslPrincipalMapper:
        """Parse ssl.principal.mapping.rules; a ValueError saying which part is not a rule."""
        text = text.strip()
        if not text:
            return cls([_Rule(None)])
        rules, position = [], 0
        while position < len(text):
            match = _RULE.match(text, position)
            if match is None or match.end() == position:
                raise ValueError(f"invalid rule at {text[position:]!r}: expected DEFAULT or "
                                 "RULE:pattern/replacement/[LU]")
            if match.group(1):
                rules.append(_Rule(None))
            else:
                try:
                    pattern = re.compile(match.group(2).replace("\\/", "/"))
                except re.error as e:
                    raise ValueError(f"invalid pattern {match.group(2)!r}: {e}") from None
                rules.append(_Rule(pattern, _python_replacement(match.group(3)), match.group(4)))
            position = match.end()
        return cls(rules)

    def get_name(self, distinguished_name: str) -> str:
        for rule in self.rules:
            name = rule.apply(distinguished_name)
            if name is not None:
                return name
        raise NoMatchingRule(f"no rule of ssl.principal.mapping.rules applies to {distinguished_name}")


# RFC 2253's short names for the attributes Python's ssl module reports by their long names.
_SHORT_NAMES = {"commonName": "CN", "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
                "organizationName": "O", "organizationalUnitName": "OU", "streetAddress": "STREET",
                "domainComponent": "DC", "userId": "UID"}


def _escape(value: str) -> str:
    escaped = re.sub(r'([,+"\\<>;=])', r"\\\1", value)
    if escaped.startswith((" ", "#")):
        escaped = "\\" + escaped
    return escaped[:-1] + "\\ " if escaped.endswith(" ") else escaped


def rfc2253_name(subject: tuple) -> str:
    """The subject of `ssl.SSLSocket.getpeercert()` as Java's X500Principal.getName() writes it:
    the last relative name first, short attribute names, special characters escaped."""
    rdns = []
    for rdn in reversed(subject):
        rdns.append("+".join(f"{_SHORT_NAMES.get(attr, attr)}={_escape(value)}" for attr, value in rdn))
    return ",".join(rdns)
