"""The regular expressions Kafka takes from clients (com.google.re2j.Pattern, RE2's syntax for Java).

Kafka compiles a client's pattern with RE2/J, which matches in time linear in the input and so leaves
out what needs backtracking: lookahead and lookbehind, backreferences, atomic groups and possessive
quantifiers. Python's ``re`` has all of them. ``compile_re2`` refuses those as RE2/J does (a client
gets INVALID_REGULAR_EXPRESSION for them on both brokers) and compiles the rest with ``re``, whose
syntax is RE2's for everything else a pattern of names needs. Kafka matches with ``matches()``, the
whole name: ``fullmatch`` here.
"""

from __future__ import annotations

import re

_GROUP_OPENERS_NOT_IN_RE2 = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?P=")


def compile_re2(pattern: str) -> re.Pattern:
    """``re.compile(pattern)``, raising ``re.error`` also for what RE2/J would refuse to compile."""
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 < len(pattern) and pattern[i + 1].isdigit() and pattern[i + 1] != "0" and not in_class:
                raise re.error("backreferences are not supported by RE2", pattern, i)
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class, i = True, i + 1
            i += pattern.startswith("^", i)
            i += pattern.startswith("]", i)  # a ] first in a class is a literal one
            continue
        elif c == "(" and pattern.startswith(_GROUP_OPENERS_NOT_IN_RE2, i):
            raise re.error("lookaround and atomic groups are not supported by RE2", pattern, i)
        elif c in "*+?}" and pattern.startswith("+", i + 1):
            raise re.error("possessive quantifiers are not supported by RE2", pattern, i)
        i += 1
    return re.compile(pattern)
