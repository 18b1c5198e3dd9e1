"""Where a regular expression can begin a match, so a scanner tries only where it can.

A pattern made of many alternatives (the period rules) tries every one of them at every
position of the text, and nearly all of that work fails at the first character. ``start_guard``
reads the pattern's parse tree and returns a zero-width guard that admits only the positions
where some alternative can begin: a character one of them can start with, and — for
alternatives that open with a "no ASCII letter or digit before" lookbehind — only at such an
edge. Every position it rejects is one where every alternative would fail, so it changes no
match; wherever the tree holds something it does not read, it admits every position instead.
``compile_guarded`` puts the guard in front of one pattern; ``RuleScanner`` also picks, at each
admitted position, only the alternatives whose own guard admits it.
"""

from __future__ import annotations

import importlib
import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragspine.profile.matching import ASCII_WORD_CHARS

# The standard library's own parser (what ``re.compile`` uses); not a public module, so it is
# read defensively: anything unexpected, its absence included, widens the guard instead of
# narrowing it.
try:
    _parser: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - present on every Python this package supports
    _parser = None

_EDGE_CHARS = ASCII_WORD_CHARS
_EDGE = r"(?<![A-Za-z0-9])"


class _Unknown(Exception):
    """The tree holds a construct whose first characters are not read here."""


@dataclass
class _Starts:
    anywhere: set[str] = field(default_factory=set)  # class fragments, e.g. "a", "0-9", "\\d"
    at_edge: set[str] = field(default_factory=set)  # only after no ASCII letter or digit

    def add(self, other: _Starts) -> None:
        self.anywhere |= other.anywhere
        self.at_edge |= other.at_edge


def start_guard(pattern: str, flags: int = 0) -> str:
    """A lookahead admitting exactly the positions where ``pattern`` may begin a match
    (a superset of them); ``""`` when every position may (or the pattern can match empty)."""
    return _starts_pattern(pattern, flags, consume=False)


def start_chars(pattern: str, flags: int = 0) -> str:
    """``start_guard`` as a pattern that matches the first character instead of looking ahead
    at it: the same positions, found about twice as fast by ``search`` (the regex engine scans
    for a character class, but tries a lookahead at every position)."""
    return _starts_pattern(pattern, flags, consume=True)


def _starts_pattern(pattern: str, flags: int, *, consume: bool) -> str:
    if _parser is None:
        return ""
    try:
        starts, nullable = _sequence(_parser.parse(pattern, flags), guarded=False)
    except (_Unknown, TypeError, ValueError):
        return ""
    if nullable:
        return ""
    char = "[{}]" if consume else "(?=[{}])"
    options = []
    if starts.anywhere:
        options.append(char.format("".join(sorted(starts.anywhere))))
    if starts.at_edge - starts.anywhere:
        options.append(_EDGE + char.format("".join(sorted(starts.at_edge - starts.anywhere))))
    return f"(?:{'|'.join(options)})" if options else ""


def compile_guarded(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` compiled behind its ``start_guard``: the same matches, found sooner."""
    return re.compile(f"{start_guard(pattern, flags)}(?:{pattern})", flags)


class RuleScanner:
    """Finds what one alternation of ``rules`` finds, trying at each position only the rules
    that can begin there.

    ``finditer`` yields the same matches as ``re.compile("|".join(rules), flags).finditer``:
    left to right, without overlaps, the first rule (in list order) that matches at the
    leftmost position winning, groups and ``lastgroup`` included. A guard over all the rules
    finds the candidate positions; there, the character and whether an ASCII letter or digit
    precedes it select the rules whose own guard admits that position — and a rule whose guard
    rejects it cannot match there, so leaving it out changes nothing. Each such selection is
    compiled once, on first sight.
    """

    def __init__(self, rules: Iterable[str], flags: int = 0) -> None:
        self._rules = list(rules)
        self._flags = flags
        self._everything = re.compile("|".join(self._rules), flags)
        starts = start_chars(self._everything.pattern, flags)
        self._candidates = re.compile(starts, flags) if starts else None
        self._guards = [_compiled_guard(rule, flags) for rule in self._rules]
        self._by_start: dict[tuple[str, bool], re.Pattern[str] | None] = {}
        self._by_rules: dict[tuple[int, ...], re.Pattern[str] | None] = {}

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the rules in ``text``, as one alternation of them would find them."""
        if self._candidates is None:  # a rule the guard cannot read: try all of them everywhere
            yield from self._everything.finditer(text)
            return
        search = self._candidates.search
        position = 0
        while (candidate := search(text, position)) is not None:
            start = candidate.start()
            key = (text[start], start == 0 or text[start - 1] not in _EDGE_CHARS)
            rules = self._by_start[key] if key in self._by_start else self._select(key)
            match = rules.match(text, start) if rules is not None else None
            if match is None:
                position = start + 1
            else:
                yield match
                position = match.end()  # never empty: a rule that can match empty has no guard

    def rules_at(self, text: str, position: int) -> tuple[int, ...]:
        """The indices of the rules ``finditer`` tries at ``position`` of ``text``."""
        if self._candidates is None:
            return tuple(range(len(self._rules)))
        if self._candidates.match(text, position) is None:
            return ()
        return self._indices(text[position], _at_edge(text, position))

    def _indices(self, char: str, edge: bool) -> tuple[int, ...]:
        # A guard looks at the character and at whether an ASCII letter or digit precedes it.
        probe, at = (char, 0) if edge else ("a" + char, 1)
        return tuple(
            i for i, guard in enumerate(self._guards) if guard is None or guard.match(probe, at)
        )

    def _select(self, key: tuple[str, bool]) -> re.Pattern[str] | None:
        chosen = self._indices(*key)
        if chosen not in self._by_rules:
            alternation = "|".join(self._rules[i] for i in chosen)
            self._by_rules[chosen] = re.compile(alternation, self._flags) if chosen else None
        self._by_start[key] = self._by_rules[chosen]
        return self._by_rules[chosen]


def _at_edge(text: str, position: int) -> bool:
    return position == 0 or text[position - 1] not in _EDGE_CHARS


def _compiled_guard(rule: str, flags: int) -> re.Pattern[str] | None:
    guard = start_guard(rule, flags)
    return re.compile(guard, flags) if guard else None


def _sequence(items: Iterable[Any], *, guarded: bool) -> tuple[_Starts, bool]:
    """First characters of a sequence of nodes, and whether it can match the empty string."""
    starts = _Starts()
    for op, arg in items:
        name = str(op)
        if name in ("AT", "ASSERT"):
            continue  # zero width; a lookahead only narrows what follows
        if name == "ASSERT_NOT":
            direction, body = arg
            guarded = guarded or (direction < 0 and _covers_edge(body))
            continue
        first, nullable = _node(name, arg, guarded=guarded)
        starts.add(first)
        if not nullable:
            return starts, False
    return starts, True


def _node(name: str, arg: Any, *, guarded: bool) -> tuple[_Starts, bool]:
    if name == "LITERAL":
        return _single(re.escape(chr(arg)), guarded), False
    if name == "IN":
        return _single("".join(_class_fragment(item) for item in arg), guarded), False
    if name == "SUBPATTERN":
        _, add_flags, del_flags, body = arg
        if add_flags or del_flags:
            raise _Unknown(name)
        return _sequence(body, guarded=guarded)
    if name == "ATOMIC_GROUP":
        return _sequence(arg, guarded=guarded)
    if name == "BRANCH":
        starts, nullable = _Starts(), False
        for alternative in arg[1]:
            first, empty = _sequence(alternative, guarded=guarded)
            starts.add(first)
            nullable = nullable or empty
        return starts, nullable
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, body = arg
        first, empty = _sequence(body, guarded=guarded)
        return first, empty or low == 0
    raise _Unknown(name)


def _single(fragment: str, guarded: bool) -> _Starts:
    return _Starts(at_edge={fragment}) if guarded else _Starts(anywhere={fragment})


def _class_fragment(item: tuple[Any, Any]) -> str:
    op, arg = item
    name = str(op)
    if name == "LITERAL":
        return re.escape(chr(arg))
    if name == "RANGE":
        return f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}"
    if name == "CATEGORY" and str(arg) == "CATEGORY_DIGIT":
        return r"\d"
    if name == "CATEGORY" and str(arg) == "CATEGORY_SPACE":
        return r"\s"
    raise _Unknown(name)


def _covers_edge(body: Any) -> bool:
    """True when a lookbehind's body is one character class holding every ASCII letter and
    digit, so "not preceded by it" implies "not preceded by an ASCII letter or digit"."""
    items = list(body)
    if len(items) != 1 or str(items[0][0]) != "IN":
        return False
    covered: set[str] = set()
    for op, arg in items[0][1]:
        name = str(op)
        if name == "NEGATE":
            return False
        if name == "LITERAL":
            covered.add(chr(arg))
        elif name == "RANGE":
            covered.update(chr(code) for code in range(arg[0], arg[1] + 1) if code < 128)
        elif name == "CATEGORY" and str(arg) == "CATEGORY_DIGIT":
            covered.update(string.digits)
    return covered >= _EDGE_CHARS
