"""The regular expressions Kafka takes from clients (com.google.re2j.Pattern, RE2's syntax for Java).

Kafka compiles a client's pattern with RE2/J, which matches in time linear in the name: no pattern a
client sends, however hostile, can keep a request thread or a coordinator busy. So RE2 has no lookahead
or lookbehind, backreferences, atomic groups or possessive quantifiers, which need backtracking.
Python's ``re`` backtracks: ``(a+)+b`` against a long topic name would keep it busy for years. So a
client's pattern is compiled here by RE2 itself (Google's C++ library, the ``google-re2`` package),
which refuses what RE2/J refuses. Kafka matches with ``matches()``, the whole name: ``fullmatch`` here.
"""

from __future__ import annotations

import re

import re2

_QUIET = re2.Options()
_QUIET.log_errors = False  # a client's bad pattern is its error, not a line on the broker's stderr


def compile_re2(pattern: str):
    """The pattern compiled by RE2; ``re.error`` with RE2's message for one it refuses."""
    try:
        return re2.compile(pattern, _QUIET)
    except re2.error as e:
        reason = e.args[0] if e.args else ""  # RE2's message, as bytes
        message = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
        raise re.error(message) from None
