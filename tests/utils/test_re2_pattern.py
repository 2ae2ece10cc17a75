"""compile_re2: RE2, as Kafka's RE2/J: what it compiles, what it refuses, and time linear in the name."""

from __future__ import annotations

import re

import pytest

from kafka.utils.re2_pattern import compile_re2


@pytest.mark.parametrize("pattern", ["tx-.*", "[a-z]+", "(?i)abc", "(?P<name>a)b", r"a\d+", "a{2,3}", "a+?",
                                     "[(?=]x", r"\(?=", "[]a]+", "[^]a]"])
def test_what_both_compile(pattern):
    assert compile_re2(pattern).pattern == pattern


@pytest.mark.parametrize("pattern", ["(?=a)", "a(?!b)", "(?<=a)b", "(?<!a)b", r"(a)\1", "a++", "a*+", "a?+",
                                     "a{2}+", "(?>a)", "(?P<x>a)(?P=x)", "(", "[z-a]", r"[\1]"])
def test_what_re2_refuses(pattern):
    with pytest.raises(re.error):
        compile_re2(pattern)


def test_a_pattern_that_would_backtrack_for_years_in_python_re_answers_at_once():
    """(a+)+b against forty thousand a's: Python's re tries every split; RE2 reads the name once."""
    assert compile_re2("(a+)+b").fullmatch("a" * 40_000 + "c") is None
    assert compile_re2("(a+)+b").fullmatch("a" * 40_000 + "b") is not None
