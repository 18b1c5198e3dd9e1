"""The FAQ file: vetted answers as ``[[faq]]`` tables in TOML, read and checked item by item.

Every problem names the file, the line and the item, so ``ragspine faq check`` can print
``FILE:LINE: message`` lines an editor jumps to. ``tomllib`` reports no positions for values,
so the lines come from a scan of the text: each ``[[faq]]`` header opens an item, and each
``key =`` line below it is where that key is written.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from ragspine.errors import ProfileError
from ragspine.profile.sensitivity import Sensitivity
from ragspine.service.faq.matching import faq_key

_REQUIRED_TEXT = (
    "id",
    "question",
    "answer",
    "source_doc",
    "source_locator",
    "owner",
)
KNOWN_KEYS = (
    *_REQUIRED_TEXT,
    "aliases",
    "version",
    "enabled",
    "valid_from",
    "valid_until",
    "sensitivity",
)
# An id travels in responses and traces (``cache.faq_id``): a short code, no free text.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


class FaqFileError(ProfileError):
    """The FAQ file named by the profile is missing or has problems (each as FILE:LINE)."""


@dataclass(frozen=True)
class FaqItem:
    """One vetted answer: the texts it answers, its source and when and to whom it applies."""

    id: str
    question: str
    answer: str
    source_doc: str
    source_locator: str
    version: str
    sensitivity: Sensitivity
    owner: str
    aliases: tuple[str, ...] = ()
    enabled: bool = True
    valid_from: date | None = None
    valid_until: date | None = None
    line: int = 0  # the item's ``[[faq]]`` header line in its file

    @property
    def texts(self) -> tuple[str, ...]:
        """The question and its aliases: every wording this item answers."""
        return (self.question, *self.aliases)

    def valid_on(self, day: date) -> bool:
        """True when ``day`` lies inside the item's validity window (both ends included)."""
        if self.valid_from is not None and day < self.valid_from:
            return False
        return self.valid_until is None or day <= self.valid_until


@dataclass(frozen=True)
class FaqProblem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class FaqFile:
    """A FAQ file as read: the items that passed every check, and the problems found."""

    path: Path
    items: tuple[FaqItem, ...]
    problems: tuple[FaqProblem, ...]


def load_faq_items(path: Path) -> tuple[FaqItem, ...]:
    """The items of the FAQ file at ``path``; a ``FaqFileError`` lists its problems."""
    read = read_faq_file(path)
    if read.problems:
        shown = "; ".join(str(p) for p in read.problems[:3])
        more = len(read.problems) - 3
        tail = f"; and {more} more (`ragspine faq check` lists them)" if more > 0 else ""
        raise FaqFileError(f"{shown}{tail}")
    return read.items


def read_faq_file(path: Path) -> FaqFile:
    """Read and check ``path``; a file that cannot be read at all is a ``FaqFileError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FaqFileError(f"{path}: FAQ file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise FaqFileError(f"{path}: cannot read the FAQ file: {err}") from None
    return parse_faq_text(text, path)


def parse_faq_text(text: str, path: Path) -> FaqFile:
    """Check the FAQ file ``text`` (read from ``path``, which problems name)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"at line (\d+)", str(err))
        line = int(found[1]) if found else 1
        return FaqFile(path, (), (FaqProblem(path, line, f"not valid TOML: {err}"),))
    layout = _Layout.scan(text)
    problems = [
        FaqProblem(
            path,
            layout.top_keys.get(key, 1),
            f"unknown top-level key {key!r}; the file holds only [[faq]] tables",
        )
        for key in raw
        if key != "faq"
    ]
    entries = raw.get("faq", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        problems.append(
            FaqProblem(path, layout.top_keys.get("faq", 1), "'faq' must be [[faq]] tables")
        )
        return FaqFile(path, (), tuple(problems))
    items: list[FaqItem] = []
    for index, entry in enumerate(entries):
        check = _ItemCheck(path, index, entry, layout.item(index))
        item = check.build()
        problems += check.problems
        if item is not None:
            items.append(item)
    problems += _clashes(path, items)
    problems.sort(key=lambda p: p.line)
    return FaqFile(path, tuple(items), tuple(problems))


@dataclass
class _ItemLines:
    header: int
    keys: dict[str, int] = field(default_factory=dict)

    def of(self, key: str) -> int:
        return self.keys.get(key, self.header)


_HEADER = re.compile(r"\s*\[\[\s*(\"?)faq\1\s*\]\]")
_TABLE = re.compile(r"\s*\[")
_KEY = re.compile(r"\s*([\"']?)([A-Za-z0-9_\-]+)\1\s*=")


@dataclass
class _Layout:
    """Where each item and each of its keys is written (1-based lines)."""

    items: list[_ItemLines]
    top_keys: dict[str, int]

    @classmethod
    def scan(cls, text: str) -> _Layout:
        layout = cls([], {})
        keys: dict[str, int] | None = layout.top_keys
        in_string = False
        for number, line in enumerate(text.splitlines(), start=1):
            # A key-like line inside a multi-line string is answer text, not a key.
            was_in_string = in_string
            in_string ^= (line.count('"""') + line.count("'''")) % 2 == 1
            if was_in_string:
                continue
            if _HEADER.match(line):
                layout.items.append(_ItemLines(number))
                keys = layout.items[-1].keys
            elif _TABLE.match(line):
                name = line.strip().strip("[]").strip().split(".")[0].strip("\"'")
                layout.top_keys.setdefault(name, number)
                keys = None  # keys of another table: reported through that table's name
            elif keys is not None and (found := _KEY.match(line)):
                keys.setdefault(found[2], number)
        return layout

    def item(self, index: int) -> _ItemLines:
        if index < len(self.items):
            return self.items[index]
        # Items written inline (faq = [{...}]) have no header: point at the 'faq' key.
        return _ItemLines(self.top_keys.get("faq", 1))


class _ItemCheck:
    """Checks one ``[[faq]]`` table, collecting every problem rather than stopping at the first."""

    def __init__(
        self, path: Path, index: int, entry: Mapping[str, object], lines: _ItemLines
    ) -> None:
        self.path = path
        self.entry = entry
        self.lines = lines
        item_id = entry.get("id")
        named = isinstance(item_id, str) and item_id.strip()
        self.name = f"faq {item_id!r}" if named else f"faq #{index + 1}"
        self.problems: list[FaqProblem] = []

    def problem(self, key: str | None, message: str) -> None:
        line = self.lines.header if key is None else self.lines.of(key)
        self.problems.append(FaqProblem(self.path, line, f"{self.name}: {message}"))

    def build(self) -> FaqItem | None:
        for key in self.entry:
            if key not in KNOWN_KEYS:
                self.problem(key, f"unknown key {key!r}; known keys: {', '.join(KNOWN_KEYS)}")
        texts = {key: self._text(key) for key in _REQUIRED_TEXT}
        if texts["id"] and not _ID.fullmatch(texts["id"]):
            self.problem("id", "id must be letters, digits, '_', '.' or '-'")
        aliases = self._aliases()
        version = self._version()
        sensitivity = self._sensitivity()
        enabled = self._enabled()
        valid_from, valid_until = self._date("valid_from"), self._date("valid_until")
        if valid_from and valid_until and valid_from > valid_until:
            self.problem(
                "valid_from",
                f"valid_from {valid_from.isoformat()} is after valid_until "
                f"{valid_until.isoformat()}",
            )
        # Every check that returns None has recorded a problem.
        given = {key: value for key, value in texts.items() if value is not None}
        if self.problems or version is None or sensitivity is None or aliases is None:
            return None
        return FaqItem(
            id=given["id"],
            question=given["question"],
            answer=given["answer"],
            source_doc=given["source_doc"],
            source_locator=given["source_locator"],
            version=version,
            sensitivity=sensitivity,
            owner=given["owner"],
            aliases=aliases,
            enabled=enabled,
            valid_from=valid_from,
            valid_until=valid_until,
            line=self.lines.header,
        )

    def _text(self, key: str) -> str | None:
        value = self.entry.get(key)
        if value is None:
            self.problem(None, f"missing {key!r}")
        elif not isinstance(value, str):
            self.problem(key, f"{key!r} must be a string")
        elif not value.strip():
            self.problem(key, f"{key!r} is empty")
        elif key == "question" and not faq_key(value):
            self.problem(key, "the question is only punctuation and spaces")
        else:
            return value.strip()
        return None

    def _aliases(self) -> tuple[str, ...] | None:
        value = self.entry.get("aliases", [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            self.problem("aliases", "'aliases' must be a list of strings")
            return None
        if any(not faq_key(alias) for alias in value):
            self.problem("aliases", "an alias is empty or only punctuation and spaces")
            return None
        return tuple(alias.strip() for alias in value)

    def _version(self) -> str | None:
        value = self.entry.get("version")
        if value is None:
            self.problem(None, "missing 'version'")
        elif isinstance(value, bool) or not isinstance(value, str | int):
            self.problem("version", "'version' must be a string or an integer")
        elif not str(value).strip():
            self.problem("version", "'version' is empty")
        else:
            return str(value).strip()
        return None

    def _sensitivity(self) -> Sensitivity | None:
        value = self.entry.get("sensitivity")
        if value is None:
            self.problem(None, "missing 'sensitivity'")
            return None
        try:
            return Sensitivity.parse(str(value))
        except ValueError as err:
            self.problem("sensitivity", str(err))
            return None

    def _enabled(self) -> bool:
        value = self.entry.get("enabled", True)
        if not isinstance(value, bool):
            self.problem("enabled", "'enabled' must be true or false")
            return False
        return value

    def _date(self, key: str) -> date | None:
        value = self.entry.get(key)
        if value is None:
            return None
        # TOML reads 2025-06-30 as a date and 2025-06-30T00:00 as a datetime (a date subclass).
        if isinstance(value, date) and not isinstance(value, datetime):
            return value
        if isinstance(value, str):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        self.problem(key, f"{key} {value!s} is not a date; write YYYY-MM-DD")
        return None


def _clashes(path: Path, items: list[FaqItem]) -> Iterator[FaqProblem]:
    """Duplicate ids, and a wording (after normalization) that two items both claim."""
    ids: dict[str, FaqItem] = {}
    owners: dict[str, FaqItem] = {}
    for item in items:
        first = ids.setdefault(item.id, item)
        if first is not item:
            yield FaqProblem(
                path, item.line, f"faq {item.id!r}: duplicate id (first used at line {first.line})"
            )
        for text in item.texts:
            owner = owners.setdefault(faq_key(text), item)
            if owner is not item:
                yield FaqProblem(
                    path,
                    item.line,
                    f"faq {item.id!r}: {text!r} is already a wording of faq {owner.id!r} "
                    f"(line {owner.line}); wordings compare ignoring case, spaces, full-width "
                    "forms and closing punctuation",
                )
