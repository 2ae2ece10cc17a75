"""compile_re2: Python's re, refusing what RE2/J (Kafka's regular expressions) cannot compile."""

from __future__ import annotations

import re

import pytest

from kafka.utils.re2_pattern import compile_re2


@pytest.mark.parametrize("pattern", ["tx-.*", "[a-z]+", "(?i)abc", "(?P<name>a)b", r"a\d+", "a{2,3}", "a+?",
                                     "[(?=]x", r"\(?=", "[]a]+", "[^]a]", r"[\1]"])
def test_what_both_compile(pattern):
    assert compile_re2(pattern).pattern == pattern


@pytest.mark.parametrize("pattern", ["(?=a)", "a(?!b)", "(?<=a)b", "(?<!a)b", r"(a)\1", "a++", "a*+", "a?+",
                                     "a{2}+", "(?>a)", "(?P<x>a)(?P=x)", "(", "[z-a]"])
def test_what_re2_refuses(pattern):
    with pytest.raises(re.error):
        compile_re2(pattern)
