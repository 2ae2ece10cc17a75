"""SslPrincipalMapper: Kafka's ssl.principal.mapping.rules grammar on RFC 2253 subjects."""

from __future__ import annotations

import pytest

from kafka.security.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper, rfc2253_name

DN = "CN=alice,OU=eng,O=Example,C=US"


@pytest.mark.parametrize("rules, expected", [
    ("DEFAULT", DN),
    ("", DN),
    ("RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/", "alice@eng"),
    ("RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/U", "ALICE@ENG"),
    ("RULE:^CN=([^,]*),.*$/$1/L,DEFAULT", "alice"),
    ("RULE:^CN=bob,.*$/bob/, RULE:^CN=(.*?),.*$/user-$1/", "user-alice"),  # the first match wins
    ("RULE:^CN=bob,.*$/bob/,DEFAULT", DN),
    ("RULE:^CN=(.*?),OU=eng,.*$/$1\\/eng/", "alice/eng"),  # an escaped slash in the replacement
    ("RULE:^CN=(.*?),.*$/$1/L\nDEFAULT", "alice"),  # rules may be separated by newlines
])
def test_rules_map_the_subject_as_kafka_does(rules, expected):
    assert SslPrincipalMapper.from_rules(rules).get_name(DN) == expected


def test_a_pattern_must_match_the_whole_name():
    # not ^...$, yet whole-name (Java matches())
    mapper = SslPrincipalMapper.from_rules("RULE:CN=alice/matched/")
    with pytest.raises(NoMatchingRule, match="no rule"):
        mapper.get_name(DN)


@pytest.mark.parametrize("rules", ["RULE:^CN=(.*$/x/", "RULE:nope", "SOMETHING", "RULE:a/b/X"])
def test_bad_rules_are_refused(rules):
    with pytest.raises(ValueError):
        SslPrincipalMapper.from_rules(rules)


def test_rfc2253_name_reverses_and_escapes():
    subject = ((("countryName", "US"),), (("organizationName", "Example, Inc."),),
               (("organizationalUnitName", "eng"), ("userId", "a1")), (("commonName", "alice+bob"),))
    assert rfc2253_name(subject) == "CN=alice\\+bob,OU=eng+UID=a1,O=Example\\, Inc.,C=US"
